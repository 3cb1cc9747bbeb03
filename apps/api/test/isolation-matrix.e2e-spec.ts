import { ALL_SCOPES, FINE_SCOPES } from '../src/platform/auth/auth-context';
import { LAYOUTS } from '../../../tools/corpus/layouts';
import { makeStatement } from '../../../tools/corpus/corpus';
import { TestApp, TestResponse } from './support/harness';
import { Receiver } from './support/receiver';
import { fastifyRoutes, nestRoutes, RouteInfo } from './support/route-table';

/**
 * The isolation matrix, generated from the routes the running server serves (Nest's route
 * metadata, cross-checked against Fastify's router), so a new route cannot escape it: on every
 * route with an id in its path, org A's live records are 404 to org B's key and to org A's own
 * test key, and 403 to an org A key holding every scope but the route's. Keys included.
 */

/** Routes with an id that deliberately need no credential, each with its reason. */
const PUBLIC_ID_ROUTES: Record<string, string> = {
  'GET /v1/share/:token': 'the public share view: the unguessable token is the credential (spec: Share links)',
  'GET /share/:token': "the share link's human page (same data as the JSON view)",
  'POST /share/:token': "the human page's password form",
};

/**
 * Routes whose parameter names a kind of singleton of the caller, not a record: PUT creates the
 * caller's own configuration for that provider, and GET reads the caller's own (a provider it has
 * not configured reads as disabled, without mappings), so another organization gets 200 or 422 on
 * its own data, never org A's (the test below checks it sees none of org A's; DELETE and test are
 * in the 404 checks).
 */
const CALLER_SINGLETON_ROUTES: Record<string, string> = {
  'PUT /v1/crm/config/:provider': "creates or replaces the caller's own configuration of that provider",
  'GET /v1/crm/config/:provider': "the caller's own configuration of that provider (none: disabled, no credentials)",
  'GET /v1/crm/field-mapping/:provider': "the caller's own mappings of that provider (none: an empty list)",
  'PUT /v1/crm/field-mapping/:provider': "replaces the caller's own mappings of that provider (allowed before credentials)",
};

/** Event streams never end: the owner's own check skips them (the stream suite covers them); others must get a 404 at once. */
const STREAMS = new Set(['GET /v1/events/deals/:deal_id']);

const WEBHOOK_SECRET = 'whsec_c2VjcmV0LWZvci10ZXN0cy0xMjM0NTY3ODkw';

/** Bodies that pass validation, so the check reaches the record lookup (a 422 would prove nothing). */
/** Routes that need a query to reach their record (without it the request is refused before the lookup). */
const QUERIES: Record<string, string> = {
  'GET /v1/deals/:deal_id/export/underwriting/csv': '?table=revenue',
};

const BODIES: Record<string, unknown> = {
  'PATCH /v1/deals/:deal_id': { industry: 'bakery' },
  'POST /v1/deals/:deal_id/decision': { decision: 'approve' },
  'POST /v1/deals/:deal_id/evaluate': {},
  'POST /v1/documents/:document_id/reclassify': { document_type: 'bank_statement' },
  'PATCH /v1/documents/:document_id/transactions/:transaction_id': { description: 'edited', correction_reason: 'matrix' },
  'POST /v1/documents/:document_id/transactions': { date: '2024-01-05', description: 'added', amount: 5, correction_reason: 'matrix' },
  'DELETE /v1/documents/:document_id/transactions/:transaction_id': { correction_reason: 'matrix' },
  'POST /v1/documents/:document_id/review': { note: 'matrix' },
  'PATCH /v1/users/:user_id': { name: 'Renamed by the matrix' },
  'PUT /v1/rulesets/:ruleset_id': {
    name: 'Replaced',
    factors: [{ name: 'revenue_stability', weight: 1, threshold: 40 }],
    approval_threshold: 70,
    decline_threshold: 40,
  },
  'PATCH /v1/rulesets/:ruleset_id': { description: 'edited' },
  'PATCH /v1/lenders/:lender_id': { aliases: ['MATRIX ALIAS'] },
  'POST /v1/deals/:deal_id/comments': { body: 'matrix' },
  'PATCH /v1/deals/:deal_id/comments/:comment_id': { body: 'edited' },
  'PATCH /v1/comments/:comment_id': { content: 'edited' },
  'POST /v1/deals/:deal_id/doc-requests': { document_type: 'tax_return' },
  'PATCH /v1/doc-requests/:request_id': { status: 'cancelled' },
};

describe('isolation matrix over every route with an id', () => {
  let app: TestApp;
  let orgA: Awaited<ReturnType<TestApp['newOrg']>>;
  let orgB: Awaited<ReturnType<TestApp['newOrg']>>;
  let routes: RouteInfo[];
  let receiver: Receiver;
  const ids: Record<string, number | string> = {};
  /** Per required scope: an org A live key holding every other fine scope. */
  const limitedKeys: Record<string, string> = {};
  let pdf: Uint8Array;

  beforeAll(async () => {
    app = await TestApp.start({
      RATE_LIMIT_STANDARD: '100000',
      RATE_LIMIT_WRITE: '100000',
      RATE_LIMIT_UPLOAD: '100000',
      OUTBOUND_ALLOWLIST: '127.0.0.1/32',
    });
    receiver = await Receiver.start(() => WEBHOOK_SECRET);
    orgA = await app.newOrg('Owner A');
    orgB = await app.newOrg('Other B');
    routes = nestRoutes(app.running.app);
    const a = orgA.api_key;
    ids.deal_id = (
      await app.request('POST', '/v1/deals', { key: a, body: { business_name: 'A Live Deal', funding_amount_requested: 5000 } })
    ).body.id;
    pdf = (
      await makeStatement(
        LAYOUTS.find((l) => l.name === 'sectioned_unsigned')!,
        11,
        12,
      )
    ).bytes;
    const form = new FormData();
    form.append('file', new Blob([pdf], { type: 'application/pdf' }), 'a.pdf');
    ids.document_id = (await app.request('POST', `/v1/deals/${ids.deal_id}/documents`, { key: a, form })).body.id;
    const ingest = new FormData();
    ingest.append('files', new Blob([pdf], { type: 'application/pdf' }), 'i.pdf');
    ingest.append('metadata', JSON.stringify({ deal_id: ids.deal_id }));
    ids.batch_id = (
      await app.request('POST', '/v1/ingest', { key: a, form: ingest, headers: { 'X-Org-Id': String(orgA.organization.id) } })
    ).body.batch_id;
    await app.settle();
    ids.transaction_id = (await app.request('GET', `/v1/documents/${ids.document_id}/transactions`, { key: a })).body.data[0].id;
    ids.ruleset_id = (
      await app.request('POST', '/v1/rulesets', {
        key: a,
        body: {
          name: 'A rules',
          factors: [{ name: 'revenue_stability', weight: 1, threshold: 40 }],
          approval_threshold: 70,
          decline_threshold: 40,
        },
      })
    ).body.id;
    const share = (await app.request('POST', `/v1/deals/${ids.deal_id}/share`, { key: a, body: { label: 'A link' } })).body;
    ids.share_id = share.id;
    ids.token = share.token;
    BODIES['POST /v1/deals/:deal_id/assignments'] = { user_id: orgA.user.id };
    ids.user_id = orgA.user.id;
    ids.assignment_id = (
      await app.request('POST', `/v1/deals/${ids.deal_id}/assignments`, { key: a, body: { user_id: orgA.user.id } })
    ).body.id;
    ids.comment_id = (await app.request('POST', `/v1/deals/${ids.deal_id}/comments`, { key: a, body: { body: 'A comment' } })).body.id;
    ids.request_id = (
      await app.request('POST', `/v1/deals/${ids.deal_id}/doc-requests`, { key: a, body: { document_type: 'tax_return' } })
    ).body.id;
    ids.lender_id = (
      await app.request('POST', '/v1/lenders', { key: a, body: { name: 'Matrix Funding', aliases: ['MATRIX FUND'] } })
    ).body.id;
    ids.key_id = (await app.request('POST', '/v1/keys', { key: a, body: { name: 'A spare key', scopes: ['read', 'write'] } })).body.id;
    expect(
      (
        await app.request('PUT', '/v1/webhooks/config', {
          key: a,
          body: { url: receiver.url, secret: WEBHOOK_SECRET, events: ['deal.created'] },
        })
      ).status,
    ).toBe(200);
    await app.request('POST', '/v1/deals', { key: a, body: { business_name: 'A hooked deal', funding_amount_requested: 5000 } });
    await app.settle();
    ids.delivery_id = (await app.request('GET', '/v1/webhooks/deliveries', { key: a })).body.data[0].id;
    // Disabled: the matrix needs the records, never a call to a real CRM.
    ids.provider = 'hubspot';
    expect(
      (
        await app.request('PUT', '/v1/crm/config/hubspot', {
          key: a,
          body: { credentials: { access_token: 'pat-matrix' }, enabled: false },
        })
      ).status,
    ).toBe(200);
    const mappings = [{ banklyze_field: 'industry', crm_field: 'industry', direction: 'to_crm' }];
    expect((await app.request('PUT', '/v1/crm/field-mapping/hubspot', { key: a, body: { mappings } })).status).toBe(200);
    ids.log_id = (await app.request('POST', '/v1/crm/sync', { key: a })).body.data.sync_id;
    for (const scope of new Set(routes.map((r) => r.scope).filter((s): s is string => !!s && s !== 'any'))) {
      const scopes = FINE_SCOPES.filter((s) => s !== scope);
      limitedKeys[scope] = (await app.request('POST', '/v1/keys', { key: a, body: { name: `all but ${scope}`, scopes } })).body.key;
    }
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await receiver?.close();
  });

  const idRoutes = () => routes.filter((r) => r.params.length > 0);
  const label = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

  const call = (route: RouteInfo, key: string | null): Promise<TestResponse> => {
    let path = route.path;
    for (const param of route.params) {
      if (!(param in ids)) throw new Error(`${label(route)}: no org A record for :${param}; add one to the matrix's fixtures`);
      path = path.replace(`:${param}`, String(ids[param]));
    }
    if ((route.path.endsWith('/documents') && route.method === 'POST') || route.path.endsWith('/documents/bulk')) {
      const form = new FormData();
      form.append(route.path.endsWith('/bulk') ? 'files' : 'file', new Blob([pdf], { type: 'application/pdf' }), 'x.pdf');
      return app.request(route.method, path, { key, form });
    }
    const body = BODIES[label(route)] ?? (['POST', 'PUT', 'PATCH'].includes(route.method) ? {} : undefined);
    return app.request(route.method, `${path}${QUERIES[label(route)] ?? ''}`, { key, body });
  };

  it('reads the route table from the running app, and Fastify serves nothing with an id beyond it', () => {
    const nest = new Set(routes.map(label));
    const served = fastifyRoutes(app.running.app);
    const servedLabels = new Set(served.map(label));
    expect(routes.map(label).filter((r) => !servedLabels.has(r))).toEqual([]);
    expect(
      served.filter((r) => r.path.includes(':') && !r.alternatives.some((alt) => nest.has(label({ method: r.method, path: alt })))),
    ).toEqual([]);
    expect(idRoutes().length).toBeGreaterThanOrEqual(30);
    expect(idRoutes().map(label)).toEqual(
      expect.arrayContaining(['DELETE /v1/keys/:key_id', 'POST /v1/keys/:key_id/rotate', 'GET /v1/deals/:deal_id']),
    );
    for (const route of routes)
      expect({ route: label(route), declared: route.isPublic || route.scope === 'any' || ALL_SCOPES.includes(route.scope ?? '') }).toEqual({
        route: label(route),
        declared: true,
      });
  });

  it('public routes with an id are exactly the listed ones; every other one needs a credential (401)', async () => {
    expect(
      idRoutes()
        .filter((r) => r.isPublic)
        .map(label)
        .sort(),
    ).toEqual(Object.keys(PUBLIC_ID_ROUTES).sort());
    for (const route of idRoutes().filter((r) => !r.isPublic)) {
      expect({ route: label(route), status: (await call(route, null)).status }).toEqual({ route: label(route), status: 401 });
    }
  });

  it("org B's key gets 404 on every org A live record", async () => {
    const seen = [];
    for (const route of idRoutes().filter((r) => !r.isPublic && !(label(r) in CALLER_SINGLETON_ROUTES)))
      seen.push({ route: label(route), status: (await call(route, orgB.api_key)).status });
    expect(seen).toEqual(seen.map((s) => ({ ...s, status: 404 })));
  });

  it("org B's key and org A's test key see their own empty provider configuration, none of org A's", async () => {
    for (const key of [orgB.api_key, orgA.test_api_key]) {
      const config = await app.request('GET', '/v1/crm/config/hubspot', { key });
      expect(config.body).toMatchObject({ provider: 'hubspot', has_credentials: false });
      const mappings = await app.request('GET', '/v1/crm/field-mapping/hubspot', { key });
      expect(mappings.body).toEqual({ provider: 'hubspot', mappings: [] });
    }
    const own = await app.request('GET', '/v1/crm/config/hubspot', { key: orgA.api_key });
    expect(own.body).toMatchObject({ provider: 'hubspot', has_credentials: true });
    expect((await app.request('GET', '/v1/crm/field-mapping/hubspot', { key: orgA.api_key })).body.mappings).toHaveLength(1);
  });

  it("org A's own test key gets 404 on every org A live record", async () => {
    const seen = [];
    for (const route of idRoutes().filter((r) => !r.isPublic && !(label(r) in CALLER_SINGLETON_ROUTES)))
      seen.push({ route: label(route), status: (await call(route, orgA.test_api_key)).status });
    expect(seen).toEqual(seen.map((s) => ({ ...s, status: 404 })));
  });

  it("an org A key holding every scope but the route's gets 403", async () => {
    const seen = [];
    for (const route of idRoutes().filter((r) => !r.isPublic))
      seen.push({ route: label(route), status: (await call(route, limitedKeys[route.scope!])).status });
    expect(seen).toEqual(seen.map((s) => ({ ...s, status: 403 })));
  });

  it("after all of it org A's records are intact and reachable by org A", async () => {
    const a = orgA.api_key;
    for (const route of idRoutes().filter((r) => r.method === 'GET' && !STREAMS.has(label(r)))) {
      const res = await call(route, a);
      expect({ route: label(route), found: res.status !== 404 }).toEqual({ route: label(route), found: true });
    }
    const deal = await app.request('GET', `/v1/deals/${ids.deal_id}`, { key: a });
    expect(deal.body).toMatchObject({ business_name: 'A Live Deal', industry: null, decision: null });
    const rules = await app.request('GET', `/v1/rulesets/${ids.ruleset_id}`, { key: a });
    expect(rules.body).toMatchObject({ name: 'A rules', is_default: false });
    const keys = await app.request('GET', '/v1/keys?per_page=100', { key: a });
    expect(keys.body.data.map((k: { id: number }) => k.id)).toContain(ids.key_id);
  });
});
