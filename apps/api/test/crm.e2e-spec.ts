import { TestApp } from './support/harness';
import { Factories } from './support/factories';
import { Clock } from '../src/platform/clock/clock';
import { Database } from '../src/platform/database/database.service';
import { scopeFields } from '../src/platform/database/tenant';
import { CrmHttp } from '../src/modules/crm/adapters/crm-http';
import { CrmConfig, CrmSyncLog, CrmSyncRun } from '../src/modules/crm/crm.entities';
import { CrmSyncService } from '../src/modules/crm/crm-sync.service';
import { Deal } from '../src/modules/pipeline/entities/deal.entities';
import { recordEvent } from '../src/platform/events/events';
import {
  FakeCustomCrm,
  FakeHubspot,
  FakePipedrive,
  FakeSalesforce,
  HUBSPOT_429,
  hubspotSignatureV3,
  startFakeCustomCrm,
  startFakeHubspot,
  startFakePipedrive,
  startFakeSalesforce,
} from '../../../tools/fakes/crm';

type Org = Awaited<ReturnType<TestApp['newOrg']>>;

/**
 * CRM integration end to end: the server talks to the local provider fakes (127.0.0.1,
 * allowlisted) over real HTTP; configuration in both forms, mappings, synchronous and
 * asynchronous sync, last-write-wins, automatic and interval syncs, retention and inbound webhooks.
 */
describe('CRM integration', () => {
  let app: TestApp;
  let sf: FakeSalesforce;
  let hs: FakeHubspot;
  let pd: FakePipedrive;
  let custom: FakeCustomCrm;
  let org: Org;
  let slept: number[];

  const req = (method: string, path: string, key: string, body?: unknown) => app.request(method, `/v1${path}`, { key, body });
  const hubspotCredentials = (extra: Record<string, string> = {}) => ({ access_token: hs.token, base_url: hs.url, ...extra });
  /** An organization with its live key and data factories. */
  const newOrg = async (name: string) => {
    const f = await Factories.forNewOrg(app, name);
    return { api_key: f.apiKey, f, organization: { id: f.scope.organizationId } };
  };
  const scope = (o: { organization: { id: number } }) => ({ organizationId: o.organization.id, livemode: true });

  beforeAll(async () => {
    app = await TestApp.start({ OUTBOUND_ALLOWLIST: '127.0.0.1/32', CRM_RETRY_BASE_MS: '100' });
    [sf, hs, pd, custom] = await Promise.all([startFakeSalesforce(), startFakeHubspot(), startFakePipedrive(), startFakeCustomCrm()]);
    org = await app.newOrg('CRM Org');
  });
  beforeEach(() => {
    slept = [];
    app.get(CrmHttp).useSleep(async (ms) => {
      slept.push(ms);
    });
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(async () => {
    await app?.close();
    await Promise.all([sf, hs, pd, custom].map((f) => f?.close()));
  });

  describe('Form A: per-provider configuration', () => {
    it('is replaced, read without credentials, tested and deleted; credentials are sealed at rest', async () => {
      const o = await app.newOrg('Config A');
      const key = o.api_key;
      expect((await req('GET', '/crm/config/hubspot', key)).body).toMatchObject({ enabled: false, has_credentials: false });
      const put = await req('PUT', '/crm/config/hubspot', key, {
        credentials: hubspotCredentials({ client_secret: 'hs-client-secret-1' }),
        sync_interval_minutes: 30,
      });
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({
        provider: 'hubspot',
        enabled: true,
        has_credentials: true,
        sync_interval_minutes: 30,
        last_sync_at: null,
        last_sync_status: null,
      });
      expect(JSON.stringify(put.body)).not.toContain(hs.token);
      const got = await req('GET', '/crm/config/hubspot', key);
      expect(got.body).toEqual(put.body);
      const row = await app.get(Database).forScope(scope(o)).findOneOrFail(CrmConfig, { provider: 'hubspot' });
      expect(row.credentialsSealed).toMatch(/^v1\./);
      expect(row.credentialsSealed).not.toContain(hs.token);
      expect(row.credentialsSealed).not.toContain('hs-client-secret-1');

      expect((await req('POST', '/crm/config/hubspot/test', key)).body).toEqual({
        success: true,
        message: expect.stringMatching(/Connected to HubSpot/),
      });
      await req('PUT', '/crm/config/hubspot', key, { credentials: hubspotCredentials({ access_token: 'pat-revoked' }) });
      const failed = await req('POST', '/crm/config/hubspot/test', key);
      expect(failed.body).toEqual({ success: false, message: expect.stringMatching(/INVALID_AUTHENTICATION/) });
      // PUT replaces the whole configuration: an omitted interval is the default, 60.
      expect((await req('GET', '/crm/config/hubspot', key)).body.sync_interval_minutes).toBe(60);

      await req('PUT', '/crm/field-mapping/hubspot', key, {
        mappings: [{ banklyze_field: 'industry', crm_field: 'description', direction: 'both' }],
      });
      expect((await req('DELETE', '/crm/config/hubspot', key)).body).toMatchObject({ status: 'ok', success: true });
      expect((await req('GET', '/crm/config/hubspot', key)).body).toMatchObject({ enabled: false, has_credentials: false });
      await req('PUT', '/crm/config/hubspot', key, { credentials: hubspotCredentials() });
      expect((await req('GET', '/crm/field-mapping/hubspot', key)).body).toEqual({ provider: 'hubspot', mappings: [] });
    });

    it('reads an unconfigured provider as disabled (200, also after DELETE) and takes mappings before credentials', async () => {
      const key = (await app.newOrg('Config unconfigured')).api_key;
      const blank = {
        provider: 'pipedrive',
        enabled: false,
        has_credentials: false,
        sync_interval_minutes: 60,
        last_sync_at: null,
        last_sync_status: null,
      };
      const first = await req('GET', '/crm/config/pipedrive', key);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject(blank);
      const none = await req('GET', '/crm/field-mapping/pipedrive', key);
      expect(none.status).toBe(200);
      expect(none.body).toEqual({ provider: 'pipedrive', mappings: [] });

      // a funder prepares the mappings first; the direction is still validated
      const mapping = { banklyze_field: 'industry', crm_field: 'industry_key', direction: 'to_crm' };
      const prepared = await req('PUT', '/crm/field-mapping/pipedrive', key, { mappings: [mapping] });
      expect(prepared.status).toBe(200);
      expect(prepared.body).toEqual({ provider: 'pipedrive', mappings: [mapping] });
      const sideways = await req('PUT', '/crm/field-mapping/pipedrive', key, { mappings: [{ ...mapping, direction: 'sideways' }] });
      expect(sideways.status).toBe(422);
      expect(sideways.body.errors.map((e: { loc: unknown[] }) => e.loc)).toEqual([['body', 'mappings', 0, 'direction']]);
      expect((await req('GET', '/crm/config/pipedrive', key)).body).toMatchObject(blank);
      expect((await req('POST', '/crm/config/pipedrive/test', key)).body).toMatchObject({ code: 'CRM_NOT_CONFIGURED' });

      // the credentials come later; the prepared mappings stay
      const put = await req('PUT', '/crm/config/pipedrive', key, { credentials: { api_token: pd.apiToken, base_url: pd.url } });
      expect(put.body).toMatchObject({ enabled: true, has_credentials: true });
      expect((await req('GET', '/crm/field-mapping/pipedrive', key)).body.mappings).toEqual([mapping]);

      expect((await req('DELETE', '/crm/config/pipedrive', key)).status).toBe(200);
      const after = await req('GET', '/crm/config/pipedrive', key);
      expect(after.status).toBe(200);
      expect(after.body).toMatchObject(blank);
      expect((await req('GET', '/crm/field-mapping/pipedrive', key)).body).toEqual({ provider: 'pipedrive', mappings: [] });
      expect((await req('DELETE', '/crm/config/pipedrive', key)).body).toMatchObject({ code: 'CRM_NOT_CONFIGURED' });
    });

    it.each([
      ['an interval under 15 minutes', { credentials: { access_token: 'x' }, sync_interval_minutes: 14 }, 'sync_interval_minutes'],
      ['an interval over 1440 minutes', { credentials: { access_token: 'x' }, sync_interval_minutes: 1441 }, 'sync_interval_minutes'],
      ['missing credentials', { credentials: {} }, 'credentials.access_token'],
      ['an unknown credential', { credentials: { access_token: 'x', password: 'y' } }, 'credentials.password'],
      ['a private base URL', { credentials: { access_token: 'x', base_url: 'https://10.0.0.9/' } }, 'credentials.base_url'],
      // `constructor` in a nested object made class-transformer throw (500), found by the fuzzer
      ['a reserved key', { credentials: { access_token: 'x', constructor: 'x' } }, 'credentials.constructor'],
    ])('refuses %s (422)', async (_label, body, field) => {
      const res = await req('PUT', '/crm/config/hubspot', org.test_api_key, body);
      expect(res.status).toBe(422);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    });

    it('serves the three providers only; custom is configured through the single form', async () => {
      expect((await req('GET', '/crm/config/custom', org.api_key)).status).toBe(404);
      expect((await req('PUT', '/crm/config/zoho', org.api_key, { credentials: {} })).status).toBe(404);
    });
  });

  describe('Form B: single configuration', () => {
    it('is validated by a test call before saving: bad credentials save nothing', async () => {
      const o = await app.newOrg('Config B');
      const bad = await req('PUT', '/crm/config', o.api_key, { provider: 'pipedrive', api_key: 'wrong', base_url: pd.url });
      expect(bad.status).toBe(422);
      expect(bad.body).toMatchObject({ code: 'CRM_CONNECTION_FAILED', detail: expect.stringMatching(/unauthorized access/) });
      expect((await req('GET', '/crm/config', o.api_key)).status).toBe(404);
      const calls = pd.requests.length;
      const good = await req('PUT', '/crm/config', o.api_key, { provider: 'pipedrive', api_key: pd.apiToken, base_url: pd.url });
      expect(pd.requests.slice(calls).map((r) => r.path)).toEqual(['/v1/users/me']);
      expect(good.status).toBe(200);
      expect(good.body.data).toMatchObject({ provider: 'pipedrive', base_url: pd.url, enabled: true, last_sync_at: null });
      expect(JSON.stringify(good.body)).not.toContain(pd.apiToken);
      expect((await req('GET', '/crm/config', o.api_key)).body).toEqual(good.body);
      // The same configuration is visible per provider (Form A), and custom is accepted here.
      expect((await req('GET', '/crm/config/pipedrive', o.api_key)).body).toMatchObject({
        has_credentials: true,
        sync_interval_minutes: 60,
      });
      const c = await req('PUT', '/crm/config', o.api_key, { provider: 'custom', api_key: custom.apiKey, base_url: custom.url });
      expect(c.body.data).toMatchObject({ provider: 'custom', base_url: custom.url });
      expect((await req('GET', '/crm/config', o.api_key)).body.data.provider).toBe('custom');
      const sfPut = await req('PUT', '/crm/config', o.api_key, {
        provider: 'salesforce',
        api_key: sf.credentials.refresh_token,
        base_url: sf.url,
        client_id: sf.credentials.client_id,
        client_secret: sf.credentials.client_secret,
      });
      expect(sfPut.status).toBe(200);
    });

    it('field mappings: a JSON array in Form B names, crm_field in object.field form; full replacement', async () => {
      const o = await app.newOrg('Mappings B');
      await req('PUT', '/crm/config', o.api_key, { provider: 'hubspot', api_key: hs.token, base_url: hs.url });
      const put = await req('PUT', '/crm/field-mappings', o.api_key, [
        { banklyze_field: 'business_name', crm_field: 'deals.dealname', direction: 'bidirectional' },
        { banklyze_field: 'health_score', crm_field: 'deals.mca_health_score', direction: 'banklyze_to_crm' },
      ]);
      expect(put.status).toBe(200);
      expect(put.body.data).toEqual([
        { banklyze_field: 'business_name', crm_field: 'deals.dealname', direction: 'bidirectional' },
        { banklyze_field: 'health_score', crm_field: 'deals.mca_health_score', direction: 'banklyze_to_crm' },
      ]);
      expect((await req('GET', '/crm/field-mapping/hubspot', o.api_key)).body.mappings).toEqual([
        { banklyze_field: 'business_name', crm_field: 'dealname', direction: 'both' },
        { banklyze_field: 'health_score', crm_field: 'mca_health_score', direction: 'to_crm' },
      ]);
      await req('PUT', '/crm/field-mappings', o.api_key, [
        { banklyze_field: 'industry', crm_field: 'description', direction: 'crm_to_banklyze' },
      ]);
      expect((await req('GET', '/crm/field-mappings', o.api_key)).body.data).toEqual([
        { banklyze_field: 'industry', crm_field: 'deals.description', direction: 'crm_to_banklyze' },
      ]);
    });
  });

  describe('field mappings (Form A)', () => {
    it('replace the whole set; an empty array clears; invalid entries are 422 and change nothing', async () => {
      const key = org.api_key;
      await req('PUT', '/crm/config/salesforce', key, { credentials: sf.credentials });
      const first = await req('PUT', '/crm/field-mapping/salesforce', key, {
        mappings: [
          { banklyze_field: 'funding_amount_requested', crm_field: 'Amount', direction: 'both' },
          { banklyze_field: 'health_grade', crm_field: 'Opportunity.Grade__c', direction: 'to_crm' },
        ],
      });
      expect(first.body.mappings).toEqual([
        { banklyze_field: 'funding_amount_requested', crm_field: 'Amount', direction: 'both' },
        { banklyze_field: 'health_grade', crm_field: 'Grade__c', direction: 'to_crm' },
      ]);
      const bad = await req('PUT', '/crm/field-mapping/salesforce', key, {
        mappings: [
          { banklyze_field: 'health_score', crm_field: 'Score__c', direction: 'from_crm' },
          { banklyze_field: 'nope', crm_field: 'X', direction: 'sideways' },
        ],
      });
      expect(bad.status).toBe(422);
      expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual([
        'mappings.0.direction',
        'mappings.1.banklyze_field',
        'mappings.1.direction',
      ]);
      expect((await req('GET', '/crm/field-mapping/salesforce', key)).body.mappings).toHaveLength(2);
      const replaced = await req('PUT', '/crm/field-mapping/salesforce', key, {
        mappings: [{ banklyze_field: 'industry', crm_field: 'Description', direction: 'to_crm' }],
      });
      expect(replaced.body.mappings).toEqual([{ banklyze_field: 'industry', crm_field: 'Description', direction: 'to_crm' }]);
      expect((await req('PUT', '/crm/field-mapping/salesforce', key, { mappings: [] })).body.mappings).toEqual([]);
      await req('DELETE', '/crm/config/salesforce', key);
    });
  });

  describe('sync', () => {
    it('POST /crm/sync {deal_id} pushes synchronously to every enabled provider and logs each push', async () => {
      const o = await newOrg('Sync A');
      const key = o.api_key;
      await req('PUT', '/crm/config/hubspot', key, { credentials: hubspotCredentials() });
      await req('PUT', '/crm/config/pipedrive', key, { credentials: { api_token: pd.apiToken, base_url: pd.url } });
      await req('PUT', '/crm/config/salesforce', key, { credentials: sf.credentials, enabled: false });
      await req('PUT', '/crm/field-mapping/hubspot', key, {
        mappings: [{ banklyze_field: 'industry', crm_field: 'description', direction: 'to_crm' }],
      });
      const deal = await o.f.deal({ businessName: 'Pushed Bakery LLC', industry: 'bakery', fundingAmountRequested: 42000 });
      const res = await req('POST', '/crm/sync', key, { deal_id: deal.id });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'success', error: null, deal_id: deal.id });
      expect(res.body.results.map((r: { provider: string; status: string }) => [r.provider, r.status])).toEqual([
        ['hubspot', 'success'],
        ['pipedrive', 'success'],
      ]);
      const hsDeal = hs.byExternalId(`LL-${deal.id}`)!;
      expect(res.body.external_id).toBe(hsDeal.id);
      expect(hsDeal.properties).toMatchObject({ dealname: 'Pushed Bakery LLC', amount: '42000', description: 'bakery' });
      expect(pd.deals.get(Number(res.body.results[1].external_id))).toMatchObject({ title: 'Pushed Bakery LLC', value: 42000 });

      // A CRM error is reported per provider, not thrown, and logged.
      pd.failNext({ status: 400, body: { success: false, error: 'Validation failed: stage_id does not exist' } });
      const partial = await req('POST', '/crm/sync', key, { deal_id: deal.id });
      expect(partial.body).toMatchObject({
        status: 'error',
        error: expect.stringMatching(/^pipedrive: Pipedrive HTTP 400: Validation failed/),
      });

      const log = await req('GET', `/crm/sync-log?deal_id=${deal.id}`, key);
      expect(log.body.meta.total).toBe(4);
      expect(log.body.data[0]).toMatchObject({ deal_id: deal.id, direction: 'to_crm', synced_at: expect.any(String) });
      const errors = await req('GET', '/crm/sync-log?status=error&provider=pipedrive', key);
      expect(errors.body.data).toEqual([
        expect.objectContaining({ provider: 'pipedrive', status: 'error', error: expect.stringMatching(/stage_id/) }),
      ]);
      expect((await req('GET', '/crm/config/pipedrive', key)).body).toMatchObject({
        last_sync_status: 'error',
        last_sync_at: expect.any(String),
      });

      expect((await req('POST', '/crm/sync', key, { deal_id: 999999 })).status).toBe(404);
      expect((await req('POST', '/crm/sync', key, { deal_id: 'x' })).status).toBe(422);
      expect((await req('POST', '/crm/sync', org.api_key, { deal_id: deal.id })).status).toBe(404);
    });

    it('retries a 429 from the CRM honouring Retry-After', async () => {
      const o = await newOrg('Rate limited');
      await req('PUT', '/crm/config/hubspot', o.api_key, { credentials: hubspotCredentials() });
      const deal = await o.f.deal();
      hs.failNext(HUBSPOT_429);
      const res = await req('POST', '/crm/sync', o.api_key, { deal_id: deal.id });
      expect(res.body.status).toBe('success');
      expect(slept).toEqual([1000]);
    });

    it('POST /crm/sync without a body runs a full sync asynchronously (202) with counts and details per record', async () => {
      const o = await newOrg('Full sync');
      const key = o.api_key;
      await req('PUT', '/crm/config/hubspot', key, { credentials: hubspotCredentials() });
      await req('PUT', '/crm/field-mapping/hubspot', key, {
        mappings: [{ banklyze_field: 'industry', crm_field: 'bogus_property', direction: 'to_crm' }],
      });
      const good = await o.f.deal({ businessName: 'Good One', industry: null });
      await o.f.deal({ businessName: 'Bad One', industry: 'x' });
      // HubSpot refuses an unknown property even when null? No: a null value is still a property; both fail then.
      await req('PUT', '/crm/field-mapping/hubspot', key, {
        mappings: [{ banklyze_field: 'industry', crm_field: 'description', direction: 'to_crm' }],
      });
      hs.failNext({
        status: 400,
        body: {
          status: 'error',
          message: 'Property values were not valid',
          category: 'VALIDATION_ERROR',
          errors: [{ in: 'description', code: 'INVALID' }],
        },
      });
      const started = await app.request('POST', '/v1/crm/sync', { key });
      expect(started.status).toBe(202);
      expect(started.body.data).toMatchObject({
        status: 'running',
        direction: 'bidirectional',
        records_queued: 2,
        sync_id: expect.any(Number),
      });
      await app.settle();
      const run = await req('GET', `/crm/sync/logs/${started.body.data.sync_id}`, key);
      expect(run.body.data).toMatchObject({
        id: started.body.data.sync_id,
        status: 'completed',
        trigger: 'manual',
        records_synced: 1,
        records_failed: 1,
        details: {
          created_in_crm: 1,
          updated_in_crm: 0,
          errors: [
            {
              record_id: String(good.id),
              field: 'description',
              direction: 'banklyze_to_crm',
              error: expect.stringMatching(/VALIDATION_ERROR/),
            },
          ],
        },
      });
      expect(run.body.data.completed_at).not.toBeNull();
      const list = await req('GET', '/crm/sync/logs?status=completed', key);
      expect(list.body.data.map((r: { id: number }) => r.id)).toContain(started.body.data.sync_id);
      expect((await req('GET', '/crm/sync/logs?status=failed', key)).body.meta.total).toBe(0);
      // A second full run retries the failed deal only (the other is unchanged since it was pushed).
      const again = await app.request('POST', '/v1/crm/sync', { key });
      await app.settle();
      expect((await req('GET', `/crm/sync/logs/${again.body.data.sync_id}`, key)).body.data).toMatchObject({
        records_synced: 1,
        records_failed: 0,
        details: { created_in_crm: 1, skipped: 1 },
      });
    });

    it('bidirectional mappings: last write wins between the CRM and the deal', async () => {
      const o = await newOrg('LWW');
      const key = o.api_key;
      await req('PUT', '/crm/config/hubspot', key, { credentials: hubspotCredentials() });
      await req('PUT', '/crm/field-mapping/hubspot', key, {
        mappings: [
          { banklyze_field: 'business_name', crm_field: 'dealname', direction: 'both' },
          { banklyze_field: 'industry', crm_field: 'description', direction: 'to_crm' },
        ],
      });
      const deal = await o.f.deal({ businessName: 'Original Name', industry: 'retail' });
      await req('POST', '/crm/sync', key, { deal_id: deal.id });
      const remote = hs.byExternalId(`LL-${deal.id}`)!;
      // The CRM changes later than the deal: the CRM wins for the mapped inbound field only.
      hs.touch(remote.id, { dealname: 'Renamed In HubSpot', description: 'ignored: to_crm only' }, new Date(Date.now() + 5_000));
      await app.request('POST', '/v1/crm/sync', { key });
      await app.settle();
      const after = (await req('GET', `/deals/${deal.id}`, key)).body;
      expect(after).toMatchObject({ business_name: 'Renamed In HubSpot', industry: 'retail' });
      const fromCrm = await req('GET', `/crm/sync-log?deal_id=${deal.id}`, key);
      expect(fromCrm.body.data.map((l: { direction: string }) => l.direction)).toContain('from_crm');
      // The deal changes later than the CRM: the deal wins, and the CRM gets it on the next sync.
      hs.touch(remote.id, { dealname: 'Older HubSpot Edit' }, new Date(Date.now() - 60_000));
      await req('PATCH', `/deals/${deal.id}`, key, { business_name: 'Edited Here' });
      await app.request('POST', '/v1/crm/sync', { key });
      await app.settle();
      expect((await req('GET', `/deals/${deal.id}`, key)).body.business_name).toBe('Edited Here');
      expect(hs.deals.get(remote.id)!.properties.dealname).toBe('Edited Here');
    });

    it('runs automatically after deal.decision (domain event from the outbox)', async () => {
      const o = await newOrg('Auto');
      await req('PUT', '/crm/config/pipedrive', o.api_key, { credentials: { api_token: pd.apiToken, base_url: pd.url } });
      const deal = await o.f.deal({ businessName: 'Decided Co' });
      await req('POST', `/deals/${deal.id}/decision`, o.api_key, { decision: 'funded' });
      await app.settle();
      await app.settle();
      const log = await req('GET', `/crm/sync-log?deal_id=${deal.id}`, o.api_key);
      expect(log.body.data).toEqual([expect.objectContaining({ provider: 'pipedrive', status: 'success', direction: 'to_crm' })]);
      expect(pd.deals.get(Number(log.body.data[0].external_id))).toMatchObject({ title: 'Decided Co', status: 'won' });
      const runs = await req('GET', '/crm/sync/logs', o.api_key);
      expect(runs.body.data[0]).toMatchObject({ trigger: 'event', deal_id: deal.id, status: 'completed', records_synced: 1 });
    });

    it.each(['deal.ready', 'recommendation.generated'] as const)('runs automatically after %s; other events do not push', async (type) => {
      const o = await newOrg(`Auto ${type}`);
      await req('PUT', '/crm/config/hubspot', o.api_key, { credentials: hubspotCredentials() });
      const deal = await o.f.deal({ businessName: `After ${type}` });
      const em = app.get(Database).forScope(scope(o));
      recordEvent(em, scope(o), 'deal.updated', { dealId: deal.id, data: { deal_id: deal.id } });
      await em.flush();
      await app.settle();
      await app.settle();
      expect((await req('GET', `/crm/sync-log?deal_id=${deal.id}`, o.api_key)).body.meta.total).toBe(0);
      recordEvent(em, scope(o), type, { dealId: deal.id, data: { deal_id: deal.id } });
      await em.flush();
      await app.settle();
      await app.settle();
      expect((await req('GET', `/crm/sync-log?deal_id=${deal.id}`, o.api_key)).body.data).toEqual([
        expect.objectContaining({ provider: 'hubspot', status: 'success', direction: 'to_crm' }),
      ]);
      expect(hs.byExternalId(`LL-${deal.id}`)!.properties.dealname).toBe(`After ${type}`);
    });

    it("runs on each provider's interval: the sweep claims a due configuration once", async () => {
      const o = await newOrg('Interval');
      const put = await req('PUT', '/crm/config/hubspot', o.api_key, { credentials: hubspotCredentials(), sync_interval_minutes: 15 });
      const next = new Date(put.body.next_sync_at).getTime();
      await o.f.deal({ businessName: 'Interval Co' });
      const sync = app.get(CrmSyncService);
      const clock = jest.spyOn(app.get(Clock), 'now');
      clock.mockImplementation(() => new Date(next - 1000));
      await sync.sweep();
      await app.settle();
      expect((await req('GET', '/crm/sync/logs', o.api_key)).body.meta.total).toBe(0);
      clock.mockImplementation(() => new Date(next + 1000));
      await sync.sweep();
      await sync.sweep();
      await app.settle();
      const runs = (await req('GET', '/crm/sync/logs', o.api_key)).body;
      expect(runs.data).toEqual([
        expect.objectContaining({ trigger: 'interval', provider: 'hubspot', status: 'completed', records_synced: 1 }),
      ]);
      expect((await req('GET', '/crm/config/hubspot', o.api_key)).body.next_sync_at).toBe(
        new Date(next + 1000 + 15 * 60_000).toISOString(),
      );
    });

    it('keeps the sync log and runs 90 days, then purges them', async () => {
      const o = await newOrg('Retention');
      const deal = await o.f.deal();
      const em = app.get(Database).forScope(scope(o));
      const now = Date.now();
      const day = 86_400_000;
      for (const age of [89, 91]) {
        em.create(CrmSyncLog, {
          ...scopeFields(scope(o)),
          dealId: deal.id,
          provider: 'hubspot',
          direction: 'to_crm',
          status: 'success',
          syncedAt: new Date(now - age * day),
        });
        em.create(CrmSyncRun, {
          ...scopeFields(scope(o)),
          status: 'completed',
          direction: 'both',
          trigger: 'manual',
          recordsQueued: 0,
          details: { created_in_crm: 0, updated_in_crm: 0, created_in_banklyze: 0, updated_in_banklyze: 0, skipped: 0, errors: [] },
          startedAt: new Date(now - age * day),
        });
      }
      await em.flush();
      jest.spyOn(app.get(Clock), 'now').mockImplementation(() => new Date(now));
      await app.get(CrmSyncService).purge();
      expect((await req('GET', '/crm/sync-log', o.api_key)).body.meta.total).toBe(1);
      expect((await req('GET', '/crm/sync/logs', o.api_key)).body.data).toEqual([
        expect.objectContaining({ started_at: new Date(now - 89 * day).toISOString() }),
      ]);
    });
  });

  describe('inbound webhooks', () => {
    it('map changed fields to the deal (last write wins) and start a partial sync to the other providers', async () => {
      const o = await newOrg('Inbound');
      const key = o.api_key;
      await req('PUT', '/crm/config/pipedrive', key, { credentials: { api_token: pd.apiToken, base_url: pd.url } });
      await req('PUT', '/crm/config/hubspot', key, { credentials: hubspotCredentials() });
      await req('PUT', '/crm/field-mapping/pipedrive', key, {
        mappings: [
          { banklyze_field: 'business_name', crm_field: 'title', direction: 'both' },
          { banklyze_field: 'funding_amount_requested', crm_field: 'value', direction: 'from_crm' },
        ],
      });
      const deal = await o.f.deal({ businessName: 'Before Webhook', fundingAmountRequested: 10000 });
      const pushed = await req('POST', '/crm/sync', key, { deal_id: deal.id });
      const pdId = pushed.body.results.find((r: { provider: string }) => r.provider === 'pipedrive').external_id;
      const body = (fields: Record<string, unknown>, timestamp: string) => ({
        provider: 'pipedrive',
        event: 'deal.updated',
        record_id: pdId,
        fields,
        timestamp,
      });

      const res = await req(
        'POST',
        '/crm/webhooks',
        key,
        body({ title: 'After Webhook', value: 12500, status: 'open' }, new Date(Date.now() + 1000).toISOString()),
      );
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        received: true,
        deal_id: deal.id,
        action: 'updated',
        fields_mapped: ['business_name', 'funding_amount_requested'],
        sync_id: expect.any(Number),
      });
      expect((await req('GET', `/deals/${deal.id}`, key)).body).toMatchObject({
        business_name: 'After Webhook',
        funding_amount_requested: 12500,
      });
      await app.settle();
      const run = (await req('GET', `/crm/sync/logs/${res.body.data.sync_id}`, key)).body.data;
      expect(run).toMatchObject({ trigger: 'webhook', deal_id: deal.id, status: 'completed', provider: 'hubspot', records_synced: 1 });
      expect(hs.byExternalId(`LL-${deal.id}`)!.properties.dealname).toBe('After Webhook');

      const stale = await req('POST', '/crm/webhooks', key, body({ title: 'Stale' }, new Date(Date.now() - 3_600_000).toISOString()));
      expect(stale.body.data).toMatchObject({ action: 'skipped', deal_id: deal.id, fields_mapped: [], sync_id: null });
      const unknown = await req('POST', '/crm/webhooks', key, { ...body({ title: 'x' }, new Date().toISOString()), record_id: '999999' });
      expect(unknown.body.data).toMatchObject({ action: 'ignored', deal_id: null });
      const invalid = await req('POST', '/crm/webhooks', key, { provider: 'pipedrive', record_id: pdId });
      expect(invalid.status).toBe(422);
      expect(invalid.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['event', 'fields', 'timestamp']);
      expect((await req('POST', '/crm/webhooks', key, { ...body({}, new Date().toISOString()), provider: 'salesforce' })).status).toBe(404);
    });

    it("check HubSpot's v3 signature on native event arrays when the client secret is configured", async () => {
      const o = await newOrg('Signed');
      const key = o.api_key;
      await req('PUT', '/crm/config/hubspot', key, { credentials: hubspotCredentials({ client_secret: hs.clientSecret }) });
      await req('PUT', '/crm/field-mapping/hubspot', key, {
        mappings: [{ banklyze_field: 'owner_name', crm_field: 'hubspot_owner_id', direction: 'from_crm' }],
      });
      const deal = await o.f.deal();
      const pushed = await req('POST', '/crm/sync', key, { deal_id: deal.id });
      const rawBody = JSON.stringify([
        {
          eventId: 7,
          objectId: Number(pushed.body.external_id),
          propertyName: 'hubspot_owner_id',
          propertyValue: 'Jane Owner',
          occurredAt: Date.now() + 1000,
          subscriptionType: 'deal.propertyChange',
          changeSource: 'CRM_UI',
        },
      ]);
      const ts = String(Date.now());
      const uri = `${app.running.config.publicUrl}/v1/crm/webhooks`;
      const send = (signature: string) =>
        app.request('POST', '/v1/crm/webhooks', {
          key,
          rawBody,
          headers: { 'Content-Type': 'application/json', 'X-HubSpot-Signature-v3': signature, 'X-HubSpot-Request-Timestamp': ts },
        });
      const forged = await send(hubspotSignatureV3('not-the-secret', 'POST', uri, rawBody, ts));
      expect(forged.status).toBe(401);
      expect(forged.body.code).toBe('CRM_SIGNATURE_INVALID');
      const ok = await send(hubspotSignatureV3(hs.clientSecret, 'POST', uri, rawBody, ts));
      expect(ok.status).toBe(200);
      expect(ok.body.data).toMatchObject({ action: 'updated', deal_id: deal.id, fields_mapped: ['owner_name'] });
      expect((await req('GET', `/deals/${deal.id}`, key)).body.owner_name).toBe('Jane Owner');
      expect(await app.get(Database).forScope(scope(o)).findOneOrFail(Deal, { id: deal.id })).toMatchObject({ ownerName: 'Jane Owner' });
    });
  });
});
