import {
  DEFAULT_RULESET,
  affordabilityReason,
  evaluateFactorRuleset,
  evaluateRuleset,
  recommend,
  type FlatRuleset,
} from '@ledgerlens/underwriting';
import { startFakeGroq, FakeGroq, FakeGroqRequest } from '../../../tools/fakes/groq';
import { LAYOUTS } from '../../../tools/corpus/layouts';
import { makeStatement } from '../../../tools/corpus/corpus';
import { TestApp } from './support/harness';
import { newReadyDeal } from './support/ready-deal';
import { unreconciledStatement } from './support/unreconciled-statement';
import { Clock } from '../src/platform/clock/clock';
import { RecommendationRecord } from '../src/modules/pipeline/entities/recommendation.entity';
import { Database } from '../src/platform/database/database.service';
import { DomainEventRecord } from '../src/platform/events/outbox.entity';

type Org = Awaited<ReturnType<TestApp['newOrg']>>;

const flatBody = (name: string, over: Record<string, unknown> = {}) => ({
  name,
  weight_revenue: 40,
  weight_balance_health: 10,
  weight_nsf_overdraft: 10,
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
  approve_threshold: 50,
  max_advance_multiplier: 0.5,
  cfcr_target: 2,
  ...over,
});
const factorBody = (name: string) => ({
  name,
  factors: [
    { name: 'revenue_stability', weight: 0.4, threshold: 10 },
    { name: 'average_daily_balance', weight: 0.3, threshold: 10 },
    { name: 'nsf_frequency', weight: 0.3, threshold: 10 },
  ],
  approval_threshold: 60,
  decline_threshold: 30,
});

async function records(app: TestApp, dealId: number): Promise<RecommendationRecord[]> {
  return app
    .get(Database)
    .system()
    .find(RecommendationRecord, { dealId }, { filters: false, orderBy: { id: 'asc' } });
}

async function events(app: TestApp, type: string, dealId: number): Promise<DomainEventRecord[]> {
  return app
    .get(Database)
    .system()
    .find(DomainEventRecord, { type, dealId }, { orderBy: { id: 'asc' } });
}

describe('recommendations and evaluation', () => {
  let app: TestApp;
  let org: Org;
  let key: string;
  let clock: Clock;

  beforeAll(async () => {
    app = await TestApp.start();
    org = await app.newOrg('Recommendations Org');
    key = org.api_key;
    clock = app.get(Clock);
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(() => app?.close());

  /** Freezes the module clock at `at` (ms since epoch) and returns a setter to move it. */
  const freeze = (at: number) => {
    let now = at;
    jest.spyOn(clock, 'now').mockImplementation(() => new Date(now));
    return (ms: number) => {
      now = ms;
    };
  };

  describe('before the deal is ready', () => {
    it.each([
      ['GET', 'recommendation'],
      ['POST', 'evaluate'],
      ['POST', 'regenerate-summary'],
    ])('%s /deals/{id}/%s is 409 with a clear message', async (method, action) => {
      const deal = (await app.request('POST', '/v1/deals', { key, body: { business_name: 'Fresh Deal', funding_amount_requested: 1000 } }))
        .body;
      const res = await app.request(method, `/v1/deals/${deal.id}/${action}`, { key });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('CONFLICT');
      expect(res.body.detail).toMatch(new RegExp(`Deal ${deal.id} is not ready \\(status: new\\)`));
    });

    it('an unknown deal is 404 DEAL_NOT_FOUND', async () => {
      for (const [method, action] of [
        ['GET', 'recommendation'],
        ['POST', 'evaluate'],
        ['POST', 'regenerate-summary'],
      ]) {
        const res = await app.request(method, `/v1/deals/999999/${action}`, { key });
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('DEAL_NOT_FOUND');
      }
    });
  });

  describe('GET /deals/{id}/recommendation', () => {
    it('computes with the default ruleset, stores it, reports it and records recommendation.generated', async () => {
      const deal = await newReadyDeal(app, key);
      const res = await app.request('GET', `/v1/deals/${deal.id}/recommendation`, { key });
      expect(res.status).toBe(200);
      const expected = recommend(deal.analysis);
      expect(res.body).toMatchObject({
        deal_id: deal.id,
        ruleset_name: 'Default',
        ruleset_kind: 'flat',
        decision: expected.decision,
        total_score: expected.total_score,
        grade: expected.grade,
        max_advance: expected.max_advance,
        cfcr: expected.cfcr,
        cfcr_below_target: expected.cfcr_below_target,
        factor_scores: expected.factor_scores,
        // the ruleset's reasons, then the affordability arithmetic
        reasons: [...expected.reasons, affordabilityReason(deal.analysis.affordability)],
        cached: false,
      });
      expect(Object.keys(res.body.factor_scores).sort()).toEqual([
        'balance_health',
        'cross_doc',
        'debt_service',
        'deposit_frequency',
        'health_score',
        'nsf_overdraft',
        'revenue',
        'revenue_trend',
        'transaction_screening',
      ]);
      const report = (await app.request('GET', `/v1/deals/${deal.id}`, { key })).body;
      expect(report.recommendation).toMatchObject({
        decision: expected.decision,
        total_score: expected.total_score,
        max_advance: expected.max_advance,
        cfcr: expected.cfcr,
        ruleset_name: 'Default',
      });
      const generated = await events(app, 'recommendation.generated', deal.id);
      expect(generated).toHaveLength(1);
      expect(generated[0].data).toMatchObject({ deal_id: deal.id, decision: expected.decision, ruleset_name: 'Default' });
    });

    it('is served from cache for 30 seconds, then generated again (injected clock)', async () => {
      const deal = await newReadyDeal(app, key);
      const t0 = Date.UTC(2030, 0, 1, 12, 0, 0);
      const move = freeze(t0);
      const first = await app.request('GET', `/v1/deals/${deal.id}/recommendation`, { key });
      expect(first.body).toMatchObject({ cached: false, generated_at: new Date(t0).toISOString() });
      move(t0 + 29_999);
      const second = await app.request('GET', `/v1/deals/${deal.id}/recommendation`, { key });
      expect(second.body).toMatchObject({ cached: true, generated_at: new Date(t0).toISOString(), total_score: first.body.total_score });
      move(t0 + 30_000);
      const third = await app.request('GET', `/v1/deals/${deal.id}/recommendation`, { key });
      expect(third.body).toMatchObject({ cached: false, generated_at: new Date(t0 + 30_000).toISOString() });
      expect(await records(app, deal.id)).toHaveLength(2);
      expect(await events(app, 'recommendation.generated', deal.id)).toHaveLength(2);
    });

    it('concurrent first requests store one recommendation', async () => {
      const deal = await newReadyDeal(app, key);
      freeze(Date.UTC(2030, 0, 2));
      const results = await Promise.all(
        Array.from({ length: 4 }, () => app.request('GET', `/v1/deals/${deal.id}/recommendation`, { key })),
      );
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      expect(results.filter((r) => !r.body.cached)).toHaveLength(1);
      expect(await records(app, deal.id)).toHaveLength(1);
    });

    it('keeps the stored snapshot when the ruleset is edited and deleted', async () => {
      const o = await app.newOrg('Snapshot Org');
      const deal = await newReadyDeal(app, o.api_key);
      const t0 = Date.UTC(2030, 1, 1);
      const move = freeze(t0);
      const custom = (await app.request('POST', '/v1/rulesets', { key: o.api_key, body: flatBody('Custom') })).body;
      await app.request('POST', `/v1/rulesets/${custom.id}/set-default`, { key: o.api_key });
      const r1 = (await app.request('GET', `/v1/deals/${deal.id}/recommendation`, { key: o.api_key })).body;
      expect(r1).toMatchObject({ ruleset_id: custom.id, ruleset_name: 'Custom', cached: false });
      expect(r1.factor_scores.revenue.weight).toBe(40);
      const [stored] = await records(app, deal.id);
      const before = { snapshot: stored.rulesetSnapshot, result: stored.result };
      expect(stored.rulesetSnapshot).toMatchObject({ name: 'Custom', weight_revenue: 40, approve_threshold: 50, version: 1 });

      // An edit of the default within the 30 s cache does not change the recommendation served...
      move(t0 + 1000);
      const edited = await app.request('PUT', `/v1/rulesets/${custom.id}`, {
        key: o.api_key,
        body: flatBody('Custom v2', { weight_revenue: 10, weight_balance_health: 40, approve_threshold: 90 }),
      });
      expect(edited.status).toBe(200);
      const cached = (await app.request('GET', `/v1/deals/${deal.id}/recommendation`, { key: o.api_key })).body;
      expect(cached).toEqual({ ...r1, cached: true });
      // ...once the cache expires, the edited ruleset (new version) makes a new one; the first is unchanged.
      move(t0 + 30_000);
      const r2 = (await app.request('GET', `/v1/deals/${deal.id}/recommendation`, { key: o.api_key })).body;
      expect(r2).toMatchObject({ ruleset_id: custom.id, ruleset_name: 'Custom v2', cached: false, decision: 'decline' });
      expect(r2.factor_scores.revenue.weight).toBe(10);

      // Deleting it (after moving the default away) leaves both stored recommendations as they were.
      const def = (await app.request('GET', '/v1/rulesets', { key: o.api_key })).body.data.find(
        (r: { name: string }) => r.name === 'Default',
      );
      await app.request('POST', `/v1/rulesets/${def.id}/set-default`, { key: o.api_key });
      expect((await app.request('DELETE', `/v1/rulesets/${custom.id}`, { key: o.api_key })).status).toBe(200);
      const after = await records(app, deal.id);
      expect(after).toHaveLength(2);
      expect({ snapshot: after[0].rulesetSnapshot, result: after[0].result }).toEqual(before);
      expect(after[0]).toMatchObject({ rulesetId: custom.id, rulesetName: 'Custom', rulesetVersion: 1 });
      expect(after[1]).toMatchObject({ rulesetId: custom.id, rulesetName: 'Custom v2', rulesetVersion: 2 });
      expect(after[1].rulesetSnapshot).toMatchObject({ weight_revenue: 10, approve_threshold: 90 });
      const r3 = (await app.request('GET', `/v1/deals/${deal.id}/recommendation`, { key: o.api_key })).body;
      expect(r3).toMatchObject({ ruleset_id: def.id, ruleset_name: 'Default', cached: false });
    });

    it('generateDefault (the pipeline step) writes the report section in the caller transaction', async () => {
      const deal = await newReadyDeal(app, key, { recommend: true, profile: 'weak' });
      // the score's verdict with the holds applied (this weak deal's cash flow coverage is below the minimum)
      const expected = evaluateRuleset(deal.analysis, { id: 0, name: 'Default', kind: 'flat', definition: { ...DEFAULT_RULESET } });
      expect(expected.reasons[1]).toMatch(/^Cash flow coverage ratio [\d.]+ is below the target 1\.25/);
      const report = (await app.request('GET', `/v1/deals/${deal.id}`, { key })).body;
      expect(report.recommendation).toEqual({
        decision: expected.decision,
        total_score: expected.total_score,
        max_advance: expected.max_advance,
        cfcr: expected.cfcr,
        ruleset_name: 'Default',
        ruleset_id: expect.any(Number),
        grade: expected.grade,
        reasons: expected.reasons,
      });
      expect(await records(app, deal.id)).toHaveLength(1);
      expect(await events(app, 'recommendation.generated', deal.id)).toHaveLength(1);
    });
  });

  describe('POST /deals/{id}/evaluate', () => {
    let dealId: number;
    let analysis: Awaited<ReturnType<typeof newReadyDeal>>['analysis'];
    let flatId: number;
    let factorsId: number;

    beforeAll(async () => {
      const deal = await newReadyDeal(app, key, { profile: 'weak' });
      dealId = deal.id;
      analysis = deal.analysis;
      flatId = (await app.request('POST', '/v1/rulesets', { key, body: flatBody('Eval flat') })).body.id;
      factorsId = (await app.request('POST', '/v1/rulesets', { key, body: factorBody('Eval factors') })).body.id;
    });

    it('evaluates rulesets of both kinds, in the order asked, without storing anything', async () => {
      const res = await app.request(
        'POST',
        `/v1/deals/${dealId}/evaluate?ruleset_id=${flatId}&ruleset_ids=${factorsId}&ruleset_ids=${flatId}`,
        { key },
      );
      expect(res.status).toBe(200);
      expect(res.body.deal_id).toBe(dealId);
      const [a, b] = res.body.evaluations;
      expect(res.body.evaluations).toHaveLength(2);
      const { name: _n, ...flatRuleset } = flatBody('Eval flat');
      const expectedFlat = recommend(analysis, { ...(flatRuleset as unknown as FlatRuleset), name: 'Eval flat' });
      expect(a).toMatchObject({
        ruleset_id: flatId,
        ruleset_name: 'Eval flat',
        ruleset_kind: 'flat',
        is_default: false,
        total_score: expectedFlat.total_score,
        decision: expectedFlat.decision,
        max_advance: expectedFlat.max_advance,
        cfcr: expectedFlat.cfcr,
      });
      const expectedFactors = evaluateFactorRuleset(analysis, factorBody('Eval factors'));
      // the factors approve, but the cash flow coverage is below the minimum: review, the ratio named first
      expect(expectedFactors.decision).toBe('approve');
      expect(b).toMatchObject({
        ruleset_id: factorsId,
        ruleset_kind: 'factors',
        total_score: expectedFactors.total_score,
        decision: 'review',
        max_advance: null,
        failed_factors: expectedFactors.failed_factors,
        factor_scores: expectedFactors.factor_scores,
      });
      expect(b.reasons[0]).toMatch(
        /^Review: the score supports approval, but the cash flow coverage ratio [\d.]+ is below the minimum 1\.25/,
      );
      expect(await records(app, dealId)).toHaveLength(0);
      expect(await events(app, 'recommendation.generated', dealId)).toHaveLength(0);
    });

    it('accepts comma-separated ids and evaluates the default without ids', async () => {
      const both = await app.request('POST', `/v1/deals/${dealId}/evaluate?ruleset_ids=${factorsId},${flatId}`, { key });
      expect(both.body.evaluations.map((e: { ruleset_id: number }) => e.ruleset_id)).toEqual([factorsId, flatId]);
      const def = await app.request('POST', `/v1/deals/${dealId}/evaluate`, { key });
      expect(def.body.evaluations).toHaveLength(1);
      expect(def.body.evaluations[0]).toMatchObject({
        ruleset_name: 'Default',
        is_default: true,
        total_score: recommend(analysis).total_score,
      });
    });

    it('an unknown ruleset id is 404, a malformed one 422', async () => {
      const unknown = await app.request('POST', `/v1/deals/${dealId}/evaluate?ruleset_ids=${flatId}&ruleset_ids=999999`, { key });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ code: 'NOT_FOUND', detail: 'Ruleset 999999 not found' });
      const bad = await app.request('POST', `/v1/deals/${dealId}/evaluate?ruleset_ids=abc`, { key });
      expect(bad.status).toBe(422);
      expect(bad.body.errors[0].loc[0]).toBe('query');
    });
  });

  describe('isolation', () => {
    let stranger: Org;
    let ownerDeal: number;
    let ownerRuleset: number;

    beforeAll(async () => {
      stranger = await app.newOrg('Stranger');
      ownerDeal = (await newReadyDeal(app, key)).id;
      ownerRuleset = (await app.request('POST', '/v1/rulesets', { key, body: flatBody('Owner only') })).body.id;
    });

    it.each([
      ['GET', 'recommendation'],
      ['POST', 'evaluate'],
      ['POST', 'regenerate-summary'],
    ])('%s /deals/{id}/%s of another organization or the other mode is 404', async (method, action) => {
      const foreign = await app.request(method, `/v1/deals/${ownerDeal}/${action}`, { key: stranger.api_key });
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('DEAL_NOT_FOUND');
      expect((await app.request(method, `/v1/deals/${ownerDeal}/${action}`, { key: org.test_api_key })).status).toBe(404);
    });

    it('a ruleset of another organization or mode is 404 in evaluate', async () => {
      const strangerDeal = (await newReadyDeal(app, stranger.api_key)).id;
      const res = await app.request('POST', `/v1/deals/${strangerDeal}/evaluate?ruleset_id=${ownerRuleset}`, { key: stranger.api_key });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
      const testDeal = (await newReadyDeal(app, org.test_api_key)).id;
      expect(
        (await app.request('POST', `/v1/deals/${testDeal}/evaluate?ruleset_id=${ownerRuleset}`, { key: org.test_api_key })).status,
      ).toBe(404);
    });
  });

  describe('the numbers and the reading come before the score', () => {
    const upload = async (dealId: number, name: string, bytes: Uint8Array) => {
      const form = new FormData();
      form.append('file', new Blob([bytes], { type: 'application/pdf' }), name);
      const res = await app.request('POST', `/v1/deals/${dealId}/documents`, { key: o.api_key, form });
      expect(res.status).toBe(201);
    };
    let o: Org;
    beforeAll(async () => {
      o = await app.newOrg('Holds Org');
    });

    it("a cash flow coverage below the default ruleset's minimum is never approved: review, the ratio named first", async () => {
      const k = (await app.newOrg('Strict Coverage Org')).api_key;
      const deal = await newReadyDeal(app, k, { profile: 'strong' });
      const approved = (await app.request('GET', `/v1/deals/${deal.id}/recommendation`, { key: k })).body;
      expect(approved).toMatchObject({ decision: 'approve', max_advance: expect.any(Number) });
      const strict = await app.request('POST', '/v1/rulesets', { key: k, body: flatBody('Strict coverage', { cfcr_target: 50 }) });
      expect((await app.request('POST', `/v1/rulesets/${strict.body.id}/set-default`, { key: k })).status).toBe(200);
      const held = (await app.request('GET', `/v1/deals/${deal.id}/recommendation`, { key: k })).body;
      expect(held).toMatchObject({ decision: 'review', max_advance: null, cfcr_below_target: true, cached: false });
      expect(held.reasons[0]).toBe(
        `Review: the score supports approval, but the cash flow coverage ratio ${held.cfcr} is below the minimum 50`,
      );
    });

    describe('a statement that does not reconcile (real PDFs through the pipeline)', () => {
      let dealId: number;
      beforeAll(async () => {
        dealId = (
          await app.request('POST', '/v1/deals', {
            key: o.api_key,
            body: { business_name: 'Misread Statement LLC', funding_amount_requested: 1000 },
          })
        ).body.id;
        await upload(
          dealId,
          'good.pdf',
          (
            await makeStatement(
              LAYOUTS.find((l) => l.name === 'sectioned_unsigned')!,
              41,
              40,
            )
          ).bytes,
        );
        await upload(dealId, 'misread.pdf', await unreconciledStatement(42));
        await app.settle();
      });

      it('the default recommendation is review, its first reason naming the statement and the failed check', async () => {
        const deal = (await app.request('GET', `/v1/deals/${dealId}`, { key: o.api_key })).body;
        expect(deal.status).toBe('ready');
        expect(deal.statements.map((st: { filename: string; reconciled: boolean }) => [st.filename, st.reconciled])).toEqual([
          ['good.pdf', true],
          ['misread.pdf', false],
        ]);
        const rec = (await app.request('GET', `/v1/deals/${dealId}/recommendation`, { key: o.api_key })).body;
        expect(rec).toMatchObject({ decision: 'review', max_advance: null });
        expect(rec.reasons[0]).toMatch(
          /^Review: statement misread\.pdf failed reconciliation \(does not reconcile: opening [\d.]+ \+ credits [\d.]+ - debits [\d.]+ = [\d.]+, printed closing [\d.]+ \(difference 59673\.00\)\)\. No approve or decline /,
        );
        expect(rec.reasons[1]).toMatch(/^By the score alone, (approve|decline): total score /);
        expect(deal.recommendation.reasons[0]).toBe(rec.reasons[0]);
      });

      it('never a decline either, under any ruleset', async () => {
        const refusing = await app.request('POST', '/v1/rulesets', {
          key: o.api_key,
          body: flatBody('Refuses all', { approve_threshold: 100 }),
        });
        const factors = await app.request('POST', '/v1/rulesets', { key: o.api_key, body: factorBody('Factors for misread') });
        const res = await app.request('POST', `/v1/deals/${dealId}/evaluate?ruleset_ids=${refusing.body.id},${factors.body.id}`, {
          key: o.api_key,
        });
        expect(res.body.evaluations.map((e: { decision: string; max_advance: number | null }) => [e.decision, e.max_advance])).toEqual([
          ['review', null],
          ['review', null],
        ]);
        for (const e of res.body.evaluations) expect(e.reasons[0]).toMatch(/^Review: statement misread\.pdf failed reconciliation /);
      });
    });
  });

  describe('AI summary without a Groq key', () => {
    it('regenerates asynchronously (202) with the deterministic template', async () => {
      const deal = await newReadyDeal(app, key, { businessName: 'Template Bakery', profile: 'weak' });
      const res = await app.request('POST', `/v1/deals/${deal.id}/regenerate-summary`, { key });
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ status: 'accepted', deal_id: deal.id });
      await app.drainEvents();
      const report = (await app.request('GET', `/v1/deals/${deal.id}`, { key })).body;
      const text: string = report.ai_summary;
      expect(text).toMatch(/^Template Bakery \(Food service\) requests \$40,000\.00\./);
      expect(text).toContain(`${deal.analysis.nsf_overdraft.total_nsf_fees} NSF fee`);
      expect(text).toMatch(/lender position/);
      expect(text).toMatch(/health score is/);
      // Same report, same text.
      await app.request('POST', `/v1/deals/${deal.id}/regenerate-summary`, { key });
      await app.drainEvents();
      expect((await app.request('GET', `/v1/deals/${deal.id}`, { key })).body.ai_summary).toBe(text);
      // Other report sections are untouched.
      expect(report.financials).toMatchObject({ avg_monthly_deposits: deal.analysis.financials.avg_monthly_deposits });
    });
  });
});

describe('AI summary with Groq (fake server)', () => {
  let app: TestApp;
  let fake: FakeGroq;
  let key: string;
  let reply: (req: FakeGroqRequest) => Promise<string | { status: number; body: unknown }>;

  const factsOf = (req: FakeGroqRequest) => JSON.parse(req.messages[1].content.replace(/^[^\n]*\n/, '')) as Record<string, any>;

  beforeAll(async () => {
    fake = await startFakeGroq({ respond: (req) => reply(req) });
    app = await TestApp.start({
      GROQ_API_KEY: 'test-key',
      GROQ_BASE_URL: fake.url,
      GROQ_TIMEOUT_MS: '300',
      GROQ_MODEL: 'fake-llama',
      GROQ_MAX_TOKENS: '600',
    });
    key = (await app.newOrg('Groq Org')).api_key;
  });
  const pending = new Set<NodeJS.Timeout>();
  afterAll(async () => {
    for (const t of pending) clearTimeout(t);
    await app?.close();
    await fake?.close();
  });

  async function regenerate(dealId: number): Promise<string> {
    expect((await app.request('POST', `/v1/deals/${dealId}/regenerate-summary`, { key })).status).toBe(202);
    await app.drainEvents();
    return (await app.request('GET', `/v1/deals/${dealId}`, { key })).body.ai_summary;
  }

  it('asks the configured model with bounded tokens, JSON mode and the report numbers only', async () => {
    reply = async (req) => {
      const f = factsOf(req);
      return JSON.stringify({
        summary: `${f.business_name} deposits ${f.revenue.avg_monthly_deposits} a month; the recommendation is ${f.recommendation.decision} at ${f.recommendation.total_score}.`,
      });
    };
    const deal = await newReadyDeal(app, key, { businessName: 'Groq Grill', recommend: true });
    const count = fake.requests.length;
    const text = await regenerate(deal.id);
    expect(fake.requests).toHaveLength(count + 1);
    const req = fake.requests[count];
    expect(req.model).toBe('fake-llama');
    expect(req.body.max_tokens).toBe(600);
    expect(req.body.response_format).toEqual({ type: 'json_object' });
    expect(req.headers.authorization).toBe('Bearer test-key');
    expect(req.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(req.messages[0].content).toMatch(/Use ONLY the figures in the JSON/);
    expect(req.messages[0].content).toMatch(/Do not invent/);
    const facts = factsOf(req);
    expect(facts).toMatchObject({
      business_name: 'Groq Grill',
      funding_amount_requested: 40000,
      revenue: { avg_monthly_deposits: deal.analysis.financials.avg_monthly_deposits },
      balances: { avg_daily_balance: deal.analysis.financials.avg_daily_balance },
      nsf_overdraft: { total_nsf_fees: deal.analysis.nsf_overdraft.total_nsf_fees },
      health: { score: deal.analysis.health.score, grade: deal.analysis.health.grade },
      lender_positions: { position_count: deal.analysis.lender_positions.position_count },
      recommendation: { ruleset_name: 'Default' },
    });
    expect(text).toBe(
      `Groq Grill deposits ${deal.analysis.financials.avg_monthly_deposits} a month; the recommendation is ${facts.recommendation.decision} at ${facts.recommendation.total_score}.`,
    );
  });

  it('handles each request once: a redelivered event does not call the LLM again', async () => {
    reply = async () => JSON.stringify({ summary: 'Short and grounded.' });
    const deal = await newReadyDeal(app, key);
    await regenerate(deal.id);
    const count = fake.requests.length;
    const em = app.get(Database).system();
    await em.nativeUpdate(
      DomainEventRecord,
      { type: 'deal.summary_requested', dealId: deal.id },
      { dispatchedAt: null, nextAttemptAt: new Date(0) },
    );
    await app.drainEvents();
    expect(fake.requests).toHaveLength(count);
    expect((await app.request('GET', `/v1/deals/${deal.id}`, { key })).body.ai_summary).toBe('Short and grounded.');
  });

  it.each<[string, () => Promise<string | { status: number; body: unknown }>]>([
    ['an HTTP 500', async () => ({ status: 500, body: { error: { message: 'upstream exploded' } } })],
    ['a timeout', () => new Promise((resolve) => pending.add(setTimeout(() => resolve(JSON.stringify({ summary: 'too late' })), 1500)))],
    ['an answer that is not JSON', async () => 'Sure! Here is your summary.'],
    ['an invented figure', async () => JSON.stringify({ summary: 'Revenue is a healthy $987,654 a month.' })],
  ])('falls back to the template on %s', async (_, behaviour) => {
    reply = behaviour;
    const deal = await newReadyDeal(app, key, { businessName: 'Fallback Foods' });
    const count = fake.requests.length;
    const text = await regenerate(deal.id);
    expect(fake.requests.length).toBe(count + 1);
    expect(text).toMatch(/^Fallback Foods \(Food service\) requests \$40,000\.00\./);
  });
});
