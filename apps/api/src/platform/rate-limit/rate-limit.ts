import type { Redis } from 'ioredis';
import { RateLimitConfig } from '../config/config';

export type EndpointClass = 'standard' | 'write' | 'upload' | 'auth' | 'shareView';

export interface RateLimitResult {
  limit: number;
  remaining: number;
  /** Unix seconds when the window resets. */
  reset: number;
  allowed: boolean;
  retryAfter: number;
}

/** Counter store behind the limiter: in-memory by default, Redis when REDIS_URL is set (shared by every replica). */
export interface RateLimitStore {
  /** Increments the counter of `key` for the window starting at `windowStart` and returns the new count. */
  increment(key: string, windowStart: number, windowSeconds: number): number | Promise<number>;
}

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly counters = new Map<string, { windowStart: number; count: number }>();

  // synchronous: the in-process counter needs no promise per request
  increment(key: string, windowStart: number): number {
    const current = this.counters.get(key);
    if (!current || current.windowStart !== windowStart) {
      if (this.counters.size > 100_000) this.sweep(windowStart);
      this.counters.set(key, { windowStart, count: 1 });
      return 1;
    }
    current.count += 1;
    return current.count;
  }

  private sweep(windowStart: number): void {
    for (const [k, v] of this.counters) if (v.windowStart < windowStart) this.counters.delete(k);
  }
}

export class RedisRateLimitStore implements RateLimitStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async increment(key: string, windowStart: number, windowSeconds: number): Promise<number> {
    const redisKey = `${this.prefix}:rl:${key}:${windowStart}`;
    const results = await this.redis
      .multi()
      .incr(redisKey)
      .expire(redisKey, windowSeconds + 5)
      .exec();
    const [err, count] = results?.[0] ?? [new Error('Redis transaction aborted'), 0];
    if (err) throw err;
    return Number(count);
  }
}

/** Fixed-window limiter per subject (API key, token or client IP) and endpoint class. */
export class RateLimiter {
  constructor(
    private readonly store: RateLimitStore,
    private readonly config: RateLimitConfig,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request of `subject`; answered without a promise when the store is in-process. */
  hit(cls: EndpointClass, subject: string): RateLimitResult | Promise<RateLimitResult> {
    const limit = this.config[cls];
    const window = this.config.windowSeconds;
    const nowSeconds = Math.floor(this.now() / 1000);
    const windowStart = nowSeconds - (nowSeconds % window);
    const reset = windowStart + window;
    const result = (count: number): RateLimitResult => ({
      limit,
      remaining: Math.max(0, limit - count),
      reset,
      allowed: count <= limit,
      retryAfter: Math.max(1, reset - nowSeconds),
    });
    const count = this.store.increment(`${cls}:${subject}`, windowStart, window);
    return typeof count === 'number' ? result(count) : count.then(result);
  }
}

// Route templates (`/v1/deals/:deal_id/documents`), as registered: never raw URLs.
const UPLOAD_ROUTES = [/^\/v1\/deals\/:[^/]+\/documents(\/bulk)?$/, /^\/v1\/bulk-upload$/, /^\/v1\/ingest$/];
const AUTH_ROUTES = [/^\/(v1\/)?auth\/login$/, /^\/(v1\/)?oauth\/token$/];
/** The web app's sign-in (its GET and DELETE are ordinary reads and writes). */
const SESSION_SIGN_IN = '/v1/auth/session';
/** The public share view: JSON (`/v1/share/{token}`) and the human page (`/share/{token}`, GET and its password POST). */
const SHARE_VIEW_ROUTE = /^\/(v1\/)?share\/:token$/;
const SHARE_PAGE_ROUTE = /^\/share\/:token$/;

/**
 * Endpoint class of a request (spec Limits, Form B), from its method and the template of the route
 * it matched: never from the raw URL, which may spell the same route differently (Fastify routes
 * `/v1/auth/%6cogin` to `/v1/auth/login`). A request that matched no route is classed by its method.
 */
export function endpointClass(method: string, route: string | undefined): EndpointClass {
  if (route !== undefined) {
    if (AUTH_ROUTES.some((re) => re.test(route)) || (method === 'POST' && route === SESSION_SIGN_IN)) return 'auth';
    if (method === 'POST' && UPLOAD_ROUTES.some((re) => re.test(route))) return 'upload';
    if (((method === 'GET' || method === 'HEAD') && SHARE_VIEW_ROUTE.test(route)) || (method === 'POST' && SHARE_PAGE_ROUTE.test(route)))
      return 'shareView';
  }
  if (method === 'POST' || method === 'PUT') return 'write';
  return 'standard';
}
