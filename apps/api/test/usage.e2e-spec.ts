import { TestApp } from './support/harness';
import { realDatabaseUrl, realRedisUrl } from './support/services';
import { UsageMeter, usagePeriod } from '../src/platform/usage/usage-meter';

const PDF = new TextEncoder().encode('%PDF-1.4\n% quota test, not a statement\n%%EOF\n');

function pdfForm(count: number, field = 'file'): FormData {
  const fd = new FormData();
  for (let i = 0; i < count; i++) fd.append(field, new Blob([PDF], { type: 'application/pdf' }), `q${i}.pdf`);
  return fd;
}

describe('usage and monthly quotas', () => {
  let app: TestApp;
  let org: Awaited<ReturnType<TestApp['newOrg']>>;

  beforeAll(async () => {
    app = await TestApp.start({ QUOTA_MONTHLY_REQUESTS: '6', QUOTA_MONTHLY_DOCUMENTS: '2', QUOTA_PLAN: 'starter' });
    org = await app.newOrg('Metered');
  });
  afterAll(() => app?.close());

  it('counts live requests only, then answers 429 QUOTA_EXCEEDED with Retry-After; usage stays readable', async () => {
    // Test keys are free: no effect on the live quota.
    for (let i = 0; i < 8; i++) expect((await app.request('GET', '/v1/deals', { key: org.test_api_key })).status).toBe(200);
    const fresh = await app.request('GET', '/v1/usage/me', { key: org.api_key });
    expect(fresh.status).toBe(200);
    const period = usagePeriod(new Date());
    expect(fresh.body).toEqual({
      organization_id: org.organization.id,
      plan: 'starter',
      period: period.key,
      period_start: period.start.toISOString(),
      period_end: period.end.toISOString(),
      requests: { used: 0, limit: 6, remaining: 6, percent_used: 0 },
      documents: { used: 0, limit: 2, remaining: 2, percent_used: 0 },
      quota_exceeded: false,
    });

    // One deal (a write) and three reads: 4 of 6.
    const deal = await app.request('POST', '/v1/deals', {
      key: org.api_key,
      body: { business_name: 'Quota Co', funding_amount_requested: 1 },
    });
    expect(deal.status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await app.request('GET', `/v1/deals/${deal.body.id}`, { key: org.api_key })).status).toBe(200);
    const mid = (await app.request('GET', '/api/v1/usage/me', { key: org.api_key })).body;
    expect(mid.requests).toEqual({ used: 4, limit: 6, remaining: 2, percent_used: 0.6667 });

    // Two document uploads (requests 5 and 6) use up both quotas; the third is refused and not stored.
    const first = await app.request('POST', `/v1/deals/${deal.body.id}/documents`, { key: org.api_key, form: pdfForm(1) });
    expect(first.status).toBe(201);
    const bulk = await app.request('POST', `/v1/deals/${deal.body.id}/documents/bulk`, { key: org.api_key, form: pdfForm(2, 'files') });
    // request 6 is allowed, but two more documents would make 3 of 2: nothing is created.
    expect(bulk.status).toBe(429);
    expect(bulk.body.code).toBe('QUOTA_EXCEEDED');
    expect(bulk.body.detail).toMatch(/Monthly document quota exhausted \(2 documents in \d{4}-\d{2}\)/);
    expect(Number(bulk.headers.get('retry-after'))).toBeGreaterThan(0);

    const limited = await app.request('GET', '/v1/deals', { key: org.api_key });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('QUOTA_EXCEEDED');
    expect(limited.body.detail).toMatch(/Monthly request quota exhausted \(6 requests in/);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil((period.end.getTime() - Date.now()) / 1000) + 1);

    // The test key still works, and the usage endpoint answers (it is not metered).
    expect((await app.request('GET', '/v1/deals', { key: org.test_api_key })).status).toBe(200);
    const after = await app.request('GET', '/v1/usage/me', { key: org.test_api_key });
    expect(after.status).toBe(200);
    expect(after.body.requests).toEqual({ used: 6, limit: 6, remaining: 0, percent_used: 1 });
    expect(after.body.documents).toEqual({ used: 1, limit: 2, remaining: 1, percent_used: 0.5 });
    expect(after.body.quota_exceeded).toBe(true);
    const docs = await app.request('GET', `/v1/deals/${deal.body.id}/documents`, { key: org.test_api_key });
    expect(docs.status).toBe(404); // the live deal is invisible to the test key
  });

  it('keeps each organization to its own counters', async () => {
    const other = await app.newOrg('Unmetered neighbour');
    expect((await app.request('GET', '/v1/deals', { key: other.api_key })).status).toBe(200);
    expect((await app.request('GET', '/v1/usage/me', { key: other.api_key })).body.requests.used).toBe(1);
  });

  it('needs a credential', async () => {
    const res = await app.request('GET', '/v1/usage/me');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('AUTH_REQUIRED');
  });
});

describe('document quota for test keys', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await TestApp.start({ QUOTA_MONTHLY_DOCUMENTS: '1' });
  });
  afterAll(() => app?.close());

  it('does not count sandbox documents', async () => {
    const org = await app.newOrg('Sandbox');
    const deal = await app.request('POST', '/v1/deals', {
      key: org.test_api_key,
      body: { business_name: 'Sandbox', funding_amount_requested: 1 },
    });
    const bulk = await app.request('POST', `/v1/deals/${deal.body.id}/documents/bulk`, {
      key: org.test_api_key,
      form: pdfForm(2, 'files'),
    });
    expect(bulk.status).toBe(200);
    expect(bulk.body.total_uploaded).toBe(2);
    expect((await app.request('GET', '/v1/usage/me', { key: org.api_key })).body.documents.used).toBe(0);
  });
});

/** Two api replicas on one PostgreSQL: counters add up, with Redis and (batched) in the database. */
const real = realDatabaseUrl() ? describe : describe.skip;

real.each([['the database (no Redis)', { REDIS_URL: '' }], ...(realRedisUrl() ? [['Redis', {}] as [string, Record<string, string>]] : [])])(
  'usage counters across two api replicas, kept in %s',
  (_name, env) => {
    let a: TestApp;
    let b: TestApp;

    beforeAll(async () => {
      a = await TestApp.start({ ...env, QUOTA_MONTHLY_REQUESTS: '10', USAGE_FLUSH_MS: '60000' });
      b = await a.sibling();
    });
    afterAll(async () => {
      await b?.close();
      await a?.close();
    });

    it('adds up requests served by either replica and enforces one limit', async () => {
      const org = await a.newOrg('Replicated');
      for (let i = 0; i < 4; i++) {
        expect((await a.request('GET', '/v1/deals', { key: org.api_key })).status).toBe(200);
        expect((await b.request('GET', '/v1/deals', { key: org.api_key })).status).toBe(200);
      }
      // Batched counts (database store) reach the shared row on the next flush; Redis counts at once.
      await b.get(UsageMeter).flush();
      const seenFromA = await a.request('GET', '/v1/usage/me', { key: org.api_key });
      expect(seenFromA.body.requests.used).toBe(8);
      await a.get(UsageMeter).flush();
      expect((await b.request('GET', '/v1/usage/me', { key: org.api_key })).body.requests.used).toBe(8);
      // b learnt the shared total (8) when it read the usage: two more are allowed between both, then 429.
      const statuses: number[] = [];
      for (const app of [b, b, b]) statuses.push((await app.request('GET', '/v1/deals', { key: org.api_key, unchecked: true })).status);
      expect(statuses).toEqual([200, 200, 429]);
    });
  },
);
