import { Redis } from 'ioredis';

/** One Redis connection per process for counters and pub/sub publishing (BullMQ opens its own). */
export function createRedis(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
}

export const REDIS = Symbol('REDIS');
