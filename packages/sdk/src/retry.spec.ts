import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { TestApp } from '../../../apps/api/test/support/harness';
import { Ledgerlens, LedgerlensConnectionError, LedgerlensError, RetryInfo } from './index.js';
import { buildUrl, retryAfterSeconds } from './http.js';

/** Records the waits instead of sleeping. */
function recorder() {
  const sleeps: number[] = [];
  const retries: RetryInfo[] = [];
  return { sleeps, retries, sleep: async (ms: number) => void sleeps.push(ms), onRetry: (info: RetryInfo) => void retries.push(info) };
}

async function failure(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (e: unknown) => e,
  );
}

describe('retries against a rate-limited real server', () => {
  let app: TestApp;
  let apiKey: string;

  beforeAll(async () => {
    // A one-hour window, so the window cannot roll over between the attempts of one test.
    app = await TestApp.start({ RATE_LIMIT_STANDARD: '2', RATE_LIMIT_WINDOW_SECONDS: '3600' });
    apiKey = (await app.newOrg('Limited Org')).api_key;
  });
  afterAll(async () => {
    await app?.close();
  });

  it('waits per Retry-After, reports the waits and gives up after maxRetries with RATE_LIMIT_EXCEEDED', async () => {
    const rec = recorder();
    const client = new Ledgerlens({
      baseUrl: app.url,
      apiKey,
      maxRetries: 3,
      maxRetryDelayMs: Infinity,
      timeout: 0,
      sleep: rec.sleep,
      onRetry: rec.onRetry,
    });
    await client.deals.list();
    await client.deals.stats();
    expect(rec.sleeps).toEqual([]);

    const err = await failure(client.deals.list());
    expect(err).toBeInstanceOf(LedgerlensError);
    const e = err as LedgerlensError;
    expect(e).toMatchObject({ status: 429, code: 'RATE_LIMIT_EXCEEDED' });
    expect(e.retryAfter).toBeGreaterThanOrEqual(1);
    expect(e.retryAfter).toBeLessThanOrEqual(3600);

    expect(rec.sleeps).toHaveLength(3);
    expect(rec.retries.map((r) => [r.attempt, r.reason])).toEqual([
      [1, 'rate_limited'],
      [2, 'rate_limited'],
      [3, 'rate_limited'],
    ]);
    for (const [i, info] of rec.retries.entries()) {
      const retryAfter = (info.error as LedgerlensError).retryAfter!;
      expect(info.delayMs).toBe(rec.sleeps[i]);
      expect(info.delayMs).toBeGreaterThanOrEqual(retryAfter * 1000);
      expect(info.delayMs).toBeLessThan(retryAfter * 1000 + 250);
    }
  });

  it('does not wait when the server asks for longer than maxRetryDelayMs', async () => {
    const rec = recorder();
    const client = new Ledgerlens({ baseUrl: app.url, apiKey, sleep: rec.sleep });
    const err = (await failure(client.deals.list())) as LedgerlensError;
    expect(err.code).toBe('RATE_LIMIT_EXCEEDED');
    if (err.retryAfter! > 120) expect(rec.sleeps).toEqual([]);
  });
});

describe('retries against a failing HTTP server', () => {
  let server: Server;
  let baseUrl: string;
  let handler: (req: IncomingMessage, res: ServerResponse, body: string) => void;
  let hits: { method: string; url: string; idempotencyKey: string | undefined; body: string }[];

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req-${hits.length}`, ...headers });
    res.end(JSON.stringify(body));
  };
  const unavailable = (res: ServerResponse, headers?: Record<string, string>) =>
    json(res, 503, { detail: 'Service unavailable', code: 'SERVICE_UNAVAILABLE', errors: [] }, headers);
  /** Fails `n` times with 503, then answers 200/201 with `ok`. */
  const failTimes =
    (n: number, ok: unknown, okStatus = 200, headers?: Record<string, string>) =>
    (_req: IncomingMessage, res: ServerResponse) =>
      hits.length <= n ? unavailable(res, headers) : json(res, okStatus, ok);

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        hits.push({ method: req.method!, url: req.url!, idempotencyKey: req.headers['idempotency-key'] as string | undefined, body });
        handler(req, res, body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    hits = [];
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const stats = { total_deals: 3 };

  it('retries a GET on 5xx with exponential backoff (1 s, 2 s + jitter) and then succeeds', async () => {
    handler = failTimes(2, stats);
    const rec = recorder();
    const client = new Ledgerlens({ baseUrl, apiKey: 'k', sleep: rec.sleep, onRetry: rec.onRetry });
    const result = await client.deals.stats();
    expect(result).toEqual(stats);
    expect(hits).toHaveLength(3);
    expect(rec.sleeps).toHaveLength(2);
    expect(rec.sleeps[0]).toBeGreaterThanOrEqual(1000);
    expect(rec.sleeps[0]).toBeLessThanOrEqual(1250);
    expect(rec.sleeps[1]).toBeGreaterThanOrEqual(2000);
    expect(rec.sleeps[1]).toBeLessThanOrEqual(2500);
    expect(rec.retries.map((r) => [r.reason, (r.error as LedgerlensError).code])).toEqual([
      ['server_error', 'SERVICE_UNAVAILABLE'],
      ['server_error', 'SERVICE_UNAVAILABLE'],
    ]);
  });

  it('uses 1 s, 2 s, 4 s, 8 s without jitter and gives up after maxRetries', async () => {
    handler = failTimes(100, stats);
    const rec = recorder();
    const client = new Ledgerlens({ baseUrl, apiKey: 'k', sleep: rec.sleep, random: () => 0 });
    const err = (await failure(client.deals.stats())) as LedgerlensError;
    expect(err).toBeInstanceOf(LedgerlensError);
    expect(err).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', requestId: 'req-5' });
    expect(hits).toHaveLength(5);
    expect(rec.sleeps).toEqual([1000, 2000, 4000, 8000]);
  });

  it('honours Retry-After on a 503', async () => {
    handler = failTimes(1, stats, 200, { 'retry-after': '7' });
    const rec = recorder();
    const client = new Ledgerlens({ baseUrl, apiKey: 'k', sleep: rec.sleep, random: () => 0 });
    await client.deals.stats();
    expect(rec.sleeps).toEqual([7000]);
  });

  it('honours X-RateLimit-Reset on a 429 without Retry-After', async () => {
    const reset = Math.floor(Date.now() / 1000) + 30;
    handler = (_req, res) =>
      hits.length === 1
        ? json(
            res,
            429,
            { detail: 'slow down', code: 'RATE_LIMIT_EXCEEDED', errors: [] },
            { 'x-ratelimit-reset': String(reset), 'x-ratelimit-remaining': '0' },
          )
        : json(res, 200, stats);
    const rec = recorder();
    const client = new Ledgerlens({ baseUrl, apiKey: 'k', sleep: rec.sleep, random: () => 0 });
    await client.deals.stats();
    expect(rec.sleeps).toHaveLength(1);
    expect(rec.sleeps[0]).toBeGreaterThan(28_000);
    expect(rec.sleeps[0]).toBeLessThanOrEqual(30_000);
  });

  it('does not retry a POST without an Idempotency-Key on 5xx', async () => {
    handler = failTimes(2, { created: [], errors: [] });
    const rec = recorder();
    const client = new Ledgerlens({ baseUrl, apiKey: 'k', sleep: rec.sleep });
    const err = (await failure(client.deals.createBatch([{ business_name: 'A', funding_amount_requested: 1 }]))) as LedgerlensError;
    expect(err).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(hits).toHaveLength(1);
    expect(rec.sleeps).toEqual([]);

    // an operation that honours Idempotency-Key, with the automatic key turned off
    hits = [];
    await failure(client.POST('/v1/deals', { body: { business_name: 'A', funding_amount_requested: 1 }, idempotencyKey: false }));
    expect(hits).toHaveLength(1);
    expect(hits[0].idempotencyKey).toBeUndefined();
  });

  it('sends a generated Idempotency-Key on every call to an operation that honours one, typed-by-path calls included', async () => {
    handler = failTimes(1, { id: 1 }, 201);
    const rec = recorder();
    const client = new Ledgerlens({ baseUrl, apiKey: 'k', sleep: rec.sleep });
    await client.POST('/v1/deals', { body: { business_name: 'A', funding_amount_requested: 1 } });
    expect(hits).toHaveLength(2);
    expect(hits[0].idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(hits[1].idempotencyKey).toBe(hits[0].idempotencyKey);
    // a second call is a second operation: a new key
    hits = [];
    handler = failTimes(0, { id: 2 }, 201);
    await client.POST('/v1/deals', { body: { business_name: 'B', funding_amount_requested: 1 } });
    expect(hits[0].idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    // your own key wins
    hits = [];
    await client.deals.create({ business_name: 'C', funding_amount_requested: 1 }, { idempotencyKey: 'order-77' });
    expect(hits[0].idempotencyKey).toBe('order-77');
  });

  it('retries deals.create on 5xx with the same generated UUID v4 Idempotency-Key', async () => {
    const deal = { id: 1, business_name: 'A' };
    handler = failTimes(2, deal, 201);
    const rec = recorder();
    const client = new Ledgerlens({ baseUrl, apiKey: 'k', sleep: rec.sleep });
    expect(await client.deals.create({ business_name: 'A', funding_amount_requested: 1 })).toEqual(deal);
    expect(hits).toHaveLength(3);
    const keys = new Set(hits.map((h) => h.idempotencyKey));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(JSON.parse(hits[2].body)).toEqual({ business_name: 'A', funding_amount_requested: 1 });
    expect(rec.sleeps).toHaveLength(2);

    hits = [];
    handler = failTimes(1, deal, 201);
    await client.deals.create({ business_name: 'A', funding_amount_requested: 1 }, { idempotencyKey: 'mine' });
    expect(hits.map((h) => h.idempotencyKey)).toEqual(['mine', 'mine']);
  });

  it('retries a POST on 429 even without an Idempotency-Key (the request was not processed)', async () => {
    handler = (_req, res) =>
      hits.length === 1
        ? json(res, 429, { detail: 'slow', code: 'RATE_LIMIT_EXCEEDED', errors: [] }, { 'retry-after': '2' })
        : json(res, 200, { created: [], errors: [] });
    const rec = recorder();
    const client = new Ledgerlens({ baseUrl, apiKey: 'k', sleep: rec.sleep, random: () => 0 });
    await client.deals.createBatch([{ business_name: 'A', funding_amount_requested: 1 }]);
    expect(hits).toHaveLength(2);
    expect(rec.sleeps).toEqual([2000]);
  });

  it('does not retry a 5xx outside 500, 502, 503 and 504 (ky retry.statusCodes)', async () => {
    handler = (_req, res) => json(res, 501, { detail: 'no', code: 'NOT_IMPLEMENTED', errors: [] });
    const rec = recorder();
    const client = new Ledgerlens({ baseUrl, apiKey: 'k', sleep: rec.sleep });
    expect(await failure(client.deals.stats())).toMatchObject({ status: 501 });
    expect(hits).toHaveLength(1);
    expect(rec.sleeps).toEqual([]);
  });

  it('does not retry other 4xx', async () => {
    handler = (_req, res) => json(res, 409, { detail: 'busy', code: 'CONFLICT', errors: [] });
    const rec = recorder();
    const client = new Ledgerlens({ baseUrl, apiKey: 'k', sleep: rec.sleep });
    expect(await failure(client.deals.get(1))).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(hits).toHaveLength(1);
  });

  it('reports a non-envelope error body as HTTP_<status>', async () => {
    handler = (_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<h1>Bad gateway</h1>');
    };
    const client = new Ledgerlens({ baseUrl, apiKey: 'k', maxRetries: 0 });
    const err = (await failure(client.deals.get(1))) as LedgerlensError;
    expect(err).toMatchObject({ status: 502, code: 'HTTP_502', body: '<h1>Bad gateway</h1>', errors: [] });
  });

  it('sends credentials, User-Agent and encoded path/query parameters', async () => {
    let seen: IncomingMessage | undefined;
    handler = (req, res) => {
      seen = req;
      json(res, 200, { data: [], meta: { page: 1, per_page: 25, total: 0, total_pages: 0 } });
    };
    await new Ledgerlens({ baseUrl: `${baseUrl}/`, apiKey: 'key-1' }).deals.list({ q: 'a&b c', status: 'new' });
    expect(seen!.url).toBe('/v1/deals?q=a%26b+c&status=new');
    expect(seen!.headers['x-api-key']).toBe('key-1');
    expect(seen!.headers['user-agent']).toMatch(/^ledgerlens-sdk-js\//);
    await new Ledgerlens({ baseUrl, accessToken: 'tok', userAgent: 'my-app/1.0' }).deals.get(5);
    expect(seen!.url).toBe('/v1/deals/5');
    expect(seen!.headers.authorization).toBe('Bearer tok');
    expect(seen!.headers['user-agent']).toBe('my-app/1.0');
  });

  it('renews an expiring client-credentials token before the request that needs it', async () => {
    let issued = 0;
    handler = (req, res) => {
      if (req.url === '/v1/oauth/token') return json(res, 200, { access_token: `tok-${++issued}`, token_type: 'bearer', expires_in: 3600 });
      json(res, 200, { auth: req.headers.authorization });
    };
    const client = await Ledgerlens.fromClientCredentials({ baseUrl, clientId: 'c', clientSecret: 's', refreshMarginMs: 3_600_000 + 1000 });
    const first = (await client.request<{ auth: string }>('GET', '/v1/deals/stats')).data;
    const [a, b] = await Promise.all([client.request<{ auth: string }>('GET', '/x'), client.request<{ auth: string }>('GET', '/y')]);
    expect(first.auth).toBe('Bearer tok-2');
    expect(a.data.auth).toBe(b.data.auth);
    expect(issued).toBe(3);
    expect(JSON.parse(hits[0].body)).toEqual({ grant_type: 'client_credentials', client_id: 'c', client_secret: 's' });
  });

  it('times out a silent server with LedgerlensConnectionError', async () => {
    handler = () => undefined; // never answers
    const client = new Ledgerlens({ baseUrl, apiKey: 'k', maxRetries: 0, timeoutMs: 100 });
    const err = await failure(client.deals.stats());
    expect(err).toBeInstanceOf(LedgerlensConnectionError);
    expect((err as LedgerlensConnectionError).timedOut).toBe(true);
  });
});

describe('network errors', () => {
  let closedUrl: string;
  let resetUrl: string;
  let reset: Server;
  beforeAll(async () => {
    const s = createServer();
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    closedUrl = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
    await new Promise((resolve) => s.close(resolve));
    // accepts the connection, then drops it without an answer
    reset = createServer((req) => req.socket.destroy());
    await new Promise<void>((resolve) => reset.listen(0, '127.0.0.1', resolve));
    resetUrl = `http://127.0.0.1:${(reset.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => reset.close(resolve));
  });

  it('retries an idempotent request after a dropped connection with backoff, then throws LedgerlensConnectionError', async () => {
    const rec = recorder();
    const client = new Ledgerlens({
      baseUrl: resetUrl,
      apiKey: 'k',
      maxRetries: 2,
      sleep: rec.sleep,
      onRetry: rec.onRetry,
      random: () => 0,
    });
    const err = await failure(client.deals.list());
    expect(err).toBeInstanceOf(LedgerlensConnectionError);
    expect(err).not.toBeInstanceOf(LedgerlensError);
    expect(err).toMatchObject({ refused: false, timedOut: false });
    expect(rec.retries.map((r) => r.reason)).toEqual(['network_error', 'network_error']);
    expect(rec.sleeps).toEqual([1000, 2000]);
  });

  it('does not retry a POST without an Idempotency-Key; retries one with a key', async () => {
    const rec = recorder();
    const client = new Ledgerlens({ baseUrl: resetUrl, apiKey: 'k', sleep: rec.sleep });
    expect(await failure(client.keys.rotate(1))).toBeInstanceOf(LedgerlensConnectionError);
    expect(rec.sleeps).toEqual([]);
    expect(await failure(client.deals.create({ business_name: 'A', funding_amount_requested: 1 }))).toBeInstanceOf(
      LedgerlensConnectionError,
    );
    expect(rec.sleeps).toHaveLength(4);
    // refused: one retry at most
    rec.sleeps.length = 0;
    const refused = new Ledgerlens({ baseUrl: closedUrl, apiKey: 'k', sleep: rec.sleep });
    expect(await failure(refused.deals.create({ business_name: 'A', funding_amount_requested: 1 }))).toMatchObject({ refused: true });
    expect(rec.sleeps).toHaveLength(1);
  });

  it('stops waiting when the signal aborts', async () => {
    const controller = new AbortController();
    const client = new Ledgerlens({
      baseUrl: closedUrl,
      apiKey: 'k',
      sleep: () => {
        controller.abort(new Error('cancelled'));
        return new Promise(() => undefined);
      },
    });
    await expect(client.deals.list({}, { signal: controller.signal })).rejects.toThrow('cancelled');
  });
});

describe('helpers', () => {
  it('parses Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterSeconds('12', now)).toBe(12);
    expect(retryAfterSeconds('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30);
    expect(retryAfterSeconds(null, now)).toBeNull();
    expect(retryAfterSeconds('soon', now)).toBeNull();
  });

  it('builds URLs from path templates', () => {
    expect(buildUrl('http://h/api/', '/v1/deals/{deal_id}', { deal_id: 'a/b' }, { page: 2, x: undefined, s: ['a', 'b'] })).toBe(
      'http://h/api/v1/deals/a%2Fb?page=2&s=a&s=b',
    );
    expect(() => buildUrl('http://h', '/v1/deals/{deal_id}', {})).toThrow('Missing path parameter "deal_id"');
  });

  it('rejects a client without baseUrl or with a bad maxRetries', () => {
    expect(() => new Ledgerlens({} as never)).toThrow('baseUrl is required');
    expect(() => new Ledgerlens({ baseUrl: 'http://h', maxRetries: -1 })).toThrow('maxRetries');
  });
});
