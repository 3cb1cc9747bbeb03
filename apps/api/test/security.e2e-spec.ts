import { TestApp } from './support/harness';

/**
 * Regressions of issue 9 (holes found by probing the API edge): each test failed before its fix.
 * Runs on PGlite (`npm test`) and on PostgreSQL + Redis (`npm run test:real`).
 */
describe('security: the API edge holds against hostile and careless clients', () => {
  let app: TestApp;
  let org: Awaited<ReturnType<TestApp['newOrg']>>;

  beforeAll(async () => {
    // Many logins and token requests from one address: lift the auth rate limit (its own suite tests it).
    app = await TestApp.start({ RATE_LIMIT_AUTH: '1000' });
    org = await app.newOrg('Edge');
  });
  afterAll(() => app?.close());

  const newKey = async (key: string, body: Record<string, unknown>) => {
    const res = await app.request('POST', '/v1/keys', { key, body });
    expect(res.status).toBe(201);
    return res.body as { id: number; key: string; mode: string; scopes: string[] };
  };

  describe("API keys respect the caller's mode (1)", () => {
    it('a test key cannot rotate, revoke or list live keys: 404, and the live key keeps working', async () => {
      const live = await newKey(org.api_key, { name: 'live target' });
      const rotate = await app.request('POST', `/v1/keys/${live.id}/rotate`, { key: org.test_api_key });
      expect(rotate.status).toBe(404);
      expect(JSON.stringify(rotate.body)).not.toContain('live_');
      expect((await app.request('DELETE', `/v1/keys/${live.id}`, { key: org.test_api_key })).status).toBe(404);
      const listed = await app.request('GET', '/v1/keys?per_page=100', { key: org.test_api_key });
      expect(listed.body.data.length).toBeGreaterThan(0);
      expect(listed.body.data.every((k: { mode: string }) => k.mode === 'test')).toBe(true);
      expect((await app.request('GET', '/v1/deals', { key: live.key })).status).toBe(200);
    });

    it('a test key manages test keys; a live key manages keys of both modes', async () => {
      const test = await newKey(org.test_api_key, { name: 'sandbox' });
      const rotated = await app.request('POST', `/v1/keys/${test.id}/rotate`, { key: org.test_api_key });
      expect(rotated.status).toBe(200);
      expect(rotated.body.key).toMatch(/^ll_test_/);
      const byLive = await app.request('POST', `/v1/keys/${test.id}/rotate`, { key: org.api_key });
      expect(byLive.status).toBe(200);
      expect(byLive.body.key).toMatch(/^ll_test_/);
      expect((await app.request('DELETE', `/v1/keys/${test.id}`, { key: org.test_api_key })).status).toBe(200);
    });
  });

  describe('no credential obtains scopes it does not hold (2)', () => {
    it('a keys:manage-only key cannot rotate (take over) a more powerful key: 403, nothing changes', async () => {
      const manager = await newKey(org.api_key, { name: 'key manager', scopes: ['keys:manage'] });
      const powerful = await newKey(org.api_key, { name: 'powerful', scopes: ['read', 'write'] });
      const res = await app.request('POST', `/v1/keys/${powerful.id}/rotate`, { key: manager.key });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
      expect(res.body.key).toBeUndefined();
      expect((await app.request('GET', '/v1/deals', { key: powerful.key })).status).toBe(200);
      const create = await app.request('POST', '/v1/keys', { key: manager.key, body: { name: 'escalate', scopes: ['deals:read'] } });
      expect(create.status).toBe(403);
    });

    it('it can rotate a key whose scopes it holds, and a narrower key cannot rotate a wider one', async () => {
      const manager = await newKey(org.api_key, { name: 'manager+deals', scopes: ['keys:manage', 'deals:read', 'deals:write'] });
      const narrow = await newKey(org.api_key, { name: 'deals reader', scopes: ['deals:read'] });
      expect((await app.request('POST', `/v1/keys/${narrow.id}/rotate`, { key: manager.key })).status).toBe(200);
      const wide = await newKey(org.api_key, { name: 'reader', scopes: ['read'] });
      expect((await app.request('POST', `/v1/keys/${wide.id}/rotate`, { key: manager.key })).status).toBe(403);
    });

    it('an admin session holds read, write and keys:manage; a manager session cannot manage keys', async () => {
      const login = await app.request('POST', '/auth/login', { body: { email: org.user.email, password: org.password } });
      const session = login.body.token as string;
      const full = await app.request('POST', '/v1/keys', {
        headers: { Authorization: `Bearer ${session}` },
        body: { name: 'from session', scopes: ['read', 'write', 'keys:manage'] },
      });
      expect(full.status).toBe(201);
      const manager = await app.newUser(org.organization.id, 'manager');
      const managerLogin = await app.request('POST', '/auth/login', { body: { email: manager.user.email, password: manager.password } });
      const denied = await app.request('POST', '/v1/keys', {
        headers: { Authorization: `Bearer ${managerLogin.body.token}` },
        body: { name: 'no' },
      });
      expect(denied.status).toBe(403);
    });
  });

  it('a search containing ";" is an ordinary search (6)', async () => {
    const created = await app.request('POST', '/v1/deals', {
      key: org.api_key,
      body: { business_name: "Semi;Colon's Bakery", funding_amount_requested: 1000 },
    });
    expect(created.status).toBe(201);
    for (const q of [';', 'Semi;Colon', "colon's", "'; drop table deals; --", 'a;b;c', '$$;$$']) {
      const res = await app.request('GET', `/v1/deals?q=${encodeURIComponent(q)}`, { key: org.api_key });
      expect(res.status).toBe(200);
    }
    const found = await app.request('GET', `/v1/deals?q=${encodeURIComponent('semi;colon')}`, { key: org.api_key });
    expect(found.body.data.map((d: { id: number }) => d.id)).toEqual([created.body.id]);
    expect((await app.request('GET', '/v1/deals', { key: org.api_key })).status).toBe(200);
  });

  describe('NUL bytes are a 422 in every string field, body and query alike (7)', () => {
    const cases: [string, string, Record<string, unknown> | null, (string | number)[]][] = [
      ['POST', '/v1/deals', { business_name: 'Nul\u0000Bakery', funding_amount_requested: 1 }, ['body', 'business_name']],
      ['POST', '/v1/deals', { business_name: 'ok', funding_amount_requested: 1, industry: 'x\u0000' }, ['body', 'industry']],
      ['POST', '/v1/keys', { name: 'key\u0000' }, ['body', 'name']],
      ['POST', '/v1/rulesets', { name: 'r\u0000' }, ['body', 'name']],
      ['POST', '/v1/deals/batch', { deals: [{ business_name: 'a\u0000' }] }, ['body', 'deals', 0, 'business_name']],
      ['GET', '/v1/deals?q=%00', null, ['query', 'q']],
      ['GET', '/v1/deals?status=%00new', null, ['query', 'status']],
    ];
    it.each(cases)('%s %s', async (method, path, body, loc) => {
      const res = await app.request(method, path, { key: org.api_key, body: body ?? undefined });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.errors[0].loc).toEqual(loc);
    });

    it('on the login and OAuth paths too (no credential needed)', async () => {
      const login = await app.request('POST', '/auth/login', { body: { email: 'a\u0000@example.test', password: 'x' } });
      expect(login.status).toBe(422);
      const token = await app.request('POST', '/v1/oauth/token', {
        body: { grant_type: 'client_credentials', client_id: 'cli_\u0000', client_secret: 'x' },
      });
      expect(token.status).toBe(422);
    });

    it('an unpaired surrogate (JSON "\\ud800", not valid Unicode, unstorable) is a 422 too, not a 500', async () => {
      const res = await app.request('POST', '/v1/deals', {
        key: org.api_key,
        rawBody: '{"business_name":"\\ud800","funding_amount_requested":1}',
        headers: { 'Content-Type': 'application/json' },
      });
      expect(res.status).toBe(422);
      expect(res.body.errors[0]).toMatchObject({ loc: ['body', 'business_name'], type: 'value_error.str.surrogate' });
      const paired = await app.request('POST', '/v1/deals', {
        key: org.api_key,
        body: { business_name: 'Emoji \u{1F950} Bakery', funding_amount_requested: 1 },
      });
      expect(paired.status).toBe(201);
    });
  });

  it('JSON nested 5,000 deep is a 400 in the envelope, and 64 levels still parse (8)', async () => {
    const deep = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
    for (const path of ['/v1/deals', '/v1/keys', '/auth/login', '/v1/rulesets']) {
      const res = await app.request('POST', path, {
        key: org.api_key,
        rawBody: deep(5000),
        headers: { 'Content-Type': 'application/json' },
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', errors: [] });
      expect(res.body.detail).toMatch(/nested deeper than 64/);
    }
    const arrays = await app.request('POST', '/v1/deals', {
      key: org.api_key,
      rawBody: '['.repeat(5000) + ']'.repeat(5000),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(arrays.status).toBe(400);
    const fine = await app.request('POST', '/v1/deals', {
      key: org.api_key,
      rawBody: `{"business_name":"x","funding_amount_requested":1,"x":${deep(60)}}`,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(fine.status).toBe(201);
  });

  it('an empty body with Content-Type: application/json is accepted on body-less POSTs (11)', async () => {
    const json = { 'Content-Type': 'application/json' };
    const ruleset = await app.request('POST', '/v1/rulesets', {
      key: org.api_key,
      body: {
        name: 'Empty body',
        factors: [{ name: 'revenue_stability', weight: 1, threshold: 40 }],
        approval_threshold: 70,
        decline_threshold: 40,
      },
    });
    expect(ruleset.status).toBe(201);
    const setDefault = await app.request('POST', `/v1/rulesets/${ruleset.body.id}/set-default`, {
      key: org.api_key,
      rawBody: '',
      headers: json,
    });
    expect(setDefault.status).toBe(200);
    const key = await newKey(org.api_key, { name: 'rotate with empty body' });
    expect((await app.request('POST', `/v1/keys/${key.id}/rotate`, { key: org.api_key, rawBody: '', headers: json })).status).toBe(200);
    const deal = await app.request('POST', '/v1/deals', {
      key: org.api_key,
      body: { business_name: 'Empty', funding_amount_requested: 1 },
    });
    const reprocess = await app.request('POST', `/v1/deals/${deal.body.id}/reprocess-failed`, {
      key: org.api_key,
      rawBody: '',
      headers: json,
    });
    expect(reprocess.status).toBe(202);
    const summary = await app.request('POST', `/v1/deals/${deal.body.id}/regenerate-summary`, {
      key: org.api_key,
      rawBody: '',
      headers: json,
    });
    expect(summary.status).not.toBe(400);
    // A route that needs a body still says so, in the envelope (not a parser error).
    const noBody = await app.request('POST', '/v1/deals', { key: org.api_key, rawBody: '', headers: json });
    expect(noBody.status).toBe(422);
    expect(noBody.body.code).toBe('VALIDATION_ERROR');
  });

  describe('OAuth token endpoints (12)', () => {
    it('a missing client_secret or client_id is 422 naming the field; a wrong secret stays 401', async () => {
      for (const path of ['/oauth/token', '/v1/oauth/token']) {
        const noSecret = await app.request('POST', path, {
          body: { grant_type: 'client_credentials', client_id: org.oauth_client.client_id },
        });
        expect(noSecret.status).toBe(422);
        expect(noSecret.body.errors.map((e: { loc: string[] }) => e.loc)).toEqual([['body', 'client_secret']]);
        const form = new URLSearchParams({ grant_type: 'client_credentials', client_secret: 'cs_x' });
        const noId = await app.request('POST', path, {
          rawBody: form.toString(),
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        });
        expect(noId.status).toBe(422);
        expect(noId.body.errors.map((e: { loc: string[] }) => e.loc)).toEqual([['body', 'client_id']]);
        const wrong = await app.request('POST', path, {
          body: { grant_type: 'client_credentials', client_id: org.oauth_client.client_id, client_secret: 'cs_wrong' },
        });
        expect(wrong.status).toBe(401);
      }
    });

    it('token_type is Bearer on /oauth/token (Form A) and bearer on /v1/oauth/token (Form B)', async () => {
      const body = {
        grant_type: 'client_credentials',
        client_id: org.oauth_client.client_id,
        client_secret: org.oauth_client.client_secret,
      };
      const a = await app.request('POST', '/oauth/token', { body });
      const b = await app.request('POST', '/v1/oauth/token', { body });
      expect([a.body.token_type, b.body.token_type]).toEqual(['Bearer', 'bearer']);
      // the path tells the form, whatever the content type (both paths accept both)
      const formEncoded = {
        rawBody: new URLSearchParams(body).toString(),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      };
      const c = await app.request('POST', '/oauth/token', formEncoded);
      const d = await app.request('POST', '/v1/oauth/token', formEncoded);
      expect([c.body.token_type, d.body.token_type]).toEqual(['Bearer', 'bearer']);
      // either spelling is accepted back (token types are case-insensitive)
      for (const [type, token] of [
        ['Bearer', b.body.access_token],
        ['bearer', a.body.access_token],
        ['BEARER', c.body.access_token],
      ])
        expect((await app.request('GET', '/v1/deals', { headers: { Authorization: `${type} ${token}` } })).status).toBe(200);
    });
  });

  it('every answer carries X-Content-Type-Options: nosniff: API, errors, downloads, docs, share pages, streams (issue 27)', async () => {
    const key = org.api_key;
    const deal = (await app.request('POST', '/v1/deals', { key, body: { business_name: 'Nosniff LLC', funding_amount_requested: 1000 } }))
      .body as { id: number };
    const form = new FormData();
    form.append('file', new Blob([new TextEncoder().encode('%PDF-1.4\n% nosniff\n%%EOF\n')], { type: 'application/pdf' }), 'n.pdf');
    const document = (await app.request('POST', `/v1/deals/${deal.id}/documents`, { key, form })).body as { id: number };
    const share = (await app.request('POST', `/v1/deals/${deal.id}/share`, { key, body: {} })).body as { token: string };
    const answers = {
      JSON: await app.request('GET', `/v1/deals/${deal.id}`, { key }),
      'no credential (401)': await app.request('GET', '/v1/deals'),
      'unknown route (404)': await app.request('GET', '/v1/nowhere', { key, unchecked: true }),
      'invalid JSON (400)': await app.request('POST', '/v1/deals', { key, rawBody: '{', headers: { 'Content-Type': 'application/json' } }),
      'undecodable URL (400)': await app.request('GET', '/v1/deals/%E0%A4%A', { key, unchecked: true }),
      'oversized URL (431)': await app.request('GET', `/v1/deals?q=${'x'.repeat(70_000)}`, { key, unchecked: true }),
      probe: await app.request('GET', '/health', { unchecked: true }),
      'original download': await app.request('GET', `/v1/documents/${document.id}/download`, { key }),
      'CSV export': await app.request('GET', `/v1/deals/${deal.id}/export/csv`, { key }),
      'API reference': await app.request('GET', '/docs', { unchecked: true }),
      'OpenAPI document': await app.request('GET', '/docs/openapi.json', { unchecked: true }),
      'share page': await app.request('GET', `/share/${share.token}`, { unchecked: true }),
      'share view (JSON)': await app.request('GET', `/v1/share/${share.token}`),
    };
    const stream = new AbortController();
    const sse = await fetch(`${app.url}/v1/events/stream?token=${key}`, { signal: stream.signal });
    const got = (res: { status: number; headers: Headers }) => `${res.status} ${res.headers.get('x-content-type-options')}`;
    const seen: Record<string, string> = {
      ...Object.fromEntries(Object.entries(answers).map(([name, res]) => [name, got(res)])),
      'event stream': got(sse),
    };
    stream.abort();
    expect(seen).toEqual({
      JSON: '200 nosniff',
      'no credential (401)': '401 nosniff',
      'unknown route (404)': '404 nosniff',
      'invalid JSON (400)': '400 nosniff',
      'undecodable URL (400)': '400 nosniff',
      'oversized URL (431)': '431 nosniff',
      probe: '200 nosniff',
      'original download': '200 nosniff',
      'CSV export': '200 nosniff',
      'API reference': '200 nosniff',
      'OpenAPI document': '200 nosniff',
      'share page': '200 nosniff',
      'share view (JSON)': '200 nosniff',
      'event stream': '200 nosniff',
    });
    await app.settle();
  });

  describe('requests Fastify answers itself are in the envelope too (found by fuzzing)', () => {
    it('a path id longer than the router allows is 422 in the envelope (was a bare 414)', async () => {
      const res = await app.request('GET', `/v1/deals/${'9'.repeat(400)}`, { key: org.api_key, unchecked: true });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ loc: ['path'] }] });
    });

    it('a URL that does not decode is 400 in the envelope', async () => {
      const res = await app.request('GET', '/v1/deals/%E0%A4%A', { key: org.api_key, unchecked: true });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', errors: [] });
    });

    it('headers or a URL too large for the HTTP parser get 431 in the envelope', async () => {
      const res = await app.request('GET', `/v1/deals?q=${'x'.repeat(70_000)}`, { key: org.api_key, unchecked: true });
      expect(res.status).toBe(431);
      expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', errors: [] });
      expect((await app.request('GET', '/v1/deals', { key: org.api_key })).status).toBe(200);
    });
  });
});
