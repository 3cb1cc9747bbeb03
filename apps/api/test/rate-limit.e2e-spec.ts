import { TestApp } from './support/harness';

describe('rate limiting per API key and endpoint class', () => {
  let app: TestApp;
  let org: Awaited<ReturnType<TestApp['newOrg']>>;

  beforeAll(async () => {
    // A long window so the test cannot straddle a window boundary.
    app = await TestApp.start({ RATE_LIMIT_WINDOW_SECONDS: '3600', RATE_LIMIT_STANDARD: '5', RATE_LIMIT_WRITE: '3', RATE_LIMIT_AUTH: '2' });
    org = await app.newOrg('Limited');
  });
  afterAll(() => app?.close());

  it('sends X-RateLimit-* on every response and 429 RATE_LIMIT_EXCEEDED with Retry-After past the limit', async () => {
    const seen: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await app.request('GET', '/v1/deals', { key: org.api_key });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('5');
      seen.push(Number(res.headers.get('x-ratelimit-remaining')));
    }
    expect(seen).toEqual([4, 3, 2, 1, 0]);
    const limited = await app.request('GET', '/v1/deals', { key: org.api_key });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('RATE_LIMIT_EXCEEDED');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(limited.body.detail).toBe(`Rate limit exceeded. Try again in ${retryAfter} seconds.`);
    const reset = Number(limited.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(Date.now() / 1000);
  });

  it('counts each key and each endpoint class separately', async () => {
    const other = (await app.request('POST', '/v1/keys', { key: org.test_api_key, body: { name: 'second' } })).body.key;
    expect((await app.request('GET', '/v1/deals', { key: other })).headers.get('x-ratelimit-remaining')).toBe('4');
    const writes = [];
    for (let i = 0; i < 4; i++)
      writes.push(
        (await app.request('POST', '/v1/deals', { key: other, body: { business_name: `W${i}`, funding_amount_requested: 1 } })).status,
      );
    expect(writes).toEqual([201, 201, 201, 429]); // the key creation above counted against the creating key
  });

  it('limits auth endpoints by client address', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await app.request('POST', '/auth/login', { body: { email: 'a@b.c', password: 'whatever1' } })).status);
    expect(statuses).toEqual([401, 401, 429]);
  });

  it('puts the headers on unknown routes and auth failures too', async () => {
    const res = await app.request('GET', '/v1/unknown', { unchecked: true });
    expect(res.status).toBe(404);
    expect(res.headers.get('x-ratelimit-limit')).not.toBeNull();
  });
});

describe('HTTPS enforcement in production', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await TestApp.start({ NODE_ENV: 'production', TRUST_PROXY: 'true', LOG_LEVEL: 'error' });
  });
  afterAll(() => app?.close());

  it('rejects plain HTTP and accepts requests forwarded as https by the trusted proxy', async () => {
    const plain = await app.request('GET', '/v1/deals');
    expect(plain.status).toBe(403);
    expect(plain.body.code).toBe('HTTPS_REQUIRED');
    const forwarded = await app.request('GET', '/v1/deals', { headers: { 'X-Forwarded-Proto': 'https' } });
    expect(forwarded.status).toBe(401);
    expect(forwarded.body.code).toBe('AUTH_REQUIRED');
  });

  it('keeps health probes reachable for the load balancer', async () => {
    expect((await app.request('GET', '/health', { unchecked: true })).status).toBe(200);
  });
});
