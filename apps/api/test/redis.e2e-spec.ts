import { TestApp } from './support/harness';
import { realRedisUrl } from './support/services';

/**
 * With REDIS_URL set, rate-limit counters live in Redis and are shared by every API replica.
 * Runs in the real-service run (LEDGERLENS_TEST_REDIS_URL), where Redis must be reachable.
 */
const withRedis = realRedisUrl() ? describe : describe.skip;

withRedis('Redis-backed rate limits shared by replicas', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    const shared = {
      RATE_LIMIT_WINDOW_SECONDS: '3600',
      RATE_LIMIT_STANDARD: '4',
      REDIS_PREFIX: `lltest:shared:${process.pid}:${Date.now()}`,
    };
    a = await TestApp.start(shared);
    b = await TestApp.start(shared);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('counts requests of one key across two replicas', async () => {
    expect(a.running.redis).not.toBeNull();
    const org = await a.newOrg('Replicas');
    // The replicas have separate databases in this test; the limiter keys on the credential id,
    // which both see for the org created in `a` only, so use `a` for auth and compare headers.
    const first = await a.request('GET', '/v1/deals', { key: org.api_key });
    expect(first.headers.get('x-ratelimit-remaining')).toBe('3');
    const viaB = await b.request('GET', '/health', { unchecked: true });
    expect(viaB.status).toBe(200);
    for (let i = 0; i < 3; i++) await a.request('GET', '/v1/deals', { key: org.api_key });
    const limited = await a.request('GET', '/v1/deals', { key: org.api_key });
    expect(limited.status).toBe(429);
    // Replica b shares the counter: a client address bucket filled through a is full on b too.
    for (let i = 0; i < 4; i++) await a.request('GET', '/v1/nope', { unchecked: true });
    const fromB = await b.request('GET', '/v1/nope', { unchecked: true });
    expect(fromB.status).toBe(429);
  });
});
