import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { Ledgerlens, LedgerlensConnectionError, RateLimitError, RetryInfo } from './index.js';

/** `signal` and `timeout` on every call, fast failure of refused connections, waits within the caller's budget. */
describe('signal, timeout and the call budget', () => {
  let server: Server;
  let baseUrl: string;
  let closedUrl: string;
  let handler: (req: IncomingMessage, res: ServerResponse) => void;
  let hits: string[];
  let arrived: (() => void) | null;
  const sleeps: number[] = [];
  const retries: RetryInfo[] = [];
  const sleep = async (ms: number) => void sleeps.push(ms);
  const onRetry = (info: RetryInfo) => void retries.push(info);

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      req.resume();
      req.on('end', () => {
        arrived?.();
        handler(req, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
  });
  beforeEach(() => {
    hits = [];
    arrived = null;
    sleeps.length = 0;
    retries.length = 0;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** Resolves when the server has received the next request. */
  const nextRequest = () => new Promise<void>((resolve) => (arrived = resolve));

  it('fails a 429 at once, with retryAfter, when the wait would exceed the call timeout', async () => {
    handler = (_req, res) =>
      json(
        res,
        429,
        { detail: 'Rate limit exceeded. Try again in 49 seconds.', code: 'RATE_LIMIT_EXCEEDED', errors: [] },
        { 'retry-after': '49' },
      );
    const client = new Ledgerlens({ baseUrl, apiKey: 'k', sleep, onRetry });
    const err = await client.deals.stats({ timeout: 10_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err).toMatchObject({ status: 429, code: 'RATE_LIMIT_EXCEEDED', retryAfter: 49 });
    expect(hits).toHaveLength(1);
    expect(sleeps).toEqual([]);

    // the client-wide default budget works the same way; without a budget the wait is taken
    const budgeted = new Ledgerlens({ baseUrl, apiKey: 'k', sleep, timeout: 5000 });
    expect(await budgeted.deals.stats().catch((e: unknown) => e)).toMatchObject({ retryAfter: 49 });
    expect(sleeps).toEqual([]);
    const patient = new Ledgerlens({ baseUrl, apiKey: 'k', sleep, random: () => 0, maxRetries: 1 });
    await patient.deals.stats().catch(() => undefined);
    expect(sleeps).toEqual([49_000]);
  });

  it('login takes a signal and a timeout', async () => {
    handler = (_req, res) => json(res, 429, { detail: 'slow down', code: 'RATE_LIMIT_EXCEEDED', errors: [] }, { 'retry-after': '49' });
    const limited = await Ledgerlens.login({ baseUrl, email: 'a@b.test', password: 'pw', sleep, timeout: 2000 }).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).retryAfter).toBe(49);
    expect(sleeps).toEqual([]);

    handler = () => undefined; // never answers
    const controller = new AbortController();
    const arrivedAtServer = nextRequest();
    const login = Ledgerlens.login({ baseUrl, email: 'a@b.test', password: 'pw', signal: controller.signal });
    await arrivedAtServer;
    controller.abort(new Error('user gave up'));
    await expect(login).rejects.toThrow('user gave up');

    const tokens = Ledgerlens.fromClientCredentials({ baseUrl, clientId: 'c', clientSecret: 's', timeout: 50 });
    await expect(tokens).rejects.toMatchObject({ name: 'LedgerlensConnectionError', timedOut: true });
  });

  it('every resource call takes signal and timeout', async () => {
    handler = () => undefined; // never answers
    const client = new Ledgerlens({ baseUrl, apiKey: 'k', sleep, onRetry });
    const err = await client.deals.get(1, { timeout: 50 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LedgerlensConnectionError);
    expect((err as LedgerlensConnectionError).timedOut).toBe(true);
    // the budget is spent: no retry wait after the timed-out attempt
    expect(sleeps).toEqual([]);

    const controller = new AbortController();
    const arrivedAtServer = nextRequest();
    const pending = client.webhooks.getConfig({ signal: controller.signal });
    await arrivedAtServer;
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
  });

  it('timeoutMs: Infinity (or 0) means no per-attempt timeout', async () => {
    handler = (_req, res) => json(res, 200, { total_deals: 1 });
    for (const timeoutMs of [Infinity, 0]) {
      expect(await new Ledgerlens({ baseUrl, apiKey: 'k', timeoutMs }).deals.stats()).toEqual({ total_deals: 1 });
    }
  });

  it('a refused connection fails fast: one short retry, whatever maxRetries', async () => {
    const client = new Ledgerlens({ baseUrl: closedUrl, apiKey: 'k', maxRetries: 4, sleep, onRetry });
    const err = await client.deals.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LedgerlensConnectionError);
    expect((err as LedgerlensConnectionError).refused).toBe(true);
    expect(retries.map((r) => r.reason)).toEqual(['connection_refused']);
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeLessThan(500);
  });

  it('a refused connection, with real waits, surfaces in well under a second', async () => {
    const client = new Ledgerlens({ baseUrl: closedUrl, apiKey: 'k' });
    const started = Date.now();
    await expect(client.deals.list()).rejects.toBeInstanceOf(LedgerlensConnectionError);
    expect(Date.now() - started).toBeLessThan(1500);
  });
});
