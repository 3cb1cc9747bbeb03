import { Clock } from '../src/platform/clock/clock';
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

describe('the endpoint class comes from the matched route, however the URL spells it', () => {
  let app: TestApp;
  let org: Awaited<ReturnType<TestApp['newOrg']>>;

  beforeAll(async () => {
    // a fresh process: the first request of each route is a percent-encoded spelling of it
    app = await TestApp.start({
      RATE_LIMIT_WINDOW_SECONDS: '3600',
      RATE_LIMIT_STANDARD: '50',
      RATE_LIMIT_WRITE: '40',
      RATE_LIMIT_UPLOAD: '3',
      RATE_LIMIT_AUTH: '2',
      RATE_LIMIT_SHARE_VIEW: '4',
    });
    org = await app.newOrg('Spelled');
  });
  afterAll(() => app?.close());

  const limitOf = (res: { headers: Headers }) => res.headers.get('x-ratelimit-limit');

  it('login: /v1/auth/%6cogin is an auth request, and login stays at the auth limit afterwards', async () => {
    const login = { body: { email: 'a@b.c', password: 'whatever1' }, unchecked: true };
    const spelled = await app.request('POST', '/v1/auth/%6cogin', login);
    expect([spelled.status, limitOf(spelled)]).toEqual([401, '2']);
    const plain = await app.request('POST', '/v1/auth/login', login);
    expect([plain.status, limitOf(plain)]).toEqual([401, '2']);
    expect((await app.request('POST', '/v1/auth/login', login)).status).toBe(429);
  });

  it('uploads: /v1/deals/{id}/%64ocuments counts as an upload', async () => {
    const deal = (
      await app.request('POST', '/v1/deals', { key: org.api_key, body: { business_name: 'Spelled LLC', funding_amount_requested: 1 } })
    ).body;
    const spelled = await app.request('POST', `/v1/deals/${deal.id}/%64ocuments`, { key: org.api_key, unchecked: true });
    expect(limitOf(spelled)).toBe('3');
    const plain = await app.request('POST', `/v1/deals/${deal.id}/documents`, { key: org.api_key, unchecked: true });
    expect([limitOf(plain), plain.headers.get('x-ratelimit-remaining')]).toEqual(['3', '1']);
  });

  it('share views: every spelling of the route and of the token draws on the one budget of the link', async () => {
    const deal = (
      await app.request('POST', '/v1/deals', { key: org.api_key, body: { business_name: 'Shared LLC', funding_amount_requested: 1 } })
    ).body;
    const { token } = (await app.request('POST', `/v1/deals/${deal.id}/share`, { key: org.api_key, body: {} })).body;
    const encoded = (i: number) => token.slice(0, i) + '%' + token.charCodeAt(i).toString(16) + token.slice(i + 1);
    const paths = [`/v1/%73hare/${token}`, `/v1/share/${encoded(0)}`, `/v1/share/${encoded(5)}`, `/share/${encoded(7)}`];
    const seen = [];
    for (const path of paths) {
      const res = await app.request('GET', path, { unchecked: true });
      seen.push([res.status, limitOf(res), res.headers.get('x-ratelimit-remaining')]);
    }
    expect(seen).toEqual([
      [200, '4', '3'],
      [200, '4', '2'],
      [200, '4', '1'],
      [200, '4', '0'],
    ]);
    expect((await app.request('GET', `/v1/share/${token}`)).status).toBe(429);
    expect((await app.request('GET', `/v1/share/${encoded(9)}`, { unchecked: true })).status).toBe(429);
    expect(
      (
        await app.request('POST', `/share/${encoded(4)}`, {
          rawBody: 'password=x',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          unchecked: true,
        })
      ).status,
    ).toBe(429);
  });
});

describe('share link passwords: a lockout per link with backoff', () => {
  let app: TestApp;
  let org: Awaited<ReturnType<TestApp['newOrg']>>;
  let dealId: number;
  let now: number;

  beforeAll(async () => {
    // the per-token request limit out of the way: this is about the lockout
    app = await TestApp.start({ RATE_LIMIT_WINDOW_SECONDS: '3600', RATE_LIMIT_SHARE_VIEW: '100000', RATE_LIMIT_WRITE: '100000' });
    org = await app.newOrg('Guarded');
    dealId = (
      await app.request('POST', '/v1/deals', { key: org.api_key, body: { business_name: 'Guarded LLC', funding_amount_requested: 1 } })
    ).body.id;
    now = Date.parse('2026-03-02T10:00:00Z');
    jest.spyOn(app.get(Clock), 'now').mockImplementation(() => new Date(now));
  });
  afterAll(() => app?.close());

  const newLink = async () =>
    (await app.request('POST', `/v1/deals/${dealId}/share`, { key: org.api_key, body: { password: 'harbor-2026' } })).body.token as string;
  /** The JSON view, the token spelled with its i-th character percent-encoded (every spelling is the same link). */
  const view = (token: string, password: string, i = -1) => {
    const spelled = i < 0 ? token : token.slice(0, i) + '%' + token.charCodeAt(i).toString(16) + token.slice(i + 1);
    return app.request('GET', `/v1/share/${spelled}`, { headers: { 'X-Share-Password': password }, unchecked: i >= 0 });
  };
  const form = (token: string, password: string) =>
    app.request('POST', `/share/${token}`, {
      rawBody: new URLSearchParams({ password }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
  const outcome = (res: { status: number; headers: Headers; body: any }) =>
    res.status === 429 ? [429, res.body.code, Number(res.headers.get('retry-after'))] : [res.status];

  it('five wrong passwords (JSON or the HTML form, any spelling of the token), then 429 with a doubling Retry-After', async () => {
    const token = await newLink();
    const wrong = [];
    for (let i = 0; i < 4; i++) wrong.push(outcome(await view(token, `guess-${i}`, i * 3)));
    wrong.push(outcome(await form(token, 'guess-4')));
    expect(wrong).toEqual([[401], [401], [401], [401], [401]]);
    // locked: the right password is not even checked
    expect(outcome(await view(token, 'harbor-2026'))).toEqual([429, 'RATE_LIMIT_EXCEEDED', 30]);
    expect(outcome(await form(token, 'harbor-2026'))).toEqual([429, 'RATE_LIMIT_EXCEEDED', 30]);
    now += 30_000;
    expect(outcome(await view(token, 'guess-5'))).toEqual([401]);
    expect(outcome(await view(token, 'harbor-2026', 6))).toEqual([429, 'RATE_LIMIT_EXCEEDED', 60]);
    now += 60_000;
    expect(outcome(await form(token, 'guess-6'))).toEqual([401]);
    expect(outcome(await view(token, 'guess-7'))).toEqual([429, 'RATE_LIMIT_EXCEEDED', 120]);
    now += 120_000;
    // the right password opens it and clears the count: wrong ones are free again
    expect(outcome(await view(token, 'harbor-2026'))).toEqual([200]);
    for (let i = 0; i < 4; i++) expect(outcome(await view(token, `again-${i}`))).toEqual([401]);
    expect(outcome(await view(token, 'harbor-2026'))).toEqual([200]);
  });

  it('concurrent guesses each take an attempt: five are checked, the rest are 429; other links are not affected', async () => {
    const token = await newLink();
    const other = await newLink();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => view(token, `burst-${i}`, i % 10)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(5).fill(401), ...Array(15).fill(429)]);
    expect(outcome(await view(other, 'harbor-2026'))).toEqual([200]);
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
