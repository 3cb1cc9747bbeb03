import { ApiError, ErrorCode } from '../errors/api-error';
import { UsageMeter, UsageMetric, UsageStore } from './usage-meter';

/** An in-memory UsageStore with the asynchronous shape of the real ones (database, Redis). */
class MapStore implements UsageStore {
  readonly counts = new Map<string, number>();
  reads = 0;
  async add(organizationId: number, period: string, metric: UsageMetric, by: number): Promise<number> {
    const key = `${organizationId}:${period}:${metric}`;
    const next = (this.counts.get(key) ?? 0) + by;
    this.counts.set(key, next);
    return next;
  }
  async read(organizationId: number, period: string): Promise<Record<UsageMetric, number>> {
    this.reads++;
    return {
      requests: this.counts.get(`${organizationId}:${period}:requests`) ?? 0,
      documents: this.counts.get(`${organizationId}:${period}:documents`) ?? 0,
    };
  }
}

const NOW = new Date('2026-11-26T12:00:00Z');
const config = (requestsPerMonth: number | null) => ({ plan: 'standard', requestsPerMonth, documentsPerMonth: null, flushMs: 60_000 });

describe('UsageMeter.countRequest (the request hook calls it on every live request)', () => {
  it('batched: the first request of an organization reads the shared total; later ones count without a promise', async () => {
    const store = new MapStore();
    store.counts.set('7:2026-11:requests', 40);
    const meter = new UsageMeter(store, config(100), true, () => NOW);
    const first = meter.countRequest(7);
    expect(first).toBeInstanceOf(Promise);
    await first;
    expect(store.reads).toBe(1);
    for (let i = 0; i < 5; i++) expect(meter.countRequest(7)).toBeUndefined();
    expect(store.reads).toBe(1);
    await meter.flush();
    expect(store.counts.get('7:2026-11:requests')).toBe(46);
  });

  it('batched: past the limit it throws QUOTA_EXCEEDED synchronously (the shared total plus what this process counted)', async () => {
    const store = new MapStore();
    store.counts.set('7:2026-11:requests', 8);
    const meter = new UsageMeter(store, config(10), true, () => NOW);
    await meter.countRequest(7); // 9
    expect(meter.countRequest(7)).toBeUndefined(); // 10
    let thrown: unknown;
    let returned: unknown;
    try {
      returned = meter.countRequest(7); // 11
    } catch (err) {
      thrown = err;
    }
    expect(returned).toBeUndefined();
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).code).toBe(ErrorCode.QUOTA_EXCEEDED);
  });

  it('batched: a first request that is already over the limit rejects', async () => {
    const store = new MapStore();
    store.counts.set('7:2026-11:requests', 10);
    const meter = new UsageMeter(store, config(10), true, () => NOW);
    await expect(meter.countRequest(7)).rejects.toMatchObject({ code: ErrorCode.QUOTA_EXCEEDED });
  });

  it('not batched (Redis): every request is added to the store at once, and past the limit rejects', async () => {
    const store = new MapStore();
    const meter = new UsageMeter(store, config(2), false, () => NOW);
    await meter.countRequest(7);
    await meter.countRequest(7);
    expect(store.counts.get('7:2026-11:requests')).toBe(2);
    await expect(meter.countRequest(7)).rejects.toMatchObject({ code: ErrorCode.QUOTA_EXCEEDED });
  });
});
