import { DynamicModule, Global, Injectable, Module, OnApplicationShutdown, Provider } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { MikroORM } from '@mikro-orm/core';
import type { Redis } from 'ioredis';
import { APP_CONFIG, AppConfig } from './config/config';
import { Database } from './database/database.service';
import { OrmHandle } from './database/orm';
import { ErrorFilter } from './errors/error.filter';
import { AuthGuard } from './auth/auth.guard';
import { ApiValidationPipe } from './validation/validation.pipe';
import { EventDispatcher } from './events/event-dispatcher';
import { HealthController } from './health/health.controller';
import { REDIS } from './redis/redis';
import { MemoryRateLimitStore, RateLimiter, RedisRateLimitStore } from './rate-limit/rate-limit';
import { BullJobQueue, InProcessJobQueue, JobQueue } from './queue/job-queue';
import { FileStore, localFileStore } from './storage/file-store';
import type * as S3Store from './storage/s3-file-store';

/** The AWS SDK is loaded when S3 storage is configured, not by the default local store. */
const s3Store = (): typeof S3Store => require('./storage/s3-file-store');
import { Clock } from './clock/clock';
import { EventBus, InProcessEventBus, RedisEventBus } from './events/event-bus';
import { SecretBox } from './crypto/secret-box';
import { OutboundHttp } from './outbound/outbound-http';
import { CredentialCache } from './auth/credential-cache';
import { Metrics } from './metrics/metrics';
import { HttpDrain } from './http/drain';
import { MetricsController } from './metrics/metrics.controller';
import { DatabaseUsageStore, RedisUsageStore, UsageMeter } from './usage/usage-meter';

/** Adds the last batched usage counts before the database closes. */
@Injectable()
class UsageShutdown implements OnApplicationShutdown {
  constructor(private readonly usage: UsageMeter) {}
  async onApplicationShutdown(): Promise<void> {
    await this.usage.close();
  }
}

/** Closes the live event fan-out (Redis subscriber connection). */
@Injectable()
class EventBusShutdown implements OnApplicationShutdown {
  constructor(private readonly bus: EventBus) {}
  async onApplicationShutdown(): Promise<void> {
    await this.bus.close();
  }
}

/** Stops consuming jobs before the database closes. */
@Injectable()
class QueueShutdown implements OnApplicationShutdown {
  constructor(private readonly queue: JobQueue) {}
  async onApplicationShutdown(): Promise<void> {
    await this.queue.close();
  }
}

export const ORM_HANDLE = Symbol('ORM_HANDLE');

export interface PlatformResources {
  config: AppConfig;
  orm: OrmHandle;
  redis: Redis | null;
}

/**
 * Cross-cutting providers. The database and Redis connections are opened before Nest starts
 * (createApp), so a wrong DATABASE_URL or a locked DATA_DIR fails fast with a clear message.
 */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(resources: PlatformResources): DynamicModule {
    const providers: Provider[] = [
      { provide: APP_CONFIG, useValue: resources.config },
      { provide: ORM_HANDLE, useValue: resources.orm },
      { provide: MikroORM, useValue: resources.orm.orm },
      { provide: REDIS, useValue: resources.redis },
      {
        provide: RateLimiter,
        useFactory: () =>
          new RateLimiter(
            resources.redis ? new RedisRateLimitStore(resources.redis, resources.config.redisPrefix) : new MemoryRateLimitStore(),
            resources.config.rateLimit,
          ),
      },
      {
        provide: JobQueue,
        useFactory: () =>
          resources.redis
            ? new BullJobQueue(
                resources.redis,
                `${resources.config.redisPrefix}:bull`,
                resources.config.pipeline.retryBaseMs,
                resources.config.pipeline.stalledSeconds * 1000,
              )
            : new InProcessJobQueue(resources.config.pipeline.retryBaseMs),
      },
      QueueShutdown,
      HttpDrain,
      { provide: Metrics, useFactory: (queue: JobQueue) => new Metrics(() => queue.stats()), inject: [JobQueue] },
      {
        provide: UsageMeter,
        useFactory: () =>
          resources.redis
            ? new UsageMeter(new RedisUsageStore(resources.redis, resources.config.redisPrefix), resources.config.usage, false)
            : new UsageMeter(new DatabaseUsageStore(resources.orm.orm), resources.config.usage, true),
      },
      UsageShutdown,
      { provide: CredentialCache, useFactory: () => new CredentialCache(resources.config.authCacheSeconds * 1000) },
      {
        provide: EventBus,
        useFactory: () => (resources.redis ? new RedisEventBus(resources.redis, resources.config.redisPrefix) : new InProcessEventBus()),
      },
      EventBusShutdown,
      {
        provide: FileStore,
        useFactory: () => {
          const storage = resources.config.storage;
          return storage.kind === 's3'
            ? new (s3Store().S3FileStore)(s3Store().s3Client(storage.s3), storage.location, storage.s3)
            : localFileStore(resources.config.dataDir);
        },
      },
      Database,
      EventDispatcher,
      Clock,
      { provide: SecretBox, useFactory: () => new SecretBox(resources.config.secretsKey) },
      OutboundHttp,
      { provide: APP_FILTER, useClass: ErrorFilter },
      { provide: APP_GUARD, useClass: AuthGuard },
      { provide: APP_PIPE, useClass: ApiValidationPipe },
    ];
    return {
      module: PlatformModule,
      controllers: [HealthController, MetricsController],
      providers,
      exports: [
        APP_CONFIG,
        ORM_HANDLE,
        MikroORM,
        REDIS,
        RateLimiter,
        UsageMeter,
        CredentialCache,
        Database,
        EventDispatcher,
        JobQueue,
        Metrics,
        HttpDrain,
        FileStore,
        Clock,
        SecretBox,
        OutboundHttp,
        EventBus,
      ],
    };
  }
}
