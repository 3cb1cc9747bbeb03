import { loadConfig } from '../src/platform/config/config';
import { OutboundHttp } from '../src/platform/outbound/outbound-http';
import { CrmHttp } from '../src/modules/crm/adapters/crm-http';
import { CrmError, CrmSignatureError, DealSnapshot } from '../src/modules/crm/adapters/crm-provider';
import { SalesforceAdapter } from '../src/modules/crm/adapters/salesforce.adapter';
import { HubspotAdapter } from '../src/modules/crm/adapters/hubspot.adapter';
import { PipedriveAdapter } from '../src/modules/crm/adapters/pipedrive.adapter';
import { CustomAdapter } from '../src/modules/crm/adapters/custom.adapter';
import {
  FakeCustomCrm,
  FakeHubspot,
  FakePipedrive,
  FakeSalesforce,
  HUBSPOT_429,
  hubspotSignatureV3,
  PIPEDRIVE_429,
  startFakeCustomCrm,
  startFakeHubspot,
  startFakePipedrive,
  startFakeSalesforce,
} from '../../../tools/fakes/crm';

/**
 * Each CRM adapter against its local fake (tools/fakes/crm.ts): the provider's endpoints, auth,
 * error bodies and rate limits, through the real SSRF-guarded HTTP client (127.0.0.1 allowlisted).
 * Backoff waits are recorded instead of slept.
 */
const config = loadConfig({ NODE_ENV: 'test', OUTBOUND_ALLOWLIST: '127.0.0.1/32', CRM_MAX_RETRIES: '3', CRM_RETRY_BASE_MS: '100' });
const http = new CrmHttp(new OutboundHttp(config), config);
let slept: number[] = [];
http.useSleep(async (ms) => {
  slept.push(ms);
});

const T0 = new Date('2026-11-20T10:00:00.000Z');
const deal = (id: number, values: Record<string, unknown> = {}): DealSnapshot => ({
  id,
  ref: `LL-${id}`,
  values: { business_name: `Deal ${id} LLC`, funding_amount_requested: 75000, status: 'ready', decision: null, ...values },
  createdAt: T0,
  updatedAt: T0,
});

beforeEach(() => {
  slept = [];
});

describe('Salesforce adapter', () => {
  let sf: FakeSalesforce;
  const clock = new Date('2026-11-26T09:00:00.000Z');
  beforeAll(async () => {
    sf = await startFakeSalesforce({ now: () => clock, pageSize: 1 });
  });
  afterAll(() => sf.close());
  const adapter = () => new SalesforceAdapter(http, sf.credentials);

  it('authenticates with the refresh-token flow and tests the connection on an authenticated endpoint', async () => {
    const message = await adapter().testConnection();
    expect(message).toMatch(/Connected to Salesforce \(\d+\/15000/);
    const token = sf.requests.find((r) => r.path === '/services/oauth2/token')!;
    expect(Object.fromEntries(new URLSearchParams(token.body))).toEqual({
      grant_type: 'refresh_token',
      client_id: sf.credentials.client_id,
      client_secret: sf.credentials.client_secret,
      refresh_token: sf.credentials.refresh_token,
    });
    await expect(new SalesforceAdapter(http, { ...sf.credentials, refresh_token: 'revoked' }).testConnection()).rejects.toThrow(
      /Salesforce authentication failed: invalid_grant/,
    );
  });

  it('upserts the Opportunity by MCA_Deal_Id__c: created, then updated, with mapped fields over the defaults', async () => {
    const a = adapter();
    const first = await a.pushDeal({ deal: deal(1001), externalId: null, fields: { Description: 'health 71' } });
    expect(first).toMatchObject({ created: true });
    const record = sf.records.get(first.externalId)!;
    expect(record.fields).toEqual({
      Name: 'Deal 1001 LLC',
      StageName: 'Proposal/Price Quote',
      CloseDate: '2026-12-20',
      Amount: 75000,
      Description: 'health 71',
      MCA_Deal_Id__c: 'LL-1001',
    });
    const second = await a.pushDeal({ deal: deal(1001, { decision: 'funded' }), externalId: first.externalId, fields: { Amount: 80000 } });
    expect(second).toEqual({ externalId: first.externalId, created: false, modifiedAt: null });
    expect(sf.records.get(first.externalId)!.fields).toMatchObject({ StageName: 'Closed Won', Amount: 80000 });
    expect(sf.requests.filter((r) => r.method === 'PATCH').map((r) => r.path)).toEqual([
      '/services/data/v62.0/sobjects/Opportunity/MCA_Deal_Id__c/LL-1001',
      '/services/data/v62.0/sobjects/Opportunity/MCA_Deal_Id__c/LL-1001',
    ]);
  });

  it('refreshes an expired session once (401 INVALID_SESSION_ID) and retries the call', async () => {
    const a = adapter();
    await a.testConnection();
    const issued = sf.tokensIssued;
    sf.expireTokens();
    await a.pushDeal({ deal: deal(1002), externalId: null, fields: {} });
    expect(sf.tokensIssued).toBe(issued + 1);
  });

  it('retries REQUEST_LIMIT_EXCEEDED (403) and 5xx with exponential backoff, then reports the error', async () => {
    const a = adapter();
    await a.testConnection();
    sf.failNext({ status: 403, body: [{ message: 'TotalRequests Limit exceeded.', errorCode: 'REQUEST_LIMIT_EXCEEDED' }] });
    sf.failNext({ status: 503, body: [{ message: 'busy', errorCode: 'SERVER_UNAVAILABLE' }] });
    await a.pushDeal({ deal: deal(1003), externalId: null, fields: {} });
    expect(slept).toEqual([100, 200]);
    slept = [];
    sf.failNext({ status: 503, body: [{ message: 'down', errorCode: 'SERVER_UNAVAILABLE' }] }, 4);
    await expect(a.testConnection()).rejects.toThrow(/SERVER_UNAVAILABLE: down/);
    expect(slept).toEqual([100, 200, 400]);
  });

  it("surfaces Salesforce's field errors with the field named", async () => {
    const a = adapter();
    const err = await a.pushDeal({ deal: deal(1004), externalId: null, fields: { Name: null } }).catch((e: CrmError) => e);
    expect(err).toMatchObject({ code: 'REQUIRED_FIELD_MISSING', field: 'Name', status: 400 });
    const bad = await a.pushDeal({ deal: deal(1004), externalId: null, fields: { Nonexistent: 1 } }).catch((e: CrmError) => e);
    expect(bad).toMatchObject({ code: 'INVALID_FIELD', message: expect.stringMatching(/No such column 'Nonexistent'/) });
  });

  it('pulls changes after a SystemModstamp with SOQL, following nextRecordsUrl', async () => {
    const a = adapter();
    const since = new Date('2026-11-26T10:00:00.000Z');
    const ids = [];
    for (const id of [2001, 2002, 2003]) ids.push((await a.pushDeal({ deal: deal(id), externalId: null, fields: {} })).externalId);
    sf.touch(ids[0], { Name: 'Old' }, new Date('2026-11-26T09:30:00.000Z'));
    sf.touch(ids[1], { Name: 'Renamed Two' }, new Date('2026-11-26T10:05:00.000Z'));
    sf.touch(ids[2], { Name: 'Renamed Three' }, new Date('2026-11-26T10:06:00.000Z'));
    const pulled = await a.pullChanges(since, ['Name']);
    expect(pulled.records.map((r) => [r.externalId, r.ref, r.fields.Name])).toEqual([
      [ids[1], 'LL-2002', 'Renamed Two'],
      [ids[2], 'LL-2003', 'Renamed Three'],
    ]);
    expect(pulled.until).toEqual(new Date('2026-11-26T10:06:00.000Z'));
    expect(sf.requests.some((r) => r.path.startsWith('/services/data/v62.0/query/'))).toBe(true);
    const q = sf.requests
      .filter((r) => r.path === '/services/data/v62.0/query')
      .pop()!
      .query.get('q');
    expect(q).toBe(
      'SELECT Id,MCA_Deal_Id__c,SystemModstamp,Name FROM Opportunity WHERE SystemModstamp>2026-11-26T10:00:00Z ORDER BY SystemModstamp',
    );
  });

  it('checks OrganizationId on inbound changes when the configuration names the organization', () => {
    const a = new SalesforceAdapter(http, { ...sf.credentials, organization_id: sf.organizationId });
    const req = (org: string) => ({
      method: 'POST',
      uri: '/v1/crm/webhooks',
      headers: {},
      rawBody: '',
      now: clock,
      body: {
        provider: 'salesforce',
        event: 'updated',
        record_id: '006X',
        fields: { OrganizationId: org, Name: 'N' },
        timestamp: clock.toISOString(),
      },
    });
    expect(a.parseWebhook(req(sf.organizationId))).toEqual([expect.objectContaining({ externalId: '006X', fields: { Name: 'N' } })]);
    expect(() => a.parseWebhook(req('00Dother'))).toThrow(CrmSignatureError);
  });
});

describe('HubSpot adapter', () => {
  let hs: FakeHubspot;
  beforeAll(async () => {
    hs = await startFakeHubspot({ pageSize: 1 });
  });
  afterAll(() => hs.close());
  const adapter = (extra: Record<string, string> = {}) => new HubspotAdapter(http, { access_token: hs.token, base_url: hs.url, ...extra });

  it('tests the token on the deals endpoint; a wrong token is INVALID_AUTHENTICATION', async () => {
    expect(await adapter().testConnection()).toMatch(/Connected to HubSpot/);
    expect(hs.requests.pop()).toMatchObject({ method: 'GET', path: '/crm/v3/objects/deals' });
    await expect(adapter({ access_token: 'pat-wrong' }).testConnection()).rejects.toThrow(/HubSpot INVALID_AUTHENTICATION/);
  });

  it('upserts deals by mca_deal_id (batch upsert) with string property values', async () => {
    const a = adapter();
    const first = await a.pushDeal({ deal: deal(3001), externalId: null, fields: { description: 'grade B' } });
    expect(first.created).toBe(true);
    expect(hs.deals.get(first.externalId)!.properties).toEqual({
      dealname: 'Deal 3001 LLC',
      amount: '75000',
      pipeline: 'default',
      dealstage: 'presentationscheduled',
      closedate: '2026-12-20',
      description: 'grade B',
      mca_deal_id: 'LL-3001',
    });
    const again = await a.pushDeal({ deal: deal(3001, { decision: 'decline' }), externalId: first.externalId, fields: {} });
    expect(again).toMatchObject({ externalId: first.externalId, created: false });
    expect(hs.deals.get(first.externalId)!.properties.dealstage).toBe('closedlost');
    expect(JSON.parse(hs.requests.pop()!.body)).toMatchObject({ inputs: [{ id: 'LL-3001', idProperty: 'mca_deal_id' }] });
  });

  it('honours Retry-After on 429 (secondly limit) and succeeds', async () => {
    hs.failNext(HUBSPOT_429);
    hs.failNext({ ...HUBSPOT_429, headers: { 'Retry-After': '3' } });
    await adapter().pushDeal({ deal: deal(3002), externalId: null, fields: {} });
    expect(slept).toEqual([1000, 3000]);
  });

  it('names the property HubSpot refuses', async () => {
    const err = await adapter()
      .pushDeal({ deal: deal(3003), externalId: null, fields: { not_a_property: 'x' } })
      .catch((e: CrmError) => e);
    expect(err).toMatchObject({ code: 'VALIDATION_ERROR', field: 'not_a_property', status: 400 });
  });

  it('pulls changes with the search API on hs_lastmodifieddate, paging with `after`', async () => {
    const a = adapter();
    const since = new Date(Date.now() + 60_000);
    const pushed = [];
    for (const id of [3101, 3102, 3103]) pushed.push((await a.pushDeal({ deal: deal(id), externalId: null, fields: {} })).externalId);
    hs.touch(pushed[1], { dealname: 'Changed' }, new Date(since.getTime() + 1000));
    hs.touch(pushed[2], { dealname: 'Changed too' }, new Date(since.getTime() + 2000));
    const pulled = await a.pullChanges(since, ['dealname']);
    expect(pulled.records.map((r) => [r.externalId, r.ref, r.fields.dealname])).toEqual([
      [pushed[1], 'LL-3102', 'Changed'],
      [pushed[2], 'LL-3103', 'Changed too'],
    ]);
    const searches = hs.requests.filter((r) => r.path.endsWith('/search')).map((r) => JSON.parse(r.body));
    expect(searches.map((s) => s.after)).toEqual(['0', '1']);
    expect(searches[0].filterGroups[0].filters[0]).toEqual({
      propertyName: 'hs_lastmodifieddate',
      operator: 'GT',
      value: String(since.getTime()),
    });
  });

  it('verifies the v3 signature (method + URI + body + timestamp, 5-minute window) on native event arrays', () => {
    const a = adapter({ client_secret: hs.clientSecret });
    const now = new Date('2026-11-26T09:00:00.000Z');
    const uri = 'https://ledgerlens.example/v1/crm/webhooks';
    const rawBody = JSON.stringify([
      {
        eventId: 1,
        objectId: 512,
        propertyName: 'dealname',
        propertyValue: 'From HubSpot',
        occurredAt: now.getTime() - 1000,
        subscriptionType: 'deal.propertyChange',
        changeSource: 'CRM_UI',
      },
      {
        eventId: 2,
        objectId: 512,
        propertyName: 'amount',
        propertyValue: '9',
        occurredAt: now.getTime() - 500,
        subscriptionType: 'deal.propertyChange',
        changeSource: 'INTEGRATION',
      },
    ]);
    const ts = String(now.getTime() - 60_000);
    const req = (headers: Record<string, string>, body = rawBody) => ({
      method: 'POST',
      uri,
      headers,
      rawBody: body,
      body: JSON.parse(body),
      now,
    });
    const good = {
      'x-hubspot-signature-v3': hubspotSignatureV3(hs.clientSecret, 'POST', uri, rawBody, ts),
      'x-hubspot-request-timestamp': ts,
    };
    const changes = a.parseWebhook(req(good));
    expect(changes).toEqual([
      expect.objectContaining({ externalId: '512', fields: { dealname: 'From HubSpot' }, echo: false }),
      expect.objectContaining({ externalId: '512', fields: { amount: '9' }, echo: true }),
    ]);
    expect(() => a.parseWebhook(req(good, rawBody.replace('From HubSpot', 'Tampered')))).toThrow(/does not match/);
    expect(() => a.parseWebhook(req({}))).toThrow(/required/);
    const old = String(now.getTime() - 6 * 60_000);
    expect(() =>
      a.parseWebhook(
        req({
          'x-hubspot-signature-v3': hubspotSignatureV3(hs.clientSecret, 'POST', uri, rawBody, old),
          'x-hubspot-request-timestamp': old,
        }),
      ),
    ).toThrow(/older than 5 minutes/);
  });
});

describe('Pipedrive adapter', () => {
  let pd: FakePipedrive;
  beforeAll(async () => {
    pd = await startFakePipedrive({ pageSize: 1 });
  });
  afterAll(() => pd.close());
  const adapter = (extra: Record<string, string> = {}) =>
    new PipedriveAdapter(http, { api_token: pd.apiToken, base_url: pd.url, ...extra });

  it('tests the token with /v1/users/me (x-api-token header); a wrong token is 401', async () => {
    expect(await adapter().testConnection()).toBe('Connected to Pipedrive (fakeco)');
    expect(pd.requests.pop()!.headers['x-api-token']).toBe(pd.apiToken);
    await expect(adapter({ api_token: 'nope' }).testConnection()).rejects.toThrow(/Pipedrive HTTP 401: unauthorized access/);
  });

  it('creates with POST /api/v2/deals, then PATCHes the linked id; a deal deleted in Pipedrive is created again', async () => {
    const a = adapter({ deal_ref_field: 'a1b2c3d4e5f6a1b2c3d4e5f6a1b2c3d4e5f6a1b2' });
    const first = await a.pushDeal({ deal: deal(4001), externalId: null, fields: { value: '80000.5' } });
    expect(first.created).toBe(true);
    expect(pd.deals.get(Number(first.externalId))).toMatchObject({
      title: 'Deal 4001 LLC',
      value: 80000.5,
      currency: 'USD',
      status: 'open',
      expected_close_date: '2026-12-20',
      custom_fields: { a1b2c3d4e5f6a1b2c3d4e5f6a1b2c3d4e5f6a1b2: 'LL-4001' },
    });
    const second = await a.pushDeal({ deal: deal(4001, { decision: 'funded' }), externalId: first.externalId, fields: {} });
    expect(second).toMatchObject({ externalId: first.externalId, created: false });
    expect(pd.deals.get(Number(first.externalId))!.status).toBe('won');
    expect(pd.requests.filter((r) => r.method === 'PATCH').map((r) => r.path)).toEqual([`/api/v2/deals/${first.externalId}`]);
    pd.deals.delete(Number(first.externalId));
    const third = await a.pushDeal({ deal: deal(4001), externalId: first.externalId, fields: {} });
    expect(third.created).toBe(true);
    expect(third.externalId).not.toBe(first.externalId);
  });

  it('honours Retry-After on 429', async () => {
    pd.failNext(PIPEDRIVE_429);
    await adapter().testConnection();
    expect(slept).toEqual([2000]);
  });

  it('pulls with updated_since (RFC 3339), oldest first, following next_cursor', async () => {
    const a = adapter();
    const since = new Date(Date.now() + 60_000);
    const made = [];
    for (const id of [4101, 4102, 4103]) made.push(Number((await a.pushDeal({ deal: deal(id), externalId: null, fields: {} })).externalId));
    pd.touch(made[2], { title: 'Later' }, new Date(since.getTime() + 2000));
    pd.touch(made[0], { title: 'Earlier' }, new Date(since.getTime() + 1000));
    const pulled = await a.pullChanges(since, ['title', 'value']);
    expect(pulled.records.map((r) => [r.externalId, r.fields])).toEqual([
      [String(made[0]), { title: 'Earlier', value: 75000 }],
      [String(made[2]), { title: 'Later', value: 75000 }],
    ]);
    expect(pd.requests.filter((r) => r.path === '/api/v2/deals' && r.method === 'GET').map((r) => r.query.get('cursor'))).toEqual([
      null,
      '1',
    ]);
  });

  it('reads v2 webhook bodies: the changed fields, and API-made changes as echoes', () => {
    const a = adapter();
    const body = (source: string) => ({
      meta: { action: 'change', entity: 'deal', version: '2.0', entity_id: '42', timestamp: 1764147600, change_source: source },
      data: {
        id: 42,
        title: 'New title',
        value: 5,
        currency: 'USD',
        status: 'open',
        update_time: '2026-11-26T09:00:00Z',
        custom_fields: {},
      },
      previous: { title: 'Old title' },
    });
    const req = (b: unknown) => ({ method: 'POST', uri: '/', headers: {}, rawBody: '', body: b, now: new Date() });
    expect(a.parseWebhook(req(body('app')))).toEqual([
      {
        externalId: '42',
        ref: null,
        event: 'deal.change',
        fields: { title: 'New title' },
        occurredAt: new Date('2026-11-26T09:00:00Z'),
        echo: false,
      },
    ]);
    expect(a.parseWebhook(req(body('api')))[0].echo).toBe(true);
  });
});

describe('custom (generic HTTPS JSON) adapter', () => {
  let custom: FakeCustomCrm;
  beforeAll(async () => {
    custom = await startFakeCustomCrm();
  });
  afterAll(() => custom.close());

  it('tests, upserts by deal reference and pulls changes', async () => {
    const a = new CustomAdapter(http, { api_key: custom.apiKey, base_url: custom.url });
    await a.testConnection();
    expect(await a.pushDeal({ deal: deal(5001), externalId: null, fields: { stage: 'won' } })).toMatchObject({
      externalId: 'c-1',
      created: true,
    });
    expect(custom.records.get('LL-5001')!.fields).toMatchObject({ business_name: 'Deal 5001 LLC', stage: 'won' });
    const since = new Date(Date.now() + 1000);
    custom.touch('LL-5001', { business_name: 'Renamed' }, new Date(since.getTime() + 1));
    expect((await a.pullChanges(since)).records).toEqual([
      expect.objectContaining({ externalId: 'c-1', ref: 'LL-5001', fields: expect.objectContaining({ business_name: 'Renamed' }) }),
    ]);
    await expect(new CustomAdapter(http, { api_key: 'wrong', base_url: custom.url }).testConnection()).rejects.toThrow(
      /HTTP 401: invalid api key/,
    );
  });

  it('goes through the SSRF guard: a private address outside the allowlist is refused before any connection', async () => {
    const a = new CustomAdapter(http, { api_key: 'k', base_url: 'https://10.1.2.3/crm' });
    await expect(a.testConnection()).rejects.toMatchObject({ code: 'BLOCKED', message: expect.stringMatching(/private/) });
  });
});
