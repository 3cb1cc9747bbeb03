import type { Redis } from 'ioredis';

/**
 * One Redis connection per process for counters and pub/sub publishing (BullMQ opens its own).
 * ioredis is loaded here, on first use, so the embedded default never loads it.
 */
export function createRedis(url: string): Redis {
  const { Redis: Client } = require('ioredis') as typeof import('ioredis');
  return new Client(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
}

export const REDIS = Symbol('REDIS');
