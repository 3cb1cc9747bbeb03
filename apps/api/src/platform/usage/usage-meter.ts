import type { Redis } from 'ioredis';
import { MikroORM } from '@mikro-orm/core';
import { AppConfig } from '../config/config';
import { ApiError, ErrorCode } from '../errors/api-error';

export type UsageMetric = 'requests' | 'documents';

/** The calendar month (UTC) a usage count belongs to. */
export interface UsagePeriod {
  /** `YYYY-MM` */
  key: string;
  start: Date;
  end: Date;
}

let lastPeriod: UsagePeriod | null = null;

export function usagePeriod(now: Date): UsagePeriod {
  // every live request asks: the month in hand is reused until the clock leaves it
  const t = now.getTime();
  if (lastPeriod && t >= lastPeriod.start.getTime() && t < lastPeriod.end.getTime()) return lastPeriod;
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  lastPeriod = Object.freeze({ key: start.toISOString().slice(0, 7), start, end });
  return lastPeriod;
}

/** Where usage counters live: shared by every api replica (Redis, or the database). */
export interface UsageStore {
  /** Adds `by` (may be negative) and returns the new count. */
  add(organizationId: number, period: string, metric: UsageMetric, by: number): Promise<number>;
  read(organizationId: number, period: string): Promise<Record<UsageMetric, number>>;
}

export class RedisUsageStore implements UsageStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(organizationId: number, period: string): string {
    return `${this.prefix}:usage:${organizationId}:${period}`;
  }

  async add(organizationId: number, period: string, metric: UsageMetric, by: number): Promise<number> {
    const key = this.key(organizationId, period);
    const results = await this.redis
      .multi()
      .hincrby(key, metric, by)
      .expire(key, 70 * 86_400)
      .exec();
    const [err, count] = results?.[0] ?? [new Error('Redis transaction aborted'), 0];
    if (err) throw err;
    return Number(count);
  }

  async read(organizationId: number, period: string): Promise<Record<UsageMetric, number>> {
    const all = await this.redis.hgetall(this.key(organizationId, period));
    return { requests: Number(all.requests ?? 0), documents: Number(all.documents ?? 0) };
  }
}

/** One row per organization, month and metric; the upsert is atomic, so replicas add up exactly. */
export class DatabaseUsageStore implements UsageStore {
  constructor(private readonly orm: MikroORM) {}

  async add(organizationId: number, period: string, metric: UsageMetric, by: number): Promise<number> {
    const rows: { count: string | number }[] = await this.orm.em
      .fork()
      .getConnection()
      .execute(
        `insert into "usage_counters" ("organization_id", "period", "metric", "count") values (?, ?, ?, ?)
         on conflict ("organization_id", "period", "metric") do update set "count" = "usage_counters"."count" + excluded."count"
         returning "count"`,
        [organizationId, period, metric, by],
      );
    return Number(rows[0].count);
  }

  async read(organizationId: number, period: string): Promise<Record<UsageMetric, number>> {
    const rows: { metric: UsageMetric; count: string | number }[] = await this.orm.em
      .fork()
      .getConnection()
      .execute(`select "metric", "count" from "usage_counters" where "organization_id" = ? and "period" = ?`, [organizationId, period]);
    const out: Record<UsageMetric, number> = { requests: 0, documents: 0 };
    for (const row of rows) out[row.metric] = Number(row.count);
    return out;
  }
}

export interface UsageSnapshot {
  period: UsagePeriod;
  plan: string;
  requests: { used: number; limit: number | null };
  documents: { used: number; limit: number | null };
}

interface OrgRequests {
  period: string;
  /** The shared total as last seen from the store. */
  known: number;
  /** Counted here, not yet added to the store. */
  pending: number;
}

/**
 * Monthly usage per organization. Requests are counted on every live request; with Redis each
 * one is an atomic HINCRBY (exact across replicas). Without Redis, a database write per request
 * would cost more than the request itself, so each process adds its count every `flushMs` in one
 * upsert and checks against the shared total it last saw plus its own: replicas may overshoot a
 * limit by what they serve in one flush interval. Documents are reserved atomically before they
 * are created (exact everywhere).
 */
export class UsageMeter {
  private readonly orgs = new Map<number, OrgRequests>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly store: UsageStore,
    private readonly config: AppConfig['usage'],
    private readonly batched: boolean,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Counts one request; throws QUOTA_EXCEEDED once the month's requests are used up. Batched, once
   * the organization's month is known, it counts without a promise (the request hook's fast path)
   * and throws synchronously; otherwise it returns a promise that rejects.
   */
  countRequest(organizationId: number): void | Promise<void> {
    const period = usagePeriod(this.now());
    if (this.batched) {
      const state = this.orgs.get(organizationId);
      if (state && state.period === period.key) return this.countBatched(state, period);
    }
    return this.countRequestAsync(organizationId, period);
  }

  private async countRequestAsync(organizationId: number, period: UsagePeriod): Promise<void> {
    if (!this.batched) {
      this.checkRequests(await this.store.add(organizationId, period.key, 'requests', 1), period);
      return;
    }
    const known = (await this.store.read(organizationId, period.key)).requests;
    let state = this.orgs.get(organizationId);
    if (!state || state.period !== period.key) {
      if (state?.pending) void this.store.add(organizationId, state.period, 'requests', state.pending).catch(() => undefined);
      state = { period: period.key, known, pending: 0 };
      this.orgs.set(organizationId, state);
    }
    this.countBatched(state, period);
  }

  private countBatched(state: OrgRequests, period: UsagePeriod): void {
    state.pending += 1;
    this.schedule();
    this.checkRequests(state.known + state.pending, period);
  }

  private checkRequests(used: number, period: UsagePeriod): void {
    const limit = this.config.requestsPerMonth;
    if (limit !== null && used > limit) throw quotaExceeded('request', limit, period, this.now());
  }

  /** Reserves `count` documents of this month's quota; release what is not created. */
  async reserveDocuments(organizationId: number, count: number): Promise<void> {
    if (count <= 0) return;
    const period = usagePeriod(this.now());
    const used = await this.store.add(organizationId, period.key, 'documents', count);
    const limit = this.config.documentsPerMonth;
    if (limit !== null && used > limit) {
      await this.store.add(organizationId, period.key, 'documents', -count);
      throw quotaExceeded('document', limit, period, this.now());
    }
  }

  async releaseDocuments(organizationId: number, count: number): Promise<void> {
    if (count <= 0) return;
    await this.store.add(organizationId, usagePeriod(this.now()).key, 'documents', -count);
  }

  async snapshot(organizationId: number): Promise<UsageSnapshot> {
    await this.flush();
    const period = usagePeriod(this.now());
    const counts = await this.store.read(organizationId, period.key);
    const state = this.orgs.get(organizationId);
    if (state && state.period === period.key) state.known = Math.max(state.known, counts.requests - state.pending);
    const { requestsPerMonth, documentsPerMonth, plan } = this.config;
    return {
      period,
      plan,
      requests: { used: clamp(counts.requests, requestsPerMonth), limit: requestsPerMonth },
      documents: { used: Math.max(0, counts.documents), limit: documentsPerMonth },
    };
  }

  /** Adds this process's pending request counts to the shared store. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    const work = [...this.orgs].filter(([, s]) => s.pending > 0);
    if (!work.length) return;
    this.flushing = (async () => {
      await Promise.all(
        work.map(async ([organizationId, state]) => {
          const by = state.pending;
          state.pending = 0;
          try {
            const total = await this.store.add(organizationId, state.period, 'requests', by);
            // The total includes what was counted here meanwhile only once that is flushed too.
            state.known = total;
          } catch (err) {
            state.pending += by;
            throw err;
          }
        }),
      );
    })().finally(() => (this.flushing = null));
    await this.flushing;
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush().catch(() => undefined);
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush().catch(() => undefined);
    }, this.config.flushMs);
    this.timer.unref();
  }
}

function clamp(used: number, limit: number | null): number {
  return limit === null ? used : Math.min(used, limit);
}

function quotaExceeded(what: string, limit: number, period: UsagePeriod, now: Date): ApiError {
  const err = new ApiError(
    ErrorCode.QUOTA_EXCEEDED,
    `Monthly ${what} quota exhausted (${limit} ${what}s in ${period.key}); it resets at ${period.end.toISOString()}.`,
  );
  err.retryAfter = Math.max(1, Math.ceil((period.end.getTime() - now.getTime()) / 1000));
  return err;
}
