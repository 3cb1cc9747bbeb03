import { TestApp } from '../../../apps/api/test/support/harness';
import {
  AuthenticationError,
  IdempotencyKeyReusedError,
  Ledgerlens,
  LedgerlensError,
  NotFoundError,
  PermissionError,
  ValidationError,
} from './index.js';

/** The SDK against the real server (real HTTP, fresh database): no mocks. */
describe('@ledgerlens/sdk against the real API', () => {
  let app: TestApp;
  let org: Awaited<ReturnType<TestApp['newOrg']>>;
  let client: Ledgerlens;

  beforeAll(async () => {
    app = await TestApp.start();
    org = await app.newOrg('SDK Org');
    client = new Ledgerlens({ baseUrl: app.url, apiKey: org.api_key, sleep: async () => undefined });
  });
  afterAll(async () => {
    await app?.close();
  });

  async function rejection(p: Promise<unknown>): Promise<LedgerlensError> {
    const err = await p.then(
      () => {
        throw new Error('expected the request to fail');
      },
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LedgerlensError);
    return err as LedgerlensError;
  }

  it('creates, reads, updates, decides and deletes a deal', async () => {
    const created = await client.deals.create({ business_name: 'Acme Bakery LLC', funding_amount_requested: 75000, entity_type: 'llc' });
    expect(created).toMatchObject({ business_name: 'Acme Bakery LLC', funding_amount_requested: 75000, status: 'new', mode: 'live' });

    const deal = await client.deals.get(created.id);
    expect(deal).toMatchObject({
      id: created.id,
      entity_type: 'llc',
      business: expect.objectContaining({ business_name: 'Acme Bakery LLC' }),
    });

    const updated = await client.deals.update(created.id, { industry: 'Food service', funding_amount_requested: 80000 });
    expect(updated).toMatchObject({ id: created.id, industry: 'Food service', funding_amount_requested: 80000 });

    const decided = await client.deals.decide(created.id, 'approve');
    expect(decided).toMatchObject({ deal_id: created.id, decision: 'approve', previous_decision: null, success: true });
    expect((await client.deals.get(created.id)).decision).toBe('approve');

    const stats = await client.deals.stats();
    expect(stats.total_deals).toBeGreaterThanOrEqual(1);
    expect(stats.total_approved).toBeGreaterThanOrEqual(1);

    const ack = await client.deals.delete(created.id);
    expect(ack).toMatchObject({ status: 'ok', success: true });
    const gone = await rejection(client.deals.get(created.id));
    expect(gone).toMatchObject({ status: 404, code: 'DEAL_NOT_FOUND' });
  });

  it('makes deals.create idempotent: a repeated key replays the first deal', async () => {
    const key = `sdk-${Date.now()}`;
    const first = await client.deals.create({ business_name: 'Replay Co', funding_amount_requested: 1000 }, { idempotencyKey: key });
    const again = await client.deals.create({ business_name: 'Replay Co', funding_amount_requested: 1000 }, { idempotencyKey: key });
    expect(again.id).toBe(first.id);
    const raw = await client.POST('/v1/deals', {
      body: { business_name: 'Replay Co', funding_amount_requested: 1000 },
      params: { header: { 'Idempotency-Key': key } },
    });
    expect(raw).toMatchObject({ status: 200, replayed: true, data: { id: first.id } });
    // Without an explicit key each call gets its own generated key: two deals.
    const a = await client.deals.create({ business_name: 'Twice Co', funding_amount_requested: 10 });
    const b = await client.deals.create({ business_name: 'Twice Co', funding_amount_requested: 10 });
    expect(a.id).not.toBe(b.id);
  });

  it('lists deals page by page and iterates over every page with listAll', async () => {
    const other = await app.newOrg('Paging Org');
    const paging = new Ledgerlens({ baseUrl: app.url, apiKey: other.api_key });
    const batch = await paging.deals.createBatch(
      Array.from({ length: 7 }, (_, i) => ({ business_name: `Paged ${i}`, funding_amount_requested: 1000 + i })),
    );
    expect(batch.created).toHaveLength(7);
    expect(batch.errors).toHaveLength(0);

    const page1 = await paging.deals.list({ per_page: 3, sort: 'business_name', order: 'asc' });
    expect(page1.meta).toEqual({ page: 1, per_page: 3, total: 7, total_pages: 3 });
    expect(page1.data.map((d) => d.business_name)).toEqual(['Paged 0', 'Paged 1', 'Paged 2']);

    const all: string[] = [];
    for await (const deal of paging.deals.listAll({ per_page: 3, sort: 'business_name', order: 'asc' })) all.push(deal.business_name);
    expect(all).toEqual(Array.from({ length: 7 }, (_, i) => `Paged ${i}`));

    const pages = [];
    for await (const page of paging.pages('/v1/deals', { per_page: 3 })) pages.push(page.meta.page);
    expect(pages).toEqual([1, 2, 3]);

    const filtered = [];
    for await (const deal of paging.deals.listAll({ q: 'Paged 4' })) filtered.push(deal.business_name);
    expect(filtered).toEqual(['Paged 4']);
  });

  it('gives typed access by path with response metadata', async () => {
    const created = await client.deals.create({ business_name: 'Typed Path Inc', funding_amount_requested: 5000 });
    const res = await client.GET('/v1/deals/{deal_id}', { params: { path: { deal_id: created.id } } });
    expect(res.status).toBe(200);
    expect(res.data.business_name).toBe('Typed Path Inc');
    expect(res.requestId).toEqual(expect.any(String));
    expect(res.rateLimit).toEqual({ limit: expect.any(Number), remaining: expect.any(Number), reset: expect.any(Number) });

    const list = await client.GET('/v1/deals', { params: { query: { q: 'Typed Path', per_page: 5 } } });
    expect(list.data.data.map((d) => d.id)).toContain(created.id);

    const patched = await client.PATCH('/v1/deals/{deal_id}', {
      params: { path: { deal_id: created.id } },
      body: { owner_name: 'Jane Doe' },
    });
    expect(patched.data.owner_name).toBe('Jane Doe');

    const untyped = await client.request<{ status: string }>('GET', '/health');
    expect(untyped.status).toBe(200);
  });

  it('throws LedgerlensError for 404 and 422 with the API envelope', async () => {
    const notFound = await rejection(client.deals.get(999_999));
    expect(notFound).toMatchObject({ status: 404, code: 'DEAL_NOT_FOUND', errors: [], retryAfter: null });
    expect(notFound.detail).toEqual(expect.any(String));
    expect(notFound.requestId).toEqual(expect.any(String));
    expect(notFound.message).toContain('DEAL_NOT_FOUND');

    expect(notFound).toBeInstanceOf(NotFoundError);

    const invalid = await rejection(client.deals.create({ business_name: '', funding_amount_requested: -5 }));
    expect(invalid).toMatchObject({ status: 422, code: 'VALIDATION_ERROR', kind: 'validation' });
    expect(invalid).toBeInstanceOf(ValidationError);
    expect(Object.keys((invalid as ValidationError).fieldErrors)).toEqual(
      expect.arrayContaining(['business_name', 'funding_amount_requested']),
    );
    expect(invalid.errors.length).toBeGreaterThanOrEqual(2);
    expect(invalid.errors.map((e) => e.field)).toEqual(expect.arrayContaining(['business_name', 'funding_amount_requested']));
    expect(invalid.errors[0]).toEqual(
      expect.objectContaining({ loc: expect.any(Array), msg: expect.any(String), type: expect.any(String) }),
    );

    const badDecision = await rejection(client.deals.decide(999_999, 'approve'));
    expect(badDecision.code).toBe('DEAL_NOT_FOUND');

    const anonymous = new Ledgerlens({ baseUrl: app.url });
    const unauthenticated = await rejection(anonymous.deals.list());
    expect(unauthenticated).toMatchObject({ status: 401, code: 'AUTH_REQUIRED' });
    expect(unauthenticated).toBeInstanceOf(AuthenticationError);
  });

  it('throws IdempotencyKeyReusedError when a key is sent again with a different request', async () => {
    const key = `reuse-${Date.now()}`;
    await client.deals.create({ business_name: 'Reuse Co', funding_amount_requested: 1000 }, { idempotencyKey: key });
    const reused = await rejection(
      client.deals.create({ business_name: 'Other Co', funding_amount_requested: 2000 }, { idempotencyKey: key }),
    );
    expect(reused).toBeInstanceOf(IdempotencyKeyReusedError);
    expect(reused).toMatchObject({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED', kind: 'idempotency' });
  });

  it('creates, lists, rotates and revokes API keys', async () => {
    const created = await client.keys.create({ name: 'sdk key', scopes: ['deals:read'] });
    expect(created.key).toEqual(expect.any(String));
    expect(created.scopes).toEqual(['deals:read']);
    const keyClient = new Ledgerlens({ baseUrl: app.url, apiKey: created.key });
    expect((await keyClient.deals.list()).meta.page).toBe(1);
    const forbidden = await rejection(keyClient.deals.create({ business_name: 'x', funding_amount_requested: 1 }));
    expect(forbidden).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(forbidden).toBeInstanceOf(PermissionError);

    const listed = await client.keys.list();
    expect(listed.data.map((k) => k.id)).toContain(created.id);
    const all = [];
    for await (const key of client.keys.listAll()) all.push(key.id);
    expect(all).toContain(created.id);

    const rotated = await client.keys.rotate(created.id);
    expect(rotated.id).toBe(created.id);
    expect(rotated.key).not.toBe(created.key);
    expect(await rejection(keyClient.deals.list())).toMatchObject({ status: 401, code: 'INVALID_API_KEY' });
    const rotatedClient = new Ledgerlens({ baseUrl: app.url, apiKey: rotated.key });
    expect((await rotatedClient.deals.list()).meta.page).toBe(1);

    await client.keys.revoke(created.id);
    expect(await rejection(rotatedClient.deals.list())).toMatchObject({ status: 401, code: 'INVALID_API_KEY' });
    expect(await rejection(client.keys.revoke(created.id))).toMatchObject({ status: 404 });
  });

  it('logs in with email and password', async () => {
    const session = await Ledgerlens.login({ baseUrl: app.url, email: org.user.email, password: org.password });
    const deals = await session.deals.list();
    expect(deals.meta.page).toBe(1);
    const wrong = await rejection(Ledgerlens.login({ baseUrl: app.url, email: org.user.email, password: 'not-the-password' }));
    expect(wrong).toMatchObject({ status: 401, code: 'INVALID_CREDENTIALS' });
  });

  it('authenticates with OAuth client credentials', async () => {
    const seen: string[] = [];
    const recordingFetch = async (input: Request | string | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      seen.push(`${request.method} ${new URL(request.url).pathname} ${request.headers.get('authorization') ?? ''}`);
      return fetch(request);
    };
    const oauth = await Ledgerlens.fromClientCredentials({
      baseUrl: app.url,
      clientId: org.oauth_client.client_id,
      clientSecret: org.oauth_client.client_secret,
      fetch: recordingFetch,
    });
    const created = await oauth.deals.create({ business_name: 'OAuth Deal', funding_amount_requested: 42 });
    expect((await oauth.deals.get(created.id)).business_name).toBe('OAuth Deal');
    expect(seen[0]).toBe('POST /v1/oauth/token ');
    expect(seen.slice(1).every((s) => /Bearer \S+$/.test(s))).toBe(true);
    expect(seen.filter((s) => s.includes('/oauth/token'))).toHaveLength(1);

    const wrong = await rejection(
      Ledgerlens.fromClientCredentials({ baseUrl: app.url, clientId: org.oauth_client.client_id, clientSecret: 'wrong' }),
    );
    expect(wrong.status).toBe(401);
  });
});
