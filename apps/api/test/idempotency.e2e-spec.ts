import { TestApp } from './support/harness';
import { Database } from '../src/platform/database/database.service';
import { Deal } from '../src/modules/pipeline/entities/deal.entities';
import { IdempotencyRecord } from '../src/platform/idempotency/idempotency.entity';

const PDF = new TextEncoder().encode('%PDF-1.4\n% idempotency test, not a statement\n%%EOF\n');
const OTHER_PDF = new TextEncoder().encode('%PDF-1.4\n% another file\n%%EOF\n');

describe('Idempotency-Key on POST /v1/deals and uploads', () => {
  let app: TestApp;
  let org: Awaited<ReturnType<TestApp['newOrg']>>;
  const body = { business_name: 'Idem Co', funding_amount_requested: 1234 };
  const countDeals = () => app.get(Database).forScope({ organizationId: org.organization.id, livemode: true }).count(Deal, {});

  beforeAll(async () => {
    app = await TestApp.start();
    org = await app.newOrg('Idem');
  });
  afterAll(() => app?.close());

  it('replays the stored response with 200 and Idempotent-Replayed: true, without a second deal', async () => {
    const headers = { 'Idempotency-Key': 'key-replay-1' };
    const first = await app.request('POST', '/v1/deals', { key: org.api_key, body, headers });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const before = await countDeals();
    const again = await app.request('POST', '/v1/deals', { key: org.api_key, body, headers });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    // the same request with its JSON members in another order is the same request
    const reordered = { funding_amount_requested: body.funding_amount_requested, business_name: body.business_name };
    const third = await app.request('POST', '/v1/deals', {
      key: org.api_key,
      rawBody: JSON.stringify(reordered),
      headers: { ...headers, 'Content-Type': 'application/json' },
    });
    expect(third.status).toBe(200);
    expect(third.body).toEqual(first.body);
    expect(await countDeals()).toBe(before);
  });

  it('refuses the key reused with a different body: 422 IDEMPOTENCY_KEY_REUSED naming the key, nothing done', async () => {
    const headers = { 'Idempotency-Key': 'key-reused-body' };
    const first = await app.request('POST', '/v1/deals', { key: org.api_key, body, headers });
    expect(first.status).toBe(201);
    const before = await countDeals();
    const other = await app.request('POST', '/v1/deals', { key: org.api_key, body: { ...body, business_name: 'Different' }, headers });
    expect(other.status).toBe(422);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(other.body).toEqual({ code: 'IDEMPOTENCY_KEY_REUSED', detail: expect.stringContaining('"key-reused-body"'), errors: [] });
    expect(await countDeals()).toBe(before);
    // the original is kept: an identical retry still gets it
    const retry = await app.request('POST', '/v1/deals', { key: org.api_key, body, headers });
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
  });

  it('refuses the key reused on another route or with another query', async () => {
    const headers = { 'Idempotency-Key': 'key-reused-route' };
    const deal = await app.request('POST', '/v1/deals', { key: org.api_key, body, headers });
    expect(deal.status).toBe(201);
    const upload = new FormData();
    upload.append('file', new Blob([PDF], { type: 'application/pdf' }), 'a.pdf');
    const elsewhere = await app.request('POST', `/v1/deals/${deal.body.id}/documents`, { key: org.api_key, form: upload, headers });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const queried = await app.request('POST', '/v1/deals?source=retry', { key: org.api_key, body, headers });
    expect(queried.status).toBe(422);
    expect(queried.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('fingerprints a multipart upload by its parts: the same file replays, another file is 422', async () => {
    const deal = (await app.request('POST', '/v1/deals', { key: org.api_key, body })).body as { id: number };
    const headers = { 'Idempotency-Key': 'key-upload' };
    const form = (bytes: Uint8Array, name = 'statement.pdf') => {
      const fd = new FormData();
      fd.append('file', new Blob([bytes], { type: 'application/pdf' }), name);
      return fd;
    };
    const path = `/v1/deals/${deal.id}/documents`;
    const first = await app.request('POST', path, { key: org.api_key, form: form(PDF), headers });
    expect(first.status).toBe(201);
    // a new FormData draws a new boundary: still the same request
    const again = await app.request('POST', path, { key: org.api_key, form: form(PDF), headers });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const otherFile = await app.request('POST', path, { key: org.api_key, form: form(OTHER_PDF), headers });
    expect(otherFile.status).toBe(422);
    expect(otherFile.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const otherName = await app.request('POST', path, { key: org.api_key, form: form(PDF, 'renamed.pdf'), headers });
    expect(otherName.status).toBe(422);
    const documents = await app.request('GET', `${path}?per_page=100`, { key: org.api_key });
    expect(documents.body.meta.total).toBe(1);
    await app.settle();
  });

  it('executes exactly one of several concurrent requests with the same key', async () => {
    const headers = { 'Idempotency-Key': 'key-concurrent' };
    const before = await countDeals();
    const results = await Promise.all(
      Array.from({ length: 6 }, () => app.request('POST', '/v1/deals', { key: org.api_key, body, headers })),
    );
    expect(await countDeals()).toBe(before + 1);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.every((s) => s === 201 || s === 200 || s === 409)).toBe(true);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.code).toBe('IDEMPOTENCY_IN_PROGRESS');
    const ids = new Set(results.filter((r) => r.status !== 409).map((r) => r.body.id));
    expect(ids.size).toBe(1);
  });

  it('does not store a failed original: a corrected retry with the same key runs', async () => {
    const headers = { 'Idempotency-Key': 'key-after-422' };
    const bad = await app.request('POST', '/v1/deals', { key: org.api_key, body: { business_name: 'x' }, headers });
    expect(bad.status).toBe(422);
    const good = await app.request('POST', '/v1/deals', { key: org.api_key, body, headers });
    expect(good.status).toBe(201);
  });

  it('scopes keys per credential and mode, and treats keys older than 24 h as new', async () => {
    const headers = { 'Idempotency-Key': 'shared-key' };
    const live = await app.request('POST', '/v1/deals', { key: org.api_key, body, headers });
    const test = await app.request('POST', '/v1/deals', { key: org.test_api_key, body, headers });
    expect(live.status).toBe(201);
    expect(test.status).toBe(201);
    expect(test.body.id).not.toBe(live.body.id);
    await app
      .get(Database)
      .system()
      .nativeUpdate(IdempotencyRecord, { key: 'shared-key' }, { expiresAt: new Date(Date.now() - 1000) });
    const fresh = await app.request('POST', '/v1/deals', { key: org.api_key, body, headers });
    expect(fresh.status).toBe(201);
    expect(fresh.body.id).not.toBe(live.body.id);
  });

  it('rejects a key longer than 255 characters', async () => {
    const res = await app.request('POST', '/v1/deals', { key: org.api_key, body, headers: { 'Idempotency-Key': 'k'.repeat(256) } });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].loc).toEqual(['header', 'Idempotency-Key']);
  });
});
