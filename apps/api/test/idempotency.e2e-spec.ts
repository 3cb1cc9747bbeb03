import { TestApp } from './support/harness';
import { Database } from '../src/platform/database/database.service';
import { Deal } from '../src/modules/deals/deals.entities';
import { IdempotencyRecord } from '../src/platform/idempotency/idempotency.entity';

describe('Idempotency-Key on POST /v1/deals', () => {
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
    const again = await app.request('POST', '/v1/deals', { key: org.api_key, body: { ...body, business_name: 'Different' }, headers });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await countDeals()).toBe(before);
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
