import { DealLifecycleService, statusFor } from '../src/modules/deals/deal-lifecycle.service';
import { Deal } from '../src/modules/deals/deals.entities';
import { Document, DocumentStatus } from '../src/modules/documents/documents.entities';
import { RecommendationRecord } from '../src/modules/rulesets/rulesets.entities';
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
    const em = app.get(Database).forScope(f.scope);
    const doc = await em.findOneOrFail(Document, { dealId: deal.id });
    await em.nativeUpdate(Document, { id: doc.id }, { status: 'uploaded', attempt: 2 });
    await lifecycle.refresh(f.scope, deal.id);
    expect((await reload(deal.id)).status).toBe('processing');
    await em.nativeUpdate(Document, { id: doc.id }, { status: 'failed' });
    await lifecycle.refresh(f.scope, deal.id);
    expect(await reload(deal.id)).toMatchObject({ status: 'failed', report: null, analysis: null, healthScore: null, screeningFlags: 0 });
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
