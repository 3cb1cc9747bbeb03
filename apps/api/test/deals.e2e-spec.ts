import { TestApp } from './support/harness';
import { Factories } from './support/factories';
import { DealsService } from '../src/modules/pipeline/services/deals.service';
import type { AuthContext } from '../src/platform/auth/auth-context';
import { DealDecision } from '../src/modules/pipeline/entities/deal.entities';
import { Database } from '../src/platform/database/database.service';
import { DomainEventRecord } from '../src/platform/events/outbox.entity';

const deal = (over: Record<string, unknown> = {}) => ({ business_name: 'Acme Bakery LLC', funding_amount_requested: 50000, ...over });

describe('deals', () => {
  let app: TestApp;
  let org: Awaited<ReturnType<TestApp['newOrg']>>;
  let key: string;

  beforeAll(async () => {
    app = await TestApp.start();
    org = await app.newOrg('Deals Org');
    key = org.api_key;
  });
  afterAll(() => app?.close());

  describe('POST /v1/deals', () => {
    it('creates a deal with status new and empty health fields', async () => {
      const res = await app.request('POST', '/v1/deals', {
        key,
        body: deal({
          dba_name: 'Acme',
          owner_name: 'Jane Roe',
          ein: '123456789',
          entity_type: 'llc',
          industry: 'Food',
          source_type: 'broker',
        }),
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        business_name: 'Acme Bakery LLC',
        status: 'new',
        document_count: 0,
        health_score: null,
        health_grade: null,
        screening_flags: 0,
        ein: '123456789',
        entity_type: 'llc',
        funding_amount_requested: 50000,
      });
    });

    it.each([
      [{ business_name: undefined }, ['body', 'business_name']],
      [{ business_name: 'x'.repeat(501) }, ['body', 'business_name']],
      [{ funding_amount_requested: 0 }, ['body', 'funding_amount_requested']],
      [{ funding_amount_requested: -5 }, ['body', 'funding_amount_requested']],
      [{ funding_amount_requested: '100' }, ['body', 'funding_amount_requested']],
      [{ ein: '12-3456789' }, ['body', 'ein']],
      [{ ein: '12345678' }, ['body', 'ein']],
      [{ entity_type: 'trust' }, ['body', 'entity_type']],
      [{ source_type: 'email' }, ['body', 'source_type']],
      [{ dba_name: 'y'.repeat(501) }, ['body', 'dba_name']],
      [{ external_reference: 'r'.repeat(256) }, ['body', 'external_reference']],
      [{ external_reference: '' }, ['body', 'external_reference']],
      [{ external_reference: 42 }, ['body', 'external_reference']],
    ])('rejects %j with 422 at %j', async (over, loc) => {
      const res = await app.request('POST', '/v1/deals', { key, body: deal(over) });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.detail).toBe('Validation failed');
      expect(res.body.errors.map((e: { loc: unknown }) => e.loc)).toContainEqual(loc);
      const entry = res.body.errors[0];
      expect(entry).toEqual({ loc: entry.loc, msg: entry.msg, type: entry.type, field: entry.field, message: entry.msg });
    });

    it('keeps external_reference (unique per organization and mode) and ingest matches the deal on it', async () => {
      const created = await app.request('POST', '/v1/deals', { key, body: deal({ external_reference: 'CRM-REF-7001' }) });
      expect(created.status).toBe(201);
      expect(created.body.external_reference).toBe('CRM-REF-7001');
      expect((await app.request('GET', `/v1/deals/${created.body.id}`, { key })).body.external_reference).toBe('CRM-REF-7001');
      expect((await app.request('POST', '/v1/deals', { key, body: deal() })).body.external_reference).toBeNull();

      const again = await app.request('POST', '/v1/deals', { key, body: deal({ external_reference: 'CRM-REF-7001' }) });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('DUPLICATE_RESOURCE');
      // another mode is another namespace
      expect(
        (await app.request('POST', '/v1/deals', { key: org.test_api_key, body: deal({ external_reference: 'CRM-REF-7001' }) })).status,
      ).toBe(201);

      const ingest = await app.request('POST', '/v1/ingest', {
        key,
        headers: { 'X-Org-Id': String(org.organization.id) },
        body: { applications: [{ business_name: 'Renamed In CRM LLC', external_ref: 'CRM-REF-7001' }] },
      });
      expect(ingest.status).toBe(201);
      expect(ingest.body.deals).toEqual([expect.objectContaining({ id: created.body.id, result: 'skipped' })]);

      const batch = await app.request('POST', '/v1/deals/batch', {
        key,
        body: [
          deal({ external_reference: 'CRM-REF-7001' }),
          deal({ external_reference: 'CRM-REF-7002' }),
          deal({ external_reference: 'CRM-REF-7002' }),
        ],
      });
      expect(batch.body.created.map((c: { index: number }) => c.index)).toEqual([1]);
      expect(batch.body.errors.map((e: { index: number; errors: { loc: unknown }[] }) => [e.index, e.errors[0].loc])).toEqual([
        [0, ['body', 0, 'external_reference']],
        [2, ['body', 2, 'external_reference']],
      ]);
    });

    it('rejects a body that is not an object', async () => {
      const res = await app.request('POST', '/v1/deals', { key, body: [deal()] });
      expect(res.status).toBe(422);
    });
  });

  describe('GET /v1/deals', () => {
    let ids: Record<string, number>;
    let listOrg: Awaited<ReturnType<TestApp['newOrg']>>;

    beforeAll(async () => {
      listOrg = await app.newOrg('List Org');
      ids = {};
      for (const [name, over] of Object.entries({
        alpha: { business_name: 'Alpha Plumbing', owner_name: 'Zed Zulu', funding_amount_requested: 10000 },
        bravo: { business_name: 'Bravo Bistro', dba_name: 'The Plumbing Cafe', funding_amount_requested: 20000 },
        charlie: { business_name: 'Charlie Cars', funding_amount_requested: 30000 },
        percent: { business_name: '100% Juice', funding_amount_requested: 40000 },
      })) {
        ids[name] = (await app.request('POST', '/v1/deals', { key: listOrg.api_key, body: over })).body.id;
      }
    });

    it('lists newest-updated first with page meta', async () => {
      const res = await app.request('GET', '/v1/deals', { key: listOrg.api_key });
      expect(res.body.meta).toEqual({ page: 1, per_page: 25, total: 4, total_pages: 1 });
      expect(res.body.data.map((d: { id: number }) => d.id)).toEqual([ids.percent, ids.charlie, ids.bravo, ids.alpha]);
    });

    it('searches business, DBA and owner names, case-insensitively, with LIKE wildcards escaped', async () => {
      const plumbing = await app.request('GET', '/v1/deals?q=plumbing', { key: listOrg.api_key });
      expect(plumbing.body.data.map((d: { id: number }) => d.id).sort()).toEqual([ids.alpha, ids.bravo].sort());
      const owner = await app.request('GET', '/v1/deals?q=ZULU', { key: listOrg.api_key });
      expect(owner.body.data.map((d: { id: number }) => d.id)).toEqual([ids.alpha]);
      const percent = await app.request('GET', '/v1/deals?q=%25', { key: listOrg.api_key });
      expect(percent.body.data.map((d: { id: number }) => d.id)).toEqual([ids.percent]);
    });

    it('filters by status and sorts by name both ways', async () => {
      expect((await app.request('GET', '/v1/deals?status=ready', { key: listOrg.api_key })).body.meta.total).toBe(0);
      expect((await app.request('GET', '/v1/deals?status=new', { key: listOrg.api_key })).body.meta.total).toBe(4);
      const asc = await app.request('GET', '/v1/deals?sort=business_name&order=asc', { key: listOrg.api_key });
      expect(asc.body.data.map((d: { business_name: string }) => d.business_name)).toEqual([
        '100% Juice',
        'Alpha Plumbing',
        'Bravo Bistro',
        'Charlie Cars',
      ]);
      const desc = await app.request('GET', '/v1/deals?sort=business_name&order=desc', { key: listOrg.api_key });
      expect(desc.body.data[0].business_name).toBe('Charlie Cars');
    });

    it('paginates and rejects pages beyond the last', async () => {
      const p2 = await app.request('GET', '/v1/deals?per_page=3&page=2&sort=business_name&order=asc', { key: listOrg.api_key });
      expect(p2.body.meta).toEqual({ page: 2, per_page: 3, total: 4, total_pages: 2 });
      expect(p2.body.data.map((d: { business_name: string }) => d.business_name)).toEqual(['Charlie Cars']);
      const beyond = await app.request('GET', '/v1/deals?per_page=3&page=3', { key: listOrg.api_key });
      expect(beyond.status).toBe(422);
      expect(beyond.body.errors[0].loc).toEqual(['query', 'page']);
      const empty = await app.request('GET', '/v1/deals?q=nomatch', { key: listOrg.api_key });
      expect(empty.status).toBe(200);
      expect(empty.body).toEqual({ data: [], meta: { page: 1, per_page: 25, total: 0, total_pages: 0 } });
      expect((await app.request('GET', '/v1/deals?q=nomatch&page=2', { key: listOrg.api_key })).status).toBe(422);
    });

    it.each(['page=0', 'per_page=0', 'per_page=101', 'page=abc', 'status=done', 'sort=ein', 'order=up'])('rejects %s', async (qs) => {
      const res = await app.request('GET', `/v1/deals?${qs}`, { key: listOrg.api_key });
      expect(res.status).toBe(422);
      expect(res.body.errors[0].loc[0]).toBe('query');
    });
  });

  describe('GET, PATCH, DELETE /v1/deals/{id}', () => {
    it('returns the deal with report sections null until ready', async () => {
      const created = (await app.request('POST', '/v1/deals', { key, body: deal({ ein: '987654321' }) })).body;
      const res = await app.request('GET', `/v1/deals/${created.id}`, { key });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: created.id,
        status: 'new',
        report_date: null,
        ai_summary: null,
        coverage: null,
        financials: null,
        health: null,
        recommendation: null,
      });
      expect(res.body.business).toMatchObject({ id: created.id, business_name: 'Acme Bakery LLC', ein: '987654321' });
    });

    it('updates a subset of fields and keeps the others', async () => {
      const created = (await app.request('POST', '/v1/deals', { key, body: deal({ industry: 'Food' }) })).body;
      const res = await app.request('PATCH', `/v1/deals/${created.id}`, {
        key,
        body: { dba_name: 'Acme Sweets', funding_amount_requested: 60000 },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        dba_name: 'Acme Sweets',
        funding_amount_requested: 60000,
        industry: 'Food',
        business_name: 'Acme Bakery LLC',
      });
      expect(new Date(res.body.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(created.updated_at).getTime());
      const cleared = await app.request('PATCH', `/v1/deals/${created.id}`, { key, body: { industry: null } });
      expect(cleared.body.industry).toBeNull();
      const invalid = await app.request('PATCH', `/v1/deals/${created.id}`, { key, body: { ein: 'abc' } });
      expect(invalid.status).toBe(422);
      const nullName = await app.request('PATCH', `/v1/deals/${created.id}`, { key, body: { business_name: null } });
      expect(nullName.status).toBe(422);
    });

    it('deletes a deal with its decisions; it is then 404', async () => {
      const created = (await app.request('POST', '/v1/deals', { key, body: deal() })).body;
      await app.request('POST', `/v1/deals/${created.id}/decision`, { key, body: { decision: 'approve' } });
      const res = await app.request('DELETE', `/v1/deals/${created.id}`, { key });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'ok', success: true, deal_id: created.id });
      const gone = await app.request('GET', `/v1/deals/${created.id}`, { key });
      expect(gone.status).toBe(404);
      expect(gone.body.code).toBe('DEAL_NOT_FOUND');
      const em = app.get(Database).system();
      expect(await em.count(DealDecision, { dealId: created.id }, { filters: false })).toBe(0);
    });

    it('rejects a non-integer id with 422 on the path', async () => {
      const res = await app.request('GET', '/v1/deals/abc', { key });
      expect(res.status).toBe(422);
      expect(res.body.errors[0].loc).toEqual(['path', 'deal_id']);
    });
  });

  describe('POST /v1/deals/{id}/decision', () => {
    it('records approve, decline and funded in an audit trail; a deal can be decisioned again', async () => {
      const created = (await app.request('POST', '/v1/deals', { key, body: deal() })).body;
      const first = await app.request('POST', `/v1/deals/${created.id}/decision`, { key, body: { decision: 'approve' } });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ status: 'ok', deal_id: created.id, decision: 'approve', previous_decision: null });
      const second = await app.request('POST', `/v1/deals/${created.id}/decision`, { key, body: { decision: 'funded' } });
      expect(second.body.previous_decision).toBe('approve');
      const detail = await app.request('GET', `/v1/deals/${created.id}`, { key });
      expect(detail.body.decision).toBe('funded');
      expect(detail.body.decided_at).toBe(second.body.decided_at);
      const trail = await app
        .get(Database)
        .system()
        .find(DealDecision, { dealId: created.id }, { filters: false, orderBy: { id: 'asc' } });
      expect(trail.map((d) => [d.decision, d.previousDecision, d.actor])).toEqual([
        ['approve', null, `user:${org.user.id}`],
        ['funded', 'approve', `user:${org.user.id}`],
      ]);
    });

    it("keeps a decline's reason and an approval's offer, on the deal, in the trail and on the timeline", async () => {
      const created = (await app.request('POST', '/v1/deals', { key, body: deal() })).body;
      const offer = { amount: 42000, factor_rate: 1.38, term_months: 7, holdback_percent: 12 };
      const approved = await app.request('POST', `/v1/deals/${created.id}/decision`, {
        key,
        body: { decision: 'approve', reason: 'Strong deposits', offer },
      });
      expect(approved.status).toBe(200);
      expect(approved.body).toMatchObject({ reason: 'Strong deposits', offer: { ...offer, payback_amount: 57960 } });
      const detail = (await app.request('GET', `/v1/deals/${created.id}`, { key })).body;
      expect(detail).toMatchObject({
        decision: 'approve',
        decision_reason: 'Strong deposits',
        decision_offer: { ...offer, payback_amount: 57960 },
        decided_by: `user:${org.user.id}`,
      });
      const declined = await app.request('POST', `/v1/deals/${created.id}/decision`, {
        key,
        body: { decision: 'decline', reason: 'A second position appeared' },
      });
      expect(declined.body).toMatchObject({ previous_decision: 'approve', reason: 'A second position appeared', offer: null });
      const after = (await app.request('GET', `/v1/deals/${created.id}`, { key })).body;
      expect(after).toMatchObject({ decision: 'decline', decision_reason: 'A second position appeared', decision_offer: null });
      const trail = await app
        .get(Database)
        .system()
        .find(DealDecision, { dealId: created.id }, { filters: false, orderBy: { id: 'asc' } });
      expect(trail.map((d) => [d.decision, d.reason, d.offer])).toEqual([
        ['approve', 'Strong deposits', offer],
        ['decline', 'A second position appeared', null],
      ]);
      // the timeline is written from the events (delivered asynchronously over Redis)
      await app.drainEvents();
      const timeline = JSON.stringify((await app.request('GET', `/v1/deals/${created.id}/timeline`, { key })).body);
      expect(timeline).toContain(
        'set the decision to approve with an offer of $42,000 at 1.38 over 7 months, 12% holdback: Strong deposits',
      );
      expect(timeline).toContain('set the decision to decline: A second position appeared');
    });

    it.each([
      [{ decision: 'decline', offer: { amount: 1000, factor_rate: 1.3, term_months: 6, holdback_percent: 10 } }, 'offer'],
      [{ decision: 'approve', offer: { amount: 1000, factor_rate: 0.9, term_months: 6, holdback_percent: 10 } }, 'factor_rate'],
      [{ decision: 'approve', offer: { amount: -5, factor_rate: 1.3, term_months: 6, holdback_percent: 10 } }, 'amount'],
      [{ decision: 'approve', offer: { amount: 1000, factor_rate: 1.3, term_months: 6 } }, 'holdback_percent'],
      [{ decision: 'decline', reason: 'x'.repeat(2001) }, 'reason'],
    ])('refuses %j with 422 naming %s; the deal is unchanged', async (body, field) => {
      const created = (await app.request('POST', '/v1/deals', { key, body: deal() })).body;
      const res = await app.request('POST', `/v1/deals/${created.id}/decision`, { key, body });
      expect(res.status).toBe(422);
      expect(JSON.stringify(res.body.errors)).toContain(field);
      expect((await app.request('GET', `/v1/deals/${created.id}`, { key })).body.decision).toBeNull();
    });

    it.each(['fund', 'review', 'APPROVE', '', 42])('rejects %j with 422 INVALID_DECISION', async (value) => {
      const created = (await app.request('POST', '/v1/deals', { key, body: deal() })).body;
      const res = await app.request('POST', `/v1/deals/${created.id}/decision`, { key, body: { decision: value } });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('INVALID_DECISION');
    });
  });

  describe('POST /v1/deals/batch', () => {
    it('creates valid items and reports invalid ones with their index', async () => {
      const res = await app.request('POST', '/v1/deals/batch', {
        key,
        body: [
          deal({ business_name: 'One' }),
          { business_name: 'Two' },
          deal({ business_name: 'Three', ein: 'bad' }),
          'oops',
          deal({ business_name: 'Five' }),
        ],
      });
      expect(res.status).toBe(200);
      expect(res.body.created.map((c: { index: number; business_name: string }) => [c.index, c.business_name])).toEqual([
        [0, 'One'],
        [4, 'Five'],
      ]);
      expect(res.body.errors.map((e: { index: number }) => e.index)).toEqual([1, 2, 3]);
      expect(res.body.errors[0].errors[0].loc).toEqual(['body', 1, 'funding_amount_requested']);
      expect(res.body.errors[1].errors[0].loc).toEqual(['body', 2, 'ein']);
      expect(res.body).toMatchObject({ total_created: 2, total_errors: 3 });
    });

    it('accepts {deals: [...]} and limits a batch to 50', async () => {
      expect((await app.request('POST', '/v1/deals/batch', { key, body: { deals: [deal()] } })).body.total_created).toBe(1);
      const tooMany = await app.request('POST', '/v1/deals/batch', { key, body: Array.from({ length: 51 }, () => deal()) });
      expect(tooMany.status).toBe(422);
      const fifty = await app.request('POST', '/v1/deals/batch', {
        key,
        body: Array.from({ length: 50 }, (_, i) => deal({ business_name: `B${i}` })),
      });
      expect(fifty.body.total_created).toBe(50);
    });
  });

  describe('GET /v1/deals/stats', () => {
    it('counts deals, decisions, statuses and recent deals of the caller only', async () => {
      const statsOrg = await app.newOrg('Stats Org');
      const k = statsOrg.api_key;
      const ids: number[] = [];
      for (const amount of [10000, 20000, 30000])
        ids.push((await app.request('POST', '/v1/deals', { key: k, body: deal({ funding_amount_requested: amount }) })).body.id);
      await app.request('POST', `/v1/deals/${ids[0]}/decision`, { key: k, body: { decision: 'approve' } });
      await app.request('POST', `/v1/deals/${ids[1]}/decision`, { key: k, body: { decision: 'decline' } });
      await app.request('POST', `/v1/deals/${ids[2]}/decision`, { key: k, body: { decision: 'approve' } });
      await app.request('POST', `/v1/deals/${ids[2]}/decision`, { key: k, body: { decision: 'funded' } });
      await app.request('POST', '/v1/deals', { key: statsOrg.test_api_key, body: deal({ funding_amount_requested: 999999 }) });
      const res = await app.request('GET', '/v1/deals/stats', { key: k });
      expect(res.body).toEqual({
        total_deals: 3,
        avg_health_score: null,
        avg_funding_requested: 20000,
        total_approved: 1,
        total_declined: 1,
        total_funded: 1,
        deals_this_week: 3,
        deals_this_month: 3,
        deals_by_status: { new: 3, processing: 0, under_review: 0, ready: 0, failed: 0 },
      });
    });

    it('counts this week (from Monday, UTC) and this month by the clock it is given, and every status', async () => {
      const f = await Factories.forNewOrg(app, 'Stats Clock Org');
      // Thursday 2026-11-26: the week began on Monday 11-23, the month on 11-01
      const now = new Date('2026-11-26T12:00:00Z');
      const at = (iso: string, status: string, healthScore: number | null = null) =>
        f.deal({ createdAt: new Date(iso), status: status as never, healthScore });
      await at('2026-10-31T23:59:59Z', 'failed', 10); // last month
      await at('2026-11-01T00:00:00Z', 'ready', 20); // this month, not this week
      await at('2026-11-22T23:59:59Z', 'under_review'); // this month, the Sunday before
      await at('2026-11-23T00:00:00Z', 'processing'); // this week
      await at('2026-11-25T09:00:00Z', 'new'); // this week
      const stats = await app.get(DealsService).stats({ ...f.scope } as AuthContext, now);
      expect(stats).toMatchObject({
        total_deals: 5,
        avg_health_score: 15,
        deals_this_week: 2,
        deals_this_month: 4,
        deals_by_status: { new: 1, processing: 1, under_review: 1, ready: 1, failed: 1 },
      });
    });
  });

  describe('domain events', () => {
    it('records deal.created, deal.updated, deal.decision and deal.deleted in the outbox with the change', async () => {
      const created = (await app.request('POST', '/v1/deals', { key, body: deal() })).body;
      await app.request('PATCH', `/v1/deals/${created.id}`, { key, body: { industry: 'Retail' } });
      await app.request('PATCH', `/v1/deals/${created.id}`, { key, body: { industry: 'Retail' } });
      await app.request('POST', `/v1/deals/${created.id}/decision`, { key, body: { decision: 'decline' } });
      await app.request('DELETE', `/v1/deals/${created.id}`, { key });
      const events = await app
        .get(Database)
        .system()
        .find(DomainEventRecord, { dealId: created.id }, { orderBy: { id: 'asc' } });
      expect(events.map((e) => e.type)).toEqual(['deal.created', 'deal.updated', 'deal.decision', 'deal.deleted']);
      expect(events[1].data).toMatchObject({ changed_fields: ['industry'] });
      expect(events[2].data).toMatchObject({ decision: 'decline' });
      expect(events.every((e) => e.organizationId === org.organization.id && e.livemode)).toBe(true);
    });

    it('writes nothing when the request fails validation', async () => {
      const em = app.get(Database).system();
      const before = await em.count(DomainEventRecord, {});
      await app.request('POST', '/v1/deals', { key, body: { business_name: '' } });
      expect(await em.count(DomainEventRecord, {})).toBe(before);
    });
  });
});
