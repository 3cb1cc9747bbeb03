import { DEFAULT_RULESET } from '@ledgerlens/underwriting';
import { TestApp } from './support/harness';
import { Database } from '../src/platform/database/database.service';
import { DomainEventRecord } from '../src/platform/events/outbox.entity';

const flat = (over: Record<string, unknown> = {}) => ({
  name: 'Conservative',
  description: 'Cash position first',
  weight_revenue: 15,
  weight_balance_health: 25,
  weight_nsf_overdraft: 20,
  weight_deposit_frequency: 10,
  weight_revenue_trend: 5,
  weight_debt_service: 10,
  weight_transaction_screening: 5,
  weight_health_score: 5,
  weight_cross_doc: 5,
  grade_a_min: 85,
  grade_b_min: 70,
  grade_c_min: 55,
  grade_d_min: 40,
  approve_threshold: 70,
  max_advance_multiplier: 0.8,
  cfcr_target: 1.5,
  ...over,
});

const factorList = (over: Record<string, unknown> = {}) => ({
  name: 'Factor list',
  factors: [
    { name: 'revenue_stability', weight: 0.3, threshold: 40 },
    { name: 'average_daily_balance', weight: 0.25, threshold: 30 },
    { name: 'nsf_frequency', weight: 0.25, threshold: 50 },
    { name: 'high_risk_transactions', weight: 0.2, threshold: 0 },
  ],
  approval_threshold: 70,
  decline_threshold: 40,
  ...over,
});

type Org = Awaited<ReturnType<TestApp['newOrg']>>;
const locs = (body: { errors: { loc: unknown[] }[] }) => body.errors.map((e) => e.loc);

describe('rulesets', () => {
  let app: TestApp;
  let org: Org;
  let key: string;

  beforeAll(async () => {
    app = await TestApp.start();
    org = await app.newOrg('Rulesets Org');
    key = org.api_key;
  });
  afterAll(() => app?.close());

  describe('the default ruleset', () => {
    it('exists from the start with the documented values', async () => {
      const res = await app.request('GET', '/v1/rulesets', { key });
      expect(res.status).toBe(200);
      expect(res.body.meta).toEqual({ page: 1, per_page: 25, total: 1, total_pages: 1 });
      const { name, description, ...values } = DEFAULT_RULESET;
      expect(res.body.data[0]).toMatchObject({
        name,
        description,
        kind: 'flat',
        is_default: true,
        mode: 'live',
        factors: null,
        approval_threshold: null,
        ...values,
      });
    });

    it('is created once even when the first requests of an organization race', async () => {
      const fresh = await app.newOrg('Racing Org');
      const results = await Promise.all(Array.from({ length: 6 }, () => app.request('GET', '/v1/rulesets', { key: fresh.api_key })));
      for (const res of results) expect(res.body.meta.total).toBe(1);
      expect(new Set(results.map((r) => r.body.data[0].id)).size).toBe(1);
    });

    it('is separate for live and test data', async () => {
      const live = await app.request('GET', '/v1/rulesets', { key });
      const test = await app.request('GET', '/v1/rulesets', { key: org.test_api_key });
      expect(test.body.data).toHaveLength(1);
      expect(test.body.data[0]).toMatchObject({ is_default: true, mode: 'test' });
      expect(test.body.data[0].id).not.toBe(live.body.data[0].id);
    });

    it('cannot be deleted (409)', async () => {
      const def = (await app.request('GET', '/v1/rulesets', { key })).body.data[0];
      const res = await app.request('DELETE', `/v1/rulesets/${def.id}`, { key });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('CONFLICT');
      expect(res.body.detail).toMatch(/default/);
      expect((await app.request('GET', `/v1/rulesets/${def.id}`, { key })).status).toBe(200);
    });

    it('is unique per organization and mode in the database itself (partial unique index)', async () => {
      const em = app.get(Database).system();
      await expect(
        em.execute(
          `insert into rulesets (organization_id, livemode, name, kind, definition, is_default, created_at, updated_at) values (?, true, 'Second default', 'flat', '{}', true, now(), now())`,
          [org.organization.id],
        ),
      ).rejects.toThrow(/rulesets_one_default/);
    });
  });

  describe('create', () => {
    it('creates a flat ruleset (Form A): 201, not default, factor fields null', async () => {
      const res = await app.request('POST', '/v1/rulesets', { key, body: flat({ name: 'Flat A' }) });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        ...flat({ name: 'Flat A' }),
        kind: 'flat',
        is_default: false,
        factors: null,
        approval_threshold: null,
        decline_threshold: null,
      });
      expect(typeof res.body.id).toBe('number');
    });

    it('creates a factor-list ruleset (Form B): 201, flat fields null', async () => {
      const res = await app.request('POST', '/v1/rulesets', { key, body: factorList({ name: 'Factors B' }) });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        ...factorList({ name: 'Factors B' }),
        kind: 'factors',
        is_default: false,
        description: null,
        weight_revenue: null,
        approve_threshold: null,
      });
    });

    it('records ruleset.created in the outbox', async () => {
      const res = await app.request('POST', '/v1/rulesets', { key, body: flat({ name: 'Evented' }) });
      const em = app.get(Database).system();
      const events = await em.find(DomainEventRecord, { type: 'ruleset.created', organizationId: org.organization.id });
      expect(events.map((e) => e.data.ruleset_id)).toContain(res.body.id);
    });

    it('rejects flat weights that do not sum to 100 with 422 WEIGHT_SUM_INVALID', async () => {
      const res = await app.request('POST', '/v1/rulesets', { key, body: flat({ name: 'Bad sum', weight_revenue: 10 }) });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('WEIGHT_SUM_INVALID');
      expect(res.body.detail).toMatch(/sum to exactly 100 \(they sum to 95\)/);
      expect(locs(res.body)).toEqual([['body', 'weights']]);
    });

    it('rejects factor weights that do not sum to 1.0 with 422 WEIGHT_SUM_INVALID', async () => {
      const body = factorList({ name: 'Bad factors' });
      (body.factors as { weight: number }[])[0].weight = 0.5;
      const res = await app.request('POST', '/v1/rulesets', { key, body });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('WEIGHT_SUM_INVALID');
      expect(locs(res.body)).toEqual([['body', 'factors']]);
    });

    it.each<[string, Record<string, unknown>, unknown[]]>([
      ['missing name', flat({ name: undefined }), ['body', 'name']],
      ['blank name', flat({ name: '   ' }), ['body', 'name']],
      ['long name', flat({ name: 'x'.repeat(201) }), ['body', 'name']],
      ['long description', flat({ description: 'x'.repeat(1001) }), ['body', 'description']],
      ['string weight', flat({ weight_revenue: '15' }), ['body', 'weight_revenue']],
      ['fractional weight', flat({ weight_revenue: 15.5 }), ['body', 'weight_revenue']],
      ['missing weight', flat({ weight_cross_doc: undefined }), ['body', 'weight_cross_doc']],
      ['grade minima not descending', flat({ grade_b_min: 90 }), ['body', 'grade_b_min']],
      ['approve_threshold above 100', flat({ approve_threshold: 101 }), ['body', 'approve_threshold']],
      ['multiplier 0', flat({ max_advance_multiplier: 0 }), ['body', 'max_advance_multiplier']],
      ['negative cfcr target', flat({ cfcr_target: -1 }), ['body', 'cfcr_target']],
      ['holdback above 1', flat({ max_total_holdback: 1.2 }), ['body', 'max_total_holdback']],
      ['factor rate below 1', factorList({ factor_rate: 0.9 }), ['body', 'factor_rate']],
      ['term of 0 months', flat({ term_months: 0 }), ['body', 'term_months']],
      ['unknown factor', factorList({ factors: [{ name: 'vibes', weight: 1, threshold: 10 }] }), ['body', 'factors', 0, 'name']],
      [
        'factor threshold above 100',
        factorList({ factors: [{ name: 'negative_days', weight: 1, threshold: 150 }] }),
        ['body', 'factors', 0, 'threshold'],
      ],
      [
        'factor weight above 1',
        factorList({ factors: [{ name: 'negative_days', weight: 2, threshold: 10 }] }),
        ['body', 'factors', 0, 'weight'],
      ],
      ['empty factor list', factorList({ factors: [] }), ['body', 'factors']],
      ['decline not below approval', factorList({ decline_threshold: 80 }), ['body', 'decline_threshold']],
      ['missing approval threshold', factorList({ approval_threshold: undefined }), ['body', 'approval_threshold']],
      ['both kinds at once', { ...flat(), factors: factorList().factors }, ['body', 'factors']],
    ])('rejects %s with 422 VALIDATION_ERROR at the field', async (_, body, loc) => {
      const res = await app.request('POST', '/v1/rulesets', { key, body });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.detail).toBe('Validation failed');
      expect(locs(res.body)).toContainEqual(loc);
      const entry = res.body.errors[0];
      expect(entry).toEqual({ loc: entry.loc, msg: entry.msg, type: entry.type, field: entry.field, message: entry.msg });
    });

    it('affordability terms: optional on either kind, served (null when unset), cleared by null, kept across a change of kind', async () => {
      const created = await app.request('POST', '/v1/rulesets', {
        key,
        body: flat({ name: 'Tight holdback', max_total_holdback: 0.15, factor_rate: 1.4, term_months: 8 }),
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ max_total_holdback: 0.15, factor_rate: 1.4, term_months: 8 });
      const plain = await app.request('POST', '/v1/rulesets', { key, body: factorList({ name: 'No terms' }) });
      expect(plain.body).toMatchObject({ max_total_holdback: null, factor_rate: null, term_months: null });
      const patched = await app.request('PATCH', `/v1/rulesets/${created.body.id}`, {
        key,
        body: { factor_rate: null, approve_threshold: 60 },
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ max_total_holdback: 0.15, factor_rate: null, term_months: 8, approve_threshold: 60 });
      // converted to a factor list, the terms stay
      const converted = await app.request('PATCH', `/v1/rulesets/${created.body.id}`, {
        key,
        body: { factors: factorList().factors, approval_threshold: 70, decline_threshold: 40 },
      });
      expect(converted.body).toMatchObject({ kind: 'factors', max_total_holdback: 0.15, term_months: 8 });
    });

    it('rejects a duplicate name (case-insensitive) with 409 DUPLICATE_RESOURCE', async () => {
      expect((await app.request('POST', '/v1/rulesets', { key, body: flat({ name: 'Unique One' }) })).status).toBe(201);
      const res = await app.request('POST', '/v1/rulesets', { key, body: factorList({ name: 'unique one' }) });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('DUPLICATE_RESOURCE');
      // The same name is free in the other mode and in another organization.
      expect((await app.request('POST', '/v1/rulesets', { key: org.test_api_key, body: flat({ name: 'Unique One' }) })).status).toBe(201);
    });

    it('needs the rulesets:write scope', async () => {
      const reviewer = await app.newUser(org.organization.id, 'reviewer');
      expect((await app.request('GET', '/v1/rulesets', { key: reviewer.api_key })).status).toBe(200);
      const res = await app.request('POST', '/v1/rulesets', { key: reviewer.api_key, body: flat({ name: 'Reviewer' }) });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    });
  });

  describe('read, replace, patch, delete', () => {
    let flatId: number;
    let factorsId: number;

    beforeAll(async () => {
      flatId = (await app.request('POST', '/v1/rulesets', { key, body: flat({ name: 'Editable flat' }) })).body.id;
      factorsId = (await app.request('POST', '/v1/rulesets', { key, body: factorList({ name: 'Editable factors' }) })).body.id;
    });

    it('GET returns the ruleset; an unknown id is 404 NOT_FOUND; a malformed id is 422', async () => {
      expect((await app.request('GET', `/v1/rulesets/${flatId}`, { key })).body).toMatchObject({ id: flatId, name: 'Editable flat' });
      const missing = await app.request('GET', '/v1/rulesets/999999', { key });
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe('NOT_FOUND');
      expect((await app.request('GET', '/v1/rulesets/abc', { key })).status).toBe(422);
    });

    it('PUT replaces the whole ruleset (Form A); omitted description becomes null', async () => {
      const body = flat({
        name: 'Editable flat',
        description: undefined,
        weight_revenue: 30,
        weight_balance_health: 10,
        approve_threshold: 65,
      });
      const res = await app.request('PUT', `/v1/rulesets/${flatId}`, { key, body });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: flatId,
        weight_revenue: 30,
        weight_balance_health: 10,
        approve_threshold: 65,
        description: null,
        is_default: false,
      });
      expect(new Date(res.body.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(res.body.created_at).getTime());
    });

    it('PUT requires every field and a weight sum of 100', async () => {
      const partial = await app.request('PUT', `/v1/rulesets/${flatId}`, { key, body: { name: 'Editable flat', weight_revenue: 100 } });
      expect(partial.status).toBe(422);
      expect(partial.body.code).toBe('VALIDATION_ERROR');
      expect(locs(partial.body)).toContainEqual(['body', 'grade_a_min']);
      const sum = await app.request('PUT', `/v1/rulesets/${flatId}`, { key, body: flat({ name: 'Editable flat', weight_cross_doc: 50 }) });
      expect(sum.status).toBe(422);
      expect(sum.body.code).toBe('WEIGHT_SUM_INVALID');
    });

    it('PATCH edits a subset of a factor-list ruleset (Form B)', async () => {
      const res = await app.request('PATCH', `/v1/rulesets/${factorsId}`, {
        key,
        body: { approval_threshold: 75, description: 'Tighter' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        approval_threshold: 75,
        decline_threshold: 40,
        description: 'Tighter',
        factors: factorList().factors,
      });
      const factors = [
        { name: 'deposit_consistency', weight: 0.6, threshold: 20 },
        { name: 'negative_days', weight: 0.4, threshold: 50 },
      ];
      const next = await app.request('PATCH', `/v1/rulesets/${factorsId}`, { key, body: { factors } });
      expect(next.body).toMatchObject({ factors, approval_threshold: 75, kind: 'factors' });
    });

    it('PATCH validates the merged ruleset', async () => {
      const sum = await app.request('PATCH', `/v1/rulesets/${factorsId}`, {
        key,
        body: { factors: [{ name: 'negative_days', weight: 0.7, threshold: 10 }] },
      });
      expect(sum.status).toBe(422);
      expect(sum.body.code).toBe('WEIGHT_SUM_INVALID');
      const thresholds = await app.request('PATCH', `/v1/rulesets/${factorsId}`, { key, body: { decline_threshold: 90 } });
      expect(thresholds.status).toBe(422);
      expect(locs(thresholds.body)).toContainEqual(['body', 'decline_threshold']);
      const flatSum = await app.request('PATCH', `/v1/rulesets/${flatId}`, { key, body: { weight_revenue: 31 } });
      expect(flatSum.status).toBe(422);
      expect(flatSum.body.code).toBe('WEIGHT_SUM_INVALID');
      const nullName = await app.request('PATCH', `/v1/rulesets/${flatId}`, { key, body: { name: null } });
      expect(nullName.status).toBe(422);
      expect(locs(nullName.body)).toContainEqual(['body', 'name']);
    });

    it('PATCH edits Form A fields of a flat ruleset when the weights still sum to 100', async () => {
      const res = await app.request('PATCH', `/v1/rulesets/${flatId}`, {
        key,
        body: { weight_revenue: 25, weight_balance_health: 15, name: 'Renamed flat' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ weight_revenue: 25, weight_balance_health: 15, name: 'Renamed flat', approve_threshold: 65 });
    });

    it('PATCH with factors converts a flat ruleset only with the thresholds of the new kind', async () => {
      const other = (await app.request('POST', '/v1/rulesets', { key, body: flat({ name: 'To convert' }) })).body.id;
      const incomplete = await app.request('PATCH', `/v1/rulesets/${other}`, { key, body: { factors: factorList().factors } });
      expect(incomplete.status).toBe(422);
      expect(locs(incomplete.body)).toContainEqual(['body', 'approval_threshold']);
      const res = await app.request('PATCH', `/v1/rulesets/${other}`, {
        key,
        body: { factors: factorList().factors, approval_threshold: 60, decline_threshold: 30 },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ kind: 'factors', weight_revenue: null, approval_threshold: 60 });
    });

    it('PATCH to a taken name is 409 DUPLICATE_RESOURCE', async () => {
      const res = await app.request('PATCH', `/v1/rulesets/${factorsId}`, { key, body: { name: 'RENAMED FLAT' } });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('DUPLICATE_RESOURCE');
    });

    it('DELETE removes a non-default ruleset with an acknowledgement', async () => {
      const id = (await app.request('POST', '/v1/rulesets', { key, body: flat({ name: 'Short-lived' }) })).body.id;
      const res = await app.request('DELETE', `/v1/rulesets/${id}`, { key });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'ok', success: true, id });
      expect((await app.request('GET', `/v1/rulesets/${id}`, { key })).status).toBe(404);
      expect((await app.request('DELETE', `/v1/rulesets/${id}`, { key })).status).toBe(404);
    });
  });

  describe('list', () => {
    it('orders by created_at ascending and paginates', async () => {
      const listOrg = await app.newOrg('List Rulesets');
      for (const name of ['One', 'Two', 'Three']) await app.request('POST', '/v1/rulesets', { key: listOrg.api_key, body: flat({ name }) });
      const all = await app.request('GET', '/v1/rulesets', { key: listOrg.api_key });
      expect(all.body.data.map((r: { name: string }) => r.name)).toEqual(['Default', 'One', 'Two', 'Three']);
      const page2 = await app.request('GET', '/v1/rulesets?page=2&per_page=3', { key: listOrg.api_key });
      expect(page2.body.data.map((r: { name: string }) => r.name)).toEqual(['Three']);
      expect(page2.body.meta).toEqual({ page: 2, per_page: 3, total: 4, total_pages: 2 });
      expect((await app.request('GET', '/v1/rulesets?page=3&per_page=3', { key: listOrg.api_key })).status).toBe(422);
    });
  });

  describe('set-default', () => {
    it('makes the ruleset the default and demotes the previous one', async () => {
      const o = await app.newOrg('Default Org');
      const before = (await app.request('GET', '/v1/rulesets', { key: o.api_key })).body.data[0];
      const created = (await app.request('POST', '/v1/rulesets', { key: o.api_key, body: factorList() })).body;
      const res = await app.request('POST', `/v1/rulesets/${created.id}/set-default`, { key: o.api_key });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: created.id, name: created.name, is_default: true, kind: 'factors' });
      expect(typeof res.body.updated_at).toBe('string');
      const list = (await app.request('GET', '/v1/rulesets', { key: o.api_key })).body.data;
      expect(list.filter((r: { is_default: boolean }) => r.is_default).map((r: { id: number }) => r.id)).toEqual([created.id]);
      // The former default can now be deleted; the new one cannot. Setting it again is a no-op.
      expect((await app.request('POST', `/v1/rulesets/${created.id}/set-default`, { key: o.api_key })).body.is_default).toBe(true);
      expect((await app.request('DELETE', `/v1/rulesets/${created.id}`, { key: o.api_key })).status).toBe(409);
      expect((await app.request('DELETE', `/v1/rulesets/${before.id}`, { key: o.api_key })).status).toBe(200);
    });

    it('leaves exactly one default under concurrent calls', async () => {
      const o = await app.newOrg('Concurrent Org');
      const ids: number[] = [];
      for (let i = 0; i < 5; i++)
        ids.push((await app.request('POST', '/v1/rulesets', { key: o.api_key, body: flat({ name: `Concurrent ${i}` }) })).body.id);
      for (let round = 0; round < 3; round++) {
        const results = await Promise.all(
          [...ids, ...ids].map((id) => app.request('POST', `/v1/rulesets/${id}/set-default`, { key: o.api_key })),
        );
        expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
        const list = (await app.request('GET', '/v1/rulesets?per_page=100', { key: o.api_key })).body.data;
        expect(list.filter((r: { is_default: boolean }) => r.is_default)).toHaveLength(1);
      }
      const rows: { n: number }[] = await app
        .get(Database)
        .system()
        .execute('select count(*)::int as n from rulesets where organization_id = ? and livemode and is_default', [o.organization.id]);
      expect(rows[0].n).toBe(1);
    });
  });

  describe('isolation', () => {
    let ownerRuleset: number;
    let stranger: Org;

    beforeAll(async () => {
      ownerRuleset = (await app.request('POST', '/v1/rulesets', { key, body: flat({ name: 'Private' }) })).body.id;
      stranger = await app.newOrg('Stranger');
    });

    const routes: [string, (id: number) => string, unknown][] = [
      ['GET', (id) => `/v1/rulesets/${id}`, null],
      ['PUT', (id) => `/v1/rulesets/${id}`, flat({ name: 'Hijack' })],
      ['PATCH', (id) => `/v1/rulesets/${id}`, { name: 'Hijack' }],
      ['POST', (id) => `/v1/rulesets/${id}/set-default`, null],
      ['DELETE', (id) => `/v1/rulesets/${id}`, null],
    ];

    it.each(routes)('%s %s of another organization is 404', async (method, path, body) => {
      const res = await app.request(method, path(ownerRuleset), { key: stranger.api_key, body: body ?? undefined });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    });

    it.each(routes)('%s %s from the other mode is 404', async (method, path, body) => {
      expect((await app.request(method, path(ownerRuleset), { key: org.test_api_key, body: body ?? undefined })).status).toBe(404);
    });

    it('lists only the caller organization and mode, and the owner ruleset is untouched', async () => {
      const names = (await app.request('GET', '/v1/rulesets', { key: stranger.api_key })).body.data.map((r: { name: string }) => r.name);
      expect(names).toEqual(['Default']);
      expect((await app.request('GET', `/v1/rulesets/${ownerRuleset}`, { key })).body).toMatchObject({
        name: 'Private',
        is_default: false,
      });
    });
  });
});
