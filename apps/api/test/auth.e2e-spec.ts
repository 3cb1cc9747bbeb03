import { Authenticator } from '../src/platform/auth/authenticator';
import { CredentialCache } from '../src/platform/auth/credential-cache';
import { TestApp } from './support/harness';
import { Session } from '../src/modules/auth/auth.entities';
import { sha256 } from '../src/platform/crypto/credentials';
import { ApiKey } from '../src/modules/keys/keys.entities';
import { Database } from '../src/platform/database/database.service';

describe('authentication: sessions, OAuth client credentials, API keys', () => {
  let app: TestApp;
  let org: Awaited<ReturnType<TestApp['newOrg']>>;

  beforeAll(async () => {
    app = await TestApp.start();
    org = await app.newOrg('Auth Org');
  });
  afterAll(() => app?.close());

  describe('POST /auth/login', () => {
    it('returns a session token usable as a Bearer credential, on /auth/login and /v1/auth/login', async () => {
      for (const path of ['/auth/login', '/v1/auth/login']) {
        const res = await app.request('POST', path, { body: { email: org.user.email, password: org.password } });
        expect(res.status).toBe(200);
        expect(res.body.token).toMatch(/^sess_/);
        expect(res.body.role).toBe('admin');
        const deals = await app.request('GET', '/v1/deals', { headers: { Authorization: `Bearer ${res.body.token}` } });
        expect(deals.status).toBe(200);
      }
    });

    it('rejects a wrong password and an unknown email alike', async () => {
      const wrong = await app.request('POST', '/auth/login', { body: { email: org.user.email, password: 'nope-nope' } });
      const unknown = await app.request('POST', '/auth/login', { body: { email: 'ghost@example.test', password: 'nope-nope' } });
      expect(wrong.status).toBe(401);
      expect(unknown.status).toBe(401);
      expect(wrong.body).toEqual(unknown.body);
    });

    it('validates the body', async () => {
      const res = await app.request('POST', '/auth/login', { body: { email: org.user.email } });
      expect(res.status).toBe(422);
      expect(res.body.errors[0]).toMatchObject({ loc: ['body', 'password'], field: 'password' });
    });

    it('expires a session after the inactivity window', async () => {
      const short = await TestApp.start({ SESSION_TTL_SECONDS: '60' });
      try {
        const o = await short.newOrg('Short');
        const login = await short.request('POST', '/auth/login', { body: { email: o.user.email, password: o.password } });
        const token = login.body.token as string;
        await short
          .get(Database)
          .system()
          .nativeUpdate(Session, {}, { expiresAt: new Date(Date.now() - 1000) });
        const res = await short.request('GET', '/v1/deals', { headers: { Authorization: `Bearer ${token}` } });
        expect(res.status).toBe(401);
        expect(res.body.code).toBe('INVALID_API_KEY');
      } finally {
        await short.close();
      }
    });
  });

  it('slides a session forward while it is used', async () => {
    const login = await app.request('POST', '/auth/login', { body: { email: org.user.email, password: org.password } });
    const em = app.get(Database).system();
    const soon = new Date(Date.now() + 60_000);
    await em.nativeUpdate(
      Session,
      { id: { $gt: 0 }, userId: org.user.id },
      { lastUsedAt: new Date(Date.now() - 120_000), expiresAt: soon },
    );
    expect((await app.request('GET', '/v1/deals', { headers: { Authorization: `Bearer ${login.body.token}` } })).status).toBe(200);
    const used = await app
      .get(Database)
      .system()
      .findOneOrFail(Session, { tokenHash: sha256(login.body.token) });
    expect(used.expiresAt.getTime()).toBeGreaterThan(Date.now() + 23 * 3600_000);
  });

  describe('OAuth client credentials', () => {
    it('issues a token from a form-encoded request on /oauth/token (token_type Bearer)', async () => {
      const body = new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: org.oauth_client.client_id,
        client_secret: org.oauth_client.client_secret,
      });
      const res = await app.request('POST', '/oauth/token', {
        rawBody: body.toString(),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
      const deals = await app.request('GET', '/v1/deals', { headers: { Authorization: `Bearer ${res.body.access_token}` } });
      expect(deals.status).toBe(200);
    });

    it('issues a token from JSON on /v1/oauth/token (token_type bearer, as the spec prints Form B)', async () => {
      const res = await app.request('POST', '/v1/oauth/token', {
        body: { grant_type: 'client_credentials', client_id: org.oauth_client.client_id, client_secret: org.oauth_client.client_secret },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ token_type: 'bearer', expires_in: 3600 });
      const deals = await app.request('GET', '/v1/deals', { headers: { Authorization: `bearer ${res.body.access_token}` } });
      expect(deals.status).toBe(200);
    });

    it('rejects a wrong secret and a wrong grant type', async () => {
      const wrong = await app.request('POST', '/v1/oauth/token', {
        body: { grant_type: 'client_credentials', client_id: org.oauth_client.client_id, client_secret: 'cs_wrong' },
      });
      expect(wrong.status).toBe(401);
      const grant = await app.request('POST', '/v1/oauth/token', {
        body: { grant_type: 'password', client_id: org.oauth_client.client_id, client_secret: org.oauth_client.client_secret },
      });
      expect(grant.status).toBe(422);
      expect(grant.body.errors[0].loc).toEqual(['body', 'grant_type']);
    });
  });

  describe('/v1/keys', () => {
    it('creates a key in Form A (name) and Form B (label) and shows the full key only once', async () => {
      const a = await app.request('POST', '/v1/keys', { key: org.api_key, body: { name: 'CI key', scopes: ['read'] } });
      expect(a.status).toBe(201);
      expect(a.body.key).toMatch(/^ll_live_/);
      expect(a.body.key_prefix).toBe(a.body.key.slice(0, 12));
      expect(a.body.key_masked).toBe(`${a.body.key.slice(0, 12)}...${a.body.key.slice(-4)}`);
      expect(a.body.scopes).toEqual(['read']);
      const b = await app.request('POST', '/v1/keys', {
        key: org.api_key,
        body: { label: 'Form B key', scopes: ['deals:read', 'deals:write'] },
      });
      expect(b.status).toBe(201);
      expect(b.body.label).toBe('Form B key');
      const list = await app.request('GET', '/v1/keys', { key: org.api_key });
      const listed = list.body.data.find((k: { id: number }) => k.id === a.body.id);
      expect(listed).toBeDefined();
      expect(listed.key).toBeUndefined();
      expect(JSON.stringify(list.body)).not.toContain(a.body.key);
    });

    it('defaults scopes to read and write, and validates name and scopes', async () => {
      const res = await app.request('POST', '/v1/keys', { key: org.api_key, body: { name: 'defaults' } });
      expect(res.body.scopes).toEqual(['read', 'write']);
      const noName = await app.request('POST', '/v1/keys', { key: org.api_key, body: {} });
      expect(noName.status).toBe(422);
      expect(noName.body.errors[0].loc).toEqual(['body', 'name']);
      const badScope = await app.request('POST', '/v1/keys', { key: org.api_key, body: { name: 'x', scopes: ['deals:destroy'] } });
      expect(badScope.status).toBe(422);
      const longName = await app.request('POST', '/v1/keys', { key: org.api_key, body: { name: 'x'.repeat(256) } });
      expect(longName.status).toBe(422);
    });

    it('enforces scopes per route: a read key cannot write, a deals-only key cannot manage keys', async () => {
      const read = (await app.request('POST', '/v1/keys', { key: org.api_key, body: { name: 'ro', scopes: ['read'] } })).body.key;
      expect((await app.request('GET', '/v1/deals', { key: read })).status).toBe(200);
      const write = await app.request('POST', '/v1/deals', { key: read, body: { business_name: 'X', funding_amount_requested: 1 } });
      expect(write.status).toBe(403);
      expect(write.body.code).toBe('FORBIDDEN');
      const fine = (
        await app.request('POST', '/v1/keys', { key: org.api_key, body: { name: 'fine', scopes: ['deals:read', 'deals:write'] } })
      ).body.key;
      expect(
        (await app.request('POST', '/v1/deals', { key: fine, body: { business_name: 'Y', funding_amount_requested: 5 } })).status,
      ).toBe(201);
      expect((await app.request('GET', '/v1/keys', { key: fine })).status).toBe(403);
      const escalate = await app.request('POST', '/v1/keys', { key: read, body: { name: 'more', scopes: ['write'] } });
      expect(escalate.status).toBe(403);
    });

    it('gives non-admin users no key management, reviewers no writes', async () => {
      const underwriter = await app.newUser(org.organization.id, 'underwriter');
      expect((await app.request('GET', '/v1/keys', { key: underwriter.api_key })).status).toBe(403);
      expect(
        (await app.request('POST', '/v1/deals', { key: underwriter.api_key, body: { business_name: 'U', funding_amount_requested: 5 } }))
          .status,
      ).toBe(201);
      const reviewer = await app.newUser(org.organization.id, 'reviewer');
      expect(
        (await app.request('POST', '/v1/deals', { key: reviewer.api_key, body: { business_name: 'R', funding_amount_requested: 5 } }))
          .status,
      ).toBe(403);
      expect((await app.request('GET', '/v1/deals', { key: reviewer.api_key })).status).toBe(200);
    });

    it('revokes a key permanently; a key cannot revoke itself', async () => {
      const created = (await app.request('POST', '/v1/keys', { key: org.api_key, body: { name: 'to revoke' } })).body;
      const self = await app.request('DELETE', `/v1/keys/${created.id}`, { key: created.key });
      expect(self.status).toBe(409);
      const revoked = await app.request('DELETE', `/v1/keys/${created.id}`, { key: org.api_key });
      expect(revoked.status).toBe(200);
      expect(revoked.body).toMatchObject({ status: 'ok', success: true });
      const after = await app.request('GET', '/v1/deals', { key: created.key });
      expect(after.status).toBe(401);
      expect(after.body.code).toBe('INVALID_API_KEY');
      expect((await app.request('DELETE', `/v1/keys/${created.id}`, { key: org.api_key })).status).toBe(404);
    });

    it('rotates a key: the new value works, the old one stops at once', async () => {
      const created = (await app.request('POST', '/v1/keys', { key: org.api_key, body: { name: 'to rotate' } })).body;
      const rotated = await app.request('POST', `/v1/keys/${created.id}/rotate`, { key: org.api_key });
      expect(rotated.status).toBe(200);
      expect(rotated.body.id).toBe(created.id);
      expect(rotated.body.key).not.toBe(created.key);
      expect((await app.request('GET', '/v1/deals', { key: created.key })).status).toBe(401);
      expect((await app.request('GET', '/v1/deals', { key: rotated.body.key })).status).toBe(200);
    });

    it('honours expires_at and records last_used_at', async () => {
      const past = await app.request('POST', '/v1/keys', { key: org.api_key, body: { name: 'past', expires_at: '2000-01-01T00:00:00Z' } });
      expect(past.status).toBe(422);
      const created = (
        await app.request('POST', '/v1/keys', {
          key: org.api_key,
          body: { name: 'expiring', expires_at: new Date(Date.now() + 3600_000).toISOString() },
        })
      ).body;
      expect(created.last_used_at).toBeNull();
      await app.request('GET', '/v1/deals', { key: created.key });
      const listed = (await app.request('GET', '/v1/keys?per_page=100', { key: org.api_key })).body.data.find(
        (k: { id: number }) => k.id === created.id,
      );
      expect(listed.last_used_at).not.toBeNull();
      await app
        .get(Database)
        .system()
        .nativeUpdate(ApiKey, { id: created.id }, { expiresAt: new Date(Date.now() - 1000) }, { filters: false });
      // An edit behind the server's back: resolved keys are reused for AUTH_CACHE_SECONDS.
      app.get(CredentialCache).forget('api_key', created.id);
      const expired = await app.request('GET', '/v1/deals', { key: created.key });
      expect(expired.status).toBe(401);
      expect(expired.body.detail).toMatch(/expired/);
    });

    it('answers a key resolved moments ago from the cache, without a promise; a revoked key is refused at once on this replica', async () => {
      const created = (await app.request('POST', '/v1/keys', { key: org.api_key, body: { name: 'cached' } })).body;
      const authenticator = app.get(Authenticator);
      const first = await authenticator.authenticate({ via: 'api_key', value: created.key });
      const again = authenticator.authenticate({ via: 'api_key', value: created.key });
      expect(again).not.toBeInstanceOf(Promise);
      expect(again).toBe(first);
      expect((await app.request('DELETE', `/v1/keys/${created.id}`, { key: org.api_key })).status).toBe(200);
      const revoked = authenticator.authenticate({ via: 'api_key', value: created.key });
      expect(revoked).toBeInstanceOf(Promise);
      await expect(revoked).rejects.toMatchObject({ code: 'INVALID_API_KEY' });
      expect((await app.request('GET', '/v1/deals', { key: created.key })).status).toBe(401);
    });

    it('creates test keys; a test key cannot create a live key', async () => {
      const test = await app.request('POST', '/v1/keys', { key: org.api_key, body: { name: 'sandbox', mode: 'test' } });
      expect(test.body.key).toMatch(/^ll_test_/);
      expect(test.body.mode).toBe('test');
      const escalate = await app.request('POST', '/v1/keys', { key: org.test_api_key, body: { name: 'live from test', mode: 'live' } });
      expect(escalate.status).toBe(403);
      const inherited = await app.request('POST', '/v1/keys', { key: org.test_api_key, body: { name: 'test from test' } });
      expect(inherited.body.mode).toBe('test');
    });

    it('hides keys of another organization (404)', async () => {
      const other = await app.newOrg('Other Keys Org');
      const created = (await app.request('POST', '/v1/keys', { key: org.api_key, body: { name: 'mine' } })).body;
      expect((await app.request('DELETE', `/v1/keys/${created.id}`, { key: other.api_key })).status).toBe(404);
      expect((await app.request('POST', `/v1/keys/${created.id}/rotate`, { key: other.api_key })).status).toBe(404);
      const list = await app.request('GET', '/v1/keys?per_page=100', { key: other.api_key });
      expect(list.body.data.map((k: { id: number }) => k.id)).not.toContain(created.id);
    });
  });
});
