import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pino, { type DestinationStream } from 'pino';
import { createApp, RunningApp } from '../../src/app.factory';
import { PGLITE_OPTIONS } from '../../src/platform/database/orm';
import { AppConfig, loadConfig } from '../../src/platform/config/config';
import { EventDispatcher } from '../../src/platform/events/event-dispatcher';
import { JobQueue } from '../../src/platform/queue/job-queue';
import { ProvisioningService, BootstrapResult } from '../../src/modules/auth/provisioning.service';
import { adminQuery, realDatabaseUrl, realRedisUrl, templateDb } from './services';
import { OpenApiValidator } from './openapi-validator';

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  rawBody?: string;
  /** multipart/form-data body (uploads) */
  form?: FormData;
  headers?: Record<string, string>;
  /** Skip the OpenAPI conformance check (for deliberately undocumented paths). */
  unchecked?: boolean;
}

let validator: OpenApiValidator | null = null;

/** Production-mode suites need a key; every suite gets the same one (the data is throwaway). */
export const TEST_SECRETS_KEY = Buffer.alloc(32, 1).toString('base64');

/**
 * A real server per suite: real HTTP on 127.0.0.1, a database copied from the migrated template
 * (PGlite snapshot, or a PostgreSQL database made from the template in the real-service run),
 * and Redis when the run provides it. Every response is checked against openapi/openapi.json.
 */
export class TestApp {
  private constructor(
    readonly running: RunningApp,
    readonly url: string,
    private readonly cleanup: () => Promise<void>,
    private readonly pglite?: PGlite,
    private readonly logTo?: DestinationStream,
  ) {}

  private static async listen(
    config: AppConfig,
    pglite: PGlite | undefined,
    logTo?: DestinationStream,
  ): Promise<{ running: RunningApp; url: string }> {
    const running = await createApp(config, { pglite, logTo });
    await running.app.listen({ port: 0, host: '127.0.0.1' });
    const address = running.app.getHttpServer().address() as { port: number };
    return { running, url: `http://127.0.0.1:${address.port}` };
  }

  /**
   * Stops this server and starts a new one on the same database and Redis prefix (a restart: the
   * in-process queue and timers are gone, the data stays). The returned app takes over the cleanup.
   */
  async restart(overrides: Partial<AppConfig> = {}): Promise<TestApp> {
    await this.running.close();
    const { running, url } = await TestApp.listen({ ...this.running.config, ...overrides }, this.pglite, this.logTo);
    return new TestApp(
      running,
      url,
      async () => {
        await running.close();
        await this.cleanup();
      },
      this.pglite,
      this.logTo,
    );
  }

  /** A second server process on the same database and Redis (real-service run: PostgreSQL). Close it before this one. */
  async sibling(overrides: Partial<AppConfig> = {}): Promise<TestApp> {
    if (this.pglite) throw new Error('sibling() needs PostgreSQL: two servers cannot share the embedded database');
    const { running, url } = await TestApp.listen({ ...this.running.config, ...overrides }, undefined, this.logTo);
    return new TestApp(running, url, () => running.close(), undefined, this.logTo);
  }

  static async start(
    env: Record<string, string> = {},
    overrides: Partial<AppConfig> = {},
    options: { logTo?: DestinationStream } = {},
  ): Promise<TestApp> {
    const dbUrl = realDatabaseUrl();
    const redisUrl = realRedisUrl();
    const suffix = randomBytes(5).toString('hex');
    const dataDir = mkdtempSync(join(tmpdir(), 'ledgerlens-test-data-'));
    // Logs go to the run's log folder (scanned for secrets by global teardown), at info so that request lines are in.
    const logDir = process.env.LEDGERLENS_TEST_LOG_DIR;
    const logTo = options.logTo ?? (logDir ? pino.destination({ dest: join(logDir, `${suffix}.ndjson`), sync: true }) : undefined);
    const baseEnv: Record<string, string> = {
      DATA_DIR: dataDir,
      NODE_ENV: 'test',
      DEMO_BOOTSTRAP: 'false',
      LOG_LEVEL: logDir ? 'info' : 'error',
      REDIS_PREFIX: `lltest:${suffix}`,
      SECRETS_KEY: TEST_SECRETS_KEY,
      // production requires the public address; suites that care pass their own
      ...(env.NODE_ENV === 'production' ? { PUBLIC_URL: 'https://ledgerlens.test' } : {}),
      ...env,
    };
    let pglite: PGlite | undefined;
    let dropDb: (() => Promise<void>) | null = null;
    if (dbUrl) {
      const name = `ledgerlens_test_${suffix}`;
      await adminQuery(dbUrl, `create database ${name} template ${templateDb()}`);
      const url = new URL(dbUrl);
      url.pathname = `/${name}`;
      baseEnv.DATABASE_URL = url.toString();
      dropDb = () => adminQuery(dbUrl, `drop database if exists ${name} with (force)`);
    } else {
      const template = process.env.LEDGERLENS_PGLITE_TEMPLATE;
      if (!template) throw new Error('LEDGERLENS_PGLITE_TEMPLATE is not set: run the tests through jest (global setup)');
      pglite = new PGlite({ ...PGLITE_OPTIONS, loadDataDir: new Blob([readFileSync(template)]) });
      await pglite.waitReady;
    }
    if (redisUrl && !('REDIS_URL' in env)) baseEnv.REDIS_URL = redisUrl;
    const config = loadConfig(baseEnv, overrides);
    const { running, url } = await TestApp.listen(config, pglite, logTo);
    return new TestApp(
      running,
      url,
      async () => {
        await running.close();
        await pglite?.close();
        if (running.redis === null && redisUrl) {
          /* nothing to clean */
        }
        await dropDb?.();
        rmSync(dataDir, { recursive: true, force: true });
      },
      pglite,
      logTo,
    );
  }

  get<T>(cls: abstract new (...args: any[]) => T): T {
    return this.running.app.get(cls as any);
  }

  async close(): Promise<void> {
    await this.cleanup();
  }

  /** Creates an organization with an admin user, live and test keys and an OAuth client. */
  async newOrg(name = 'Org'): Promise<BootstrapResult & { password: string }> {
    const password = `pw-${randomBytes(6).toString('hex')}`;
    const email = `${name.toLowerCase().replace(/\W+/g, '-')}-${randomBytes(4).toString('hex')}@example.test`;
    const result = await this.get(ProvisioningService).bootstrap({ orgName: name, email, password });
    return { ...result, password };
  }

  async newUser(organizationId: number, role: string): Promise<{ user: { id: number; email: string }; api_key: string; password: string }> {
    const password = `pw-${randomBytes(6).toString('hex')}`;
    const email = `${role}-${randomBytes(4).toString('hex')}@example.test`;
    const result = await this.get(ProvisioningService).createUser({ organizationId, email, password, role });
    return { ...result, password };
  }

  /** Waits until every recorded domain event has been delivered (no sleeping). */
  async drainEvents(): Promise<void> {
    await this.get(EventDispatcher).drain();
  }

  /** Waits until the job queue is idle and every event is delivered: uploads are then processed. */
  async settle(): Promise<void> {
    await this.get(JobQueue).idle();
    await this.drainEvents();
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<TestResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers['X-API-Key'] = options.key;
    let body: string | FormData | undefined = options.form ?? options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const res = await fetch(this.url + path, { method, headers, body });
    const contentType = res.headers.get('content-type');
    const raw = Buffer.from(await res.arrayBuffer());
    const text = contentType?.includes('json') || contentType?.startsWith('text/') ? raw.toString('utf8') : '';
    const parsed =
      contentType?.includes('json') && text
        ? JSON.parse(text)
        : contentType?.includes('json') || contentType?.startsWith('text/')
          ? text
          : raw;
    if (!options.unchecked) {
      validator ??= new OpenApiValidator();
      const problems = validator.check(method, path.split('?')[0], res.status, parsed, contentType);
      if (problems.length) throw new Error(`Response does not match openapi.json:\n${problems.join('\n')}\nbody: ${text.slice(0, 500)}`);
    }
    return { status: res.status, headers: res.headers, body: parsed as T };
  }
}
