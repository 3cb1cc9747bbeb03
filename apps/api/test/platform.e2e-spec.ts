import { TestApp } from './support/harness';

describe('platform: errors, auth errors, probes', () => {
  let app: TestApp;
  let org: Awaited<ReturnType<TestApp['newOrg']>>;

  beforeAll(async () => {
    app = await TestApp.start();
    org = await app.newOrg('Platform');
  });
  afterAll(() => app?.close());

  it('answers /health and /ready without a credential', async () => {
    expect((await app.request('GET', '/health', { unchecked: true })).body).toEqual({ status: 'ok' });
    const ready = await app.request('GET', '/ready', { unchecked: true });
    expect(ready.status).toBe(200);
    expect(ready.body.checks.database).toBe('ok');
  });

  it('returns 404 NOT_FOUND in the envelope for an unknown route', async () => {
    const res = await app.request('GET', '/v1/nope', { key: org.api_key, unchecked: true });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Not found', code: 'NOT_FOUND', errors: [] });
  });

  it('rejects invalid JSON with 400 VALIDATION_ERROR', async () => {
    const res = await app.request('POST', '/v1/deals', {
      key: org.api_key,
      rawBody: '{"business_name": ',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors).toEqual([]);
  });

  it('distinguishes AUTH_REQUIRED from INVALID_API_KEY', async () => {
    const none = await app.request('GET', '/v1/deals');
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('AUTH_REQUIRED');
    const bad = await app.request('GET', '/v1/deals', { key: 'll_live_notarealkey' });
    expect(bad.status).toBe(401);
    expect(bad.body.code).toBe('INVALID_API_KEY');
    const bearer = await app.request('GET', '/v1/deals', { headers: { Authorization: 'Bearer garbage' } });
    expect(bearer.body.code).toBe('INVALID_API_KEY');
  });

  it('accepts the key as X-API-Key and as Authorization: Bearer', async () => {
    expect((await app.request('GET', '/v1/deals', { key: org.api_key })).status).toBe(200);
    expect((await app.request('GET', '/v1/deals', { headers: { Authorization: `Bearer ${org.api_key}` } })).status).toBe(200);
  });

  it('does not accept ?token= outside the event stream paths', async () => {
    const res = await app.request('GET', `/v1/deals?token=${org.api_key}`);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('AUTH_REQUIRED');
  });

  it('echoes a request id, or makes one', async () => {
    const given = await app.request('GET', '/health', { unchecked: true, headers: { 'X-Request-Id': 'abc-123' } });
    expect(given.headers.get('x-request-id')).toBe('abc-123');
    const made = await app.request('GET', '/health', { unchecked: true });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('serves the API reference at /docs', async () => {
    const res = await fetch(`${app.url}/docs/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toContain('/v1/deals');
  });
});

describe('platform: graceful stop', () => {
  it('announces the stop on /ready (503) while still serving with Connection: close, then refuses new connections', async () => {
    const app = await TestApp.start({ SHUTDOWN_DELAY_SECONDS: '1' });
    try {
      expect((await fetch(`${app.url}/ready`)).status).toBe(200);
      const closing = app.running.close();
      const ready = await fetch(`${app.url}/ready`);
      expect({ status: ready.status, code: ((await ready.json()) as { code: string }).code }).toEqual({
        status: 503,
        code: 'SERVICE_UNAVAILABLE',
      });
      const health = await fetch(`${app.url}/health`);
      expect({ status: health.status, connection: health.headers.get('connection') }).toEqual({ status: 200, connection: 'close' });
      await closing;
      await expect(fetch(`${app.url}/health`)).rejects.toThrow();
    } finally {
      await app.close();
    }
  });
});
