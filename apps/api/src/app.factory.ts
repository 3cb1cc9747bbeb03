import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { PGlite } from '@electric-sql/pglite';
import type { Redis } from 'ioredis';
import type { DestinationStream } from 'pino';
import { AppModule } from './app.module';
import { AppConfig } from './platform/config/config';
import { openOrm, OrmHandle } from './platform/database/orm';
import { createRedis } from './platform/redis/redis';
import { AccessLogOnly, createLogger, PinoNestLogger } from './platform/logging/logger';
import { installRequestHooks } from './platform/https/request-hooks';
import { installJsonBodyParser } from './platform/http/json-body';
import { registerStreamingMultipart } from './platform/http/multipart';
import { clientErrorHandler, frameworkErrors } from './platform/http/framework-errors';
import { Authenticator } from './platform/auth/authenticator';
import { RateLimiter } from './platform/rate-limit/rate-limit';
import { UsageMeter } from './platform/usage/usage-meter';
import { setupOpenApi } from './openapi';
import { Metrics } from './platform/metrics/metrics';
import { installHttpMetrics } from './platform/metrics/http-metrics';
import { startMetricsListener, stopMetricsListener } from './platform/metrics/metrics-listener';
import { HttpDrain } from './platform/http/drain';
import { installWebApp } from './platform/http/web-app';
import { StreamService } from './modules/stream/stream.service';
import { ENTITIES } from './entities';

export interface CreateAppOptions {
  /** Tests pass a PGlite loaded from a migrated template. */
  pglite?: PGlite;
  /** The CLI keeps stdout for its own (JSON) output; tests may pass a stream to read the logs. */
  logTo?: 'stdout' | 'stderr' | DestinationStream;
}

export interface RunningApp {
  app: NestFastifyApplication;
  config: AppConfig;
  orm: OrmHandle;
  redis: Redis | null;
  /** The METRICS_PORT listener's port (its actual one when METRICS_PORT=0), or null when not configured. */
  metricsPort: number | null;
  close(): Promise<void>;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Builds the whole server (same code for `npm start`, the worker role, the CLI and the tests). */
export async function createApp(config: AppConfig, options: CreateAppOptions = {}): Promise<RunningApp> {
  const orm = await openOrm(config, ENTITIES, { pglite: options.pglite });
  const redis = config.redisUrl ? createRedis(config.redisUrl) : null;
  try {
    const logger = createLogger(config, options.logTo);
    const adapter = new FastifyAdapter({
      loggerInstance: logger,
      trustProxy: config.trustProxy,
      https: config.tls ? { cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) } : null,
      genReqId: (req) => {
        const incoming = req.headers['x-request-id'];
        return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
      },
      bodyLimit: 1024 * 1024,
      logController: new AccessLogOnly(),
      // while draining, requests on open connections are served (with Connection: close), not 503
      return503OnClosing: false,
      frameworkErrors,
      clientErrorHandler,
    } as ConstructorParameters<typeof FastifyAdapter>[0]);
    const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot({ config, orm, redis }), adapter, {
      logger: new PinoNestLogger(logger),
      abortOnError: false,
    });
    // Multipart uploads: the per-file limit is enforced while streaming (FileStore.put); these are backstops.
    await registerStreamingMultipart((plugin, opts) => app.register(plugin as never, opts), app.getHttpAdapter().getInstance(), {
      limits: {
        fileSize: config.uploads.maxFileBytes + 1,
        files: config.uploads.maxBulkFiles + 1,
        fields: 20,
        parts: config.uploads.maxBulkFiles + 21,
      },
      throwFileSizeLimit: false,
    });
    // Nest's parsers first (it would add them at init), then ours replaces its JSON parser.
    adapter.registerParserMiddleware();
    installJsonBodyParser(app.getHttpAdapter().getInstance());
    installRequestHooks(app.getHttpAdapter().getInstance(), {
      config,
      authenticator: app.get(Authenticator),
      limiter: app.get(RateLimiter),
      usage: app.get(UsageMeter),
    });
    installHttpMetrics(app.getHttpAdapter().getInstance(), app.get(Metrics));
    const fastify = app.getHttpAdapter().getInstance();
    app.get(HttpDrain).install(fastify);
    setupOpenApi(app, config);
    if (config.role !== 'worker') installWebApp(fastify);
    await app.init();
    const metricsListener = config.metrics.port === null ? null : await startMetricsListener(config, app.get(Metrics));
    let closed = false;
    return {
      app,
      config,
      orm,
      redis,
      metricsPort: metricsListener?.port ?? null,
      close: async () => {
        if (closed) return;
        closed = true;
        // HTTP first (in-flight requests finish while every service is up), then the workers drain
        // their jobs (DocumentProcessor), then the queue, the event bus and the database close.
        await app.get(HttpDrain).drain(fastify, {
          // only a process that serves HTTP announces its stop (a worker has no port to take out of rotation)
          delayMs: config.role === 'worker' ? 0 : config.shutdownDelaySeconds * 1000,
          graceMs: config.shutdownGraceSeconds * 1000,
          beforeClose: () => app.get(StreamService).closeAll(),
        });
        if (metricsListener) await stopMetricsListener(metricsListener.server);
        await app.close();
        await orm.close();
        redis?.disconnect();
        await new Promise<void>((resolve) => logger.flush(() => resolve()));
      },
    };
  } catch (err) {
    await orm.close();
    redis?.disconnect();
    throw err;
  }
}
