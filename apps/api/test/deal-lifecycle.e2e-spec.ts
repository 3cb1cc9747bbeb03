import { DealLifecycleService, statusFor } from '../src/modules/pipeline/services/deal-lifecycle.service';
import { Deal } from '../src/modules/pipeline/entities/deal.entities';
import { Document, DocumentStatus } from '../src/modules/pipeline/entities/document.entities';
import { RecommendationRecord } from '../src/modules/pipeline/entities/recommendation.entity';
import { Transaction } from '../src/modules/pipeline/entities/transaction.entities';
import { Database } from '../src/platform/database/database.service';
import { recordEvent } from '../src/platform/events/events';
import { DomainEventRecord } from '../src/platform/events/outbox.entity';
import { Factories } from './support/factories';
import { TestApp } from './support/harness';
import { makeStatements } from './support/ready-deal';

/**
 * The deal lifecycle service on a real database: the deal status each set of document states
 * leads to, the report written on the way to ready, idempotence, and the event-driven path.
 */
describe('deal lifecycle', () => {
  let app: TestApp;
  let f: Awaited<ReturnType<typeof Factories.forNewOrg>>;
  let lifecycle: DealLifecycleService;
  const [march] = makeStatements('strong').slice(2);

  beforeAll(async () => {
    app = await TestApp.start();
    f = await Factories.forNewOrg(app, 'Lifecycle Org');
    lifecycle = app.get(DealLifecycleService);
  });
  afterAll(() => app?.close());

  const reload = (id: number) => app.get(Database).forScope(f.scope).findOneOrFail(Deal, { id }, { refresh: true });
  const count = async (type: string, dealId: number) => app.get(Database).system().count(DomainEventRecord, { type, dealId });
  const recommendations = (dealId: number) => app.get(Database).system().count(RecommendationRecord, { dealId }, { filters: false });

  /** A deal with one document per status; `statement` makes completed ones bank statements with transactions. */
  async function dealWith(statuses: DocumentStatus[], statement = true): Promise<Deal> {
    const deal = await f.deal();
    for (const status of statuses) {
      if (status === 'completed' && statement) await f.statement(deal, march);
      else
        await f.document(deal, {
          status,
          documentType: status === 'completed' ? 'tax_return' : null,
          error: status === 'failed' ? 'PROCESSING_FAILED: corrupt' : null,
        });
    }
    return deal;
  }

  describe('transition table', () => {
    it.each<[string, DocumentStatus[], string, boolean]>([
      ['no document', [], 'new', false],
      ['one queued', ['uploaded'], 'processing', false],
      ['one in a step', ['extracting_text'], 'processing', false],
      ['one done, one in flight', ['completed', 'parsing_with_llm'], 'processing', false],
      ['one completed statement', ['completed'], 'ready', true],
      ['completed and failed', ['completed', 'failed'], 'ready', true],
      ['every document failed', ['failed', 'failed'], 'failed', false],
      ['failed and cancelled', ['failed', 'cancelled'], 'failed', false],
      ['only cancelled', ['cancelled'], 'new', false],
    ])('%s -> %s', async (_, statuses, expected, hasReport) => {
      expect(statusFor(statuses.map((status) => ({ status })))).toBe(expected);
      const deal = await dealWith(statuses);
      await lifecycle.refresh(f.scope, deal.id);
      const after = await reload(deal.id);
      expect(after.status).toBe(expected);
      expect(after.documentCount).toBe(statuses.length);
      expect(after.report !== null).toBe(hasReport);
      expect(after.analysis !== null).toBe(hasReport);
      expect(await count('deal.ready', deal.id)).toBe(expected === 'ready' ? 1 : 0);
    });

    it('ready with only a non-statement document: a report without analysis, no recommendation', async () => {
      const deal = await dealWith(['completed'], false);
      await lifecycle.refresh(f.scope, deal.id);
      const after = await reload(deal.id);
      expect(after).toMatchObject({ status: 'ready', analysis: null, healthScore: null });
      expect(after.report).toMatchObject({ coverage: { statement_count: 0 }, financials: null });
      expect(await recommendations(deal.id)).toBe(0);
    });

    it('the failed document of a ready deal is named for review', async () => {
      const deal = await dealWith(['completed', 'failed']);
      await lifecycle.refresh(f.scope, deal.id);
      const res = await app.request('GET', `/v1/deals/${deal.id}`, { key: f.apiKey });
      expect(res.body.review.documents).toEqual([
        expect.objectContaining({ status: 'failed', reasons: ['processing failed: PROCESSING_FAILED: corrupt'] }),
      ]);
      expect(res.body.statements).toHaveLength(1);
    });
  });

  it('is idempotent: the same documents build the report, the recommendation and deal.ready once', async () => {
    const deal = await dealWith(['completed']);
    await lifecycle.refresh(f.scope, deal.id);
    const first = await reload(deal.id);
    await lifecycle.refresh(f.scope, deal.id);
    const second = await reload(deal.id);
    expect(second.updatedAt).toEqual(first.updatedAt);
    expect(await count('deal.ready', deal.id)).toBe(1);
    expect(await recommendations(deal.id)).toBe(1);
  });

  it('a ready deal whose statement is reprocessed and then fails becomes failed and loses its report', async () => {
    const deal = await dealWith(['completed']);
    await lifecycle.refresh(f.scope, deal.id);
    // the deal list carries the recommendation's decision while the report has one, and only then
    const listed = async () =>
      (await app.request('GET', `/v1/deals?q=${encodeURIComponent(deal.businessName)}&per_page=100`, { key: f.apiKey })).body.data.find(
        (d: { id: number }) => d.id === deal.id,
      ).recommendation_decision;
    const decision = ((await reload(deal.id)).report as { recommendation: { decision: string } }).recommendation.decision;
    expect(['approve', 'decline', 'review']).toContain(decision);
    expect(await listed()).toBe(decision);
    const em = app.get(Database).forScope(f.scope);
    const doc = await em.findOneOrFail(Document, { dealId: deal.id });
    await em.nativeUpdate(Document, { id: doc.id }, { status: 'uploaded', attempt: 2 });
    await lifecycle.refresh(f.scope, deal.id);
    expect((await reload(deal.id)).status).toBe('processing');
    await em.nativeUpdate(Document, { id: doc.id }, { status: 'failed' });
    await lifecycle.refresh(f.scope, deal.id);
    expect(await reload(deal.id)).toMatchObject({ status: 'failed', report: null, analysis: null, healthScore: null, screeningFlags: 0 });
    expect(await listed()).toBeNull();
  });

  it('records deal.updated for every status the lifecycle moves, and none when nothing moved', async () => {
    const deal = await dealWith(['completed']);
    const updates = async () =>
      (
        await app
          .get(Database)
          .system()
          .find(DomainEventRecord, { type: 'deal.updated', dealId: deal.id }, { orderBy: { id: 'asc' } })
      ).map((e) => [e.data.previous_status, e.data.status]);
    await lifecycle.refresh(f.scope, deal.id);
    await lifecycle.refresh(f.scope, deal.id);
    const em = app.get(Database).forScope(f.scope);
    const doc = await em.findOneOrFail(Document, { dealId: deal.id });
    await em.nativeUpdate(Document, { id: doc.id }, { status: 'failed' });
    await lifecycle.refresh(f.scope, deal.id);
    expect(await updates()).toEqual([
      ['new', 'ready'],
      ['ready', 'failed'],
    ]);
    // a reprocess request moves the deal in its own transaction (what processing does next may follow)
    const reprocess = await app.request('POST', `/v1/documents/${doc.id}/reprocess`, { key: f.apiKey });
    expect(reprocess.status).toBe(202);
    expect((await updates())[2]).toEqual(['failed', 'processing']);
  });

  it('follows document events delivered through the outbox, not the request', async () => {
    const deal = await dealWith(['failed']);
    const em = app.get(Database).forScope(f.scope);
    await em.transactional(async (tx) => {
      recordEvent(tx, f.scope, 'document.failed', { dealId: deal.id, actor: 'test', data: { deal_id: deal.id } });
    });
    await app.drainEvents();
    expect((await reload(deal.id)).status).toBe('failed');
  });

  describe('rescore', () => {
    it('POST /deals/{id}/rescore recomputes a deal scored before (another scoring), with the events of an analysis, once', async () => {
      const deal = await dealWith(['completed']);
      await lifecycle.refresh(f.scope, deal.id);
      // as a deal scored by an earlier version would be stored
      const em = app.get(Database).forScope(f.scope);
      const stored = await reload(deal.id);
      await em.nativeUpdate(Deal, { id: deal.id }, { report: { ...stored.report, inputs_key: 'scored-before' } });
      const res = await app.request('POST', `/v1/deals/${deal.id}/rescore`, { key: f.apiKey });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ rescored: true, deal: { id: deal.id, status: 'ready' } });
      expect(res.body.deal.recommendation).toMatchObject({ decision: expect.any(String) });
      expect(await count('deal.ready', deal.id)).toBe(2);
      expect(await count('recommendation.generated', deal.id)).toBe(2);
      expect(await count('deal.updated', deal.id)).toBe(1); // ready stays ready: no status change
      const again = await app.request('POST', `/v1/deals/${deal.id}/rescore`, { key: f.apiKey });
      expect(again.body.rescored).toBe(false);
      expect(await count('deal.ready', deal.id)).toBe(2);
      expect(await recommendations(deal.id)).toBe(2);
    });

    it('is 409 while the deal is processing or has nothing to score', async () => {
      const processing = await dealWith(['completed', 'extracting_text']);
      await lifecycle.refresh(f.scope, processing.id);
      const res = await app.request('POST', `/v1/deals/${processing.id}/rescore`, { key: f.apiKey });
      expect(res.status).toBe(409);
      expect(res.body.detail).toMatch(/is processing: it is scored from its stored transactions, corrections included/);
      const failed = await dealWith(['failed']);
      await lifecycle.refresh(f.scope, failed.id);
      expect((await app.request('POST', `/v1/deals/${failed.id}/rescore`, { key: f.apiKey })).status).toBe(409);
    });

    it('a statement that did not reconcile is checked again on its corrected rows: fixed, the recommendation is firm again', async () => {
      const deal = await f.deal({ fundingAmountRequested: 5000 });
      // one deposit read ten times too large: the totals miss the printed closing balance
      const misread = { ...march, transactions: march.transactions.map((t) => ({ ...t, balance: null })) };
      const i = misread.transactions.findIndex((t) => t.amount > 0);
      const truth = misread.transactions[i].amount;
      misread.transactions[i] = { ...misread.transactions[i], amount: Math.round(truth * 1000) / 100 };
      const doc = await f.statement(deal, misread, {
        filename: 'march.pdf',
        reconciliation: { reconciled: false },
        needsReview: true,
        reviewReasons: ['does not reconcile: the printed closing balance differs (difference 1.00)'],
      });
      await lifecycle.refresh(f.scope, deal.id);
      const held = (await app.request('GET', `/v1/deals/${deal.id}`, { key: f.apiKey })).body;
      expect(held.recommendation.decision).toBe('review');
      expect(held.recommendation.reasons[0]).toMatch(/^Review: statement march\.pdf failed reconciliation /);
      const em = app.get(Database).forScope(f.scope);
      const row = await em.findOneOrFail(Transaction, { documentId: doc.id, position: i });
      const res = await app.request('PATCH', `/v1/documents/${doc.id}/transactions/${row.id}`, {
        key: f.apiKey,
        body: { amount: truth, correction_reason: 'decimal point misread' },
      });
      expect(res.status).toBe(200);
      const fixed = (await app.request('GET', `/v1/deals/${deal.id}`, { key: f.apiKey })).body;
      expect(fixed.statements[0].reconciled).toBe(true);
      expect(fixed.review.documents).toEqual([]);
      expect(fixed.recommendation.reasons[0]).not.toMatch(/failed reconciliation/);
      expect(['approve', 'decline']).toContain(fixed.recommendation.decision);
    });
  });

  it('upload makes the deal processing at once; cancel leaves the deal to its lifecycle', async () => {
    const deal = await dealWith([]);
    const doc = await f.document(deal, { status: 'extracting_text' });
    await lifecycle.refresh(f.scope, deal.id);
    expect((await reload(deal.id)).status).toBe('processing');
    const res = await app.request('POST', `/v1/documents/${doc.id}/cancel`, { key: f.apiKey });
    expect(res.status).toBe(200);
    expect(await count('document.cancelled', deal.id)).toBe(1);
    await app.drainEvents();
    expect((await reload(deal.id)).status).toBe('new');
  });
});
