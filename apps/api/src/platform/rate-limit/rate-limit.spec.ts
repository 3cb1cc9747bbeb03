import { endpointClass, MemoryRateLimitStore, RateLimiter, RateLimitStore } from './rate-limit';

const limits = { windowSeconds: 60, standard: 3, write: 2, upload: 1, auth: 1, shareView: 1 };
const NOW = Date.parse('2026-11-26T12:00:30Z');

describe('RateLimiter.hit', () => {
  it('in-process: answers without a promise, counts per subject and class within the window', () => {
    const limiter = new RateLimiter(new MemoryRateLimitStore(), limits, () => NOW);
    const results = [1, 2, 3, 4].map(() => limiter.hit('standard', 'api_key:1'));
    for (const r of results) expect(r).not.toBeInstanceOf(Promise);
    expect(results.map((r) => ('remaining' in r ? r.remaining : -1))).toEqual([2, 1, 0, 0]);
    expect(results.map((r) => ('allowed' in r ? r.allowed : null))).toEqual([true, true, true, false]);
    expect(limiter.hit('standard', 'api_key:2')).toMatchObject({ remaining: 2, allowed: true });
    expect(limiter.hit('write', 'api_key:1')).toMatchObject({ limit: 2, remaining: 1 });
    // the window started at 12:00:00; it resets at 12:01:00, 30 s from now
    expect(results[3]).toMatchObject({ reset: Date.parse('2026-11-26T12:01:00Z') / 1000, retryAfter: 30 });
  });

  it('with a shared (asynchronous) store: the same answers through a promise', async () => {
    const memory = new MemoryRateLimitStore();
    const shared: RateLimitStore = { increment: async (key, windowStart) => memory.increment(key, windowStart) };
    const limiter = new RateLimiter(shared, limits, () => NOW);
    const first = limiter.hit('upload', 'ip:127.0.0.1');
    expect(first).toBeInstanceOf(Promise);
    await expect(first).resolves.toMatchObject({ limit: 1, remaining: 0, allowed: true });
    await expect(limiter.hit('upload', 'ip:127.0.0.1')).resolves.toMatchObject({ allowed: false, retryAfter: 30 });
  });
});

describe('endpointClass', () => {
  it('classes by the matched route template, and by the method alone when no route matched', () => {
    expect(endpointClass('POST', '/v1/auth/login')).toBe('auth');
    expect(endpointClass('POST', '/oauth/token')).toBe('auth');
    expect(endpointClass('POST', '/v1/deals/:deal_id/documents')).toBe('upload');
    expect(endpointClass('POST', '/v1/deals/:deal_id/documents/bulk')).toBe('upload');
    expect(endpointClass('GET', '/v1/deals/:deal_id/documents')).toBe('standard');
    expect(endpointClass('GET', '/v1/share/:token')).toBe('shareView');
    expect(endpointClass('HEAD', '/share/:token')).toBe('shareView');
    expect(endpointClass('POST', '/share/:token')).toBe('shareView');
    expect(endpointClass('DELETE', '/v1/share/:share_id')).toBe('standard');
    // a raw path is not a template: it never gets a narrower class than its method's
    expect(endpointClass('POST', '/v1/auth/%6cogin')).toBe('write');
    expect(endpointClass('POST', undefined)).toBe('write');
    expect(endpointClass('GET', undefined)).toBe('standard');
  });
});
