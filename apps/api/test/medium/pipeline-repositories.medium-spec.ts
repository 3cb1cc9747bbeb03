import { DealRepository } from '../../src/modules/pipeline/repositories/deal.repository';
import { DocumentRepository } from '../../src/modules/pipeline/repositories/document.repository';
import { TransactionExportRow, TransactionRepository } from '../../src/modules/pipeline/repositories/transaction.repository';
import { Transaction } from '../../src/modules/pipeline/entities/transaction.entities';
import { Database } from '../../src/platform/database/database.service';
import { Scope, scopeFields } from '../../src/platform/database/tenant';
import { Factories } from '../support/factories';
import { TestApp } from '../support/harness';
import { makeStatements } from '../support/ready-deal';

/**
 * The medium tier: the pipeline's repositories on a real database (the PGlite template, or
 * PostgreSQL under `npm run test:real`), called directly, no HTTP request sent. Each query is
 * checked for what it returns, in which order, and that it stays inside its organization and mode.
 */
describe('pipeline repositories (medium)', () => {
  let app: TestApp;
  let a: Awaited<ReturnType<typeof Factories.forNewOrg>>;
  let b: Awaited<ReturnType<typeof Factories.forNewOrg>>;
  let deals: DealRepository;
  let documents: DocumentRepository;
  let transactions: TransactionRepository;
  const uow = (scope: Scope) => app.get(Database).unitOfWork(scope);
  const [march] = makeStatements('strong').slice(2);

  beforeAll(async () => {
    app = await TestApp.start();
    a = await Factories.forNewOrg(app, 'Medium A');
    b = await Factories.forNewOrg(app, 'Medium B');
    deals = app.get(DealRepository);
    documents = app.get(DocumentRepository);
    transactions = app.get(TransactionRepository);
  });
  afterAll(() => app?.close());

  describe('DealRepository', () => {
    let ids: number[];
    beforeAll(async () => {
      ids = [];
      for (const [businessName, dbaName] of [
        ['Alpha Bakery LLC', null],
        ['Beta Holdings Inc', 'Beta Cafe'],
        ['Gamma Diner Corp', null],
      ] as const) {
        ids.push((await a.deal({ businessName, dbaName, externalReference: `ref-${businessName.split(' ')[0]}` })).id);
      }
      await a.deal({ businessName: 'Alpha Test Mode', livemode: false });
      await b.deal({ businessName: 'Alpha Of Another Org' });
    });

    it('pages, searches and counts the deals of one organization and mode', async () => {
      const names = async (filter: { q?: string; status?: string }, order: 'asc' | 'desc' = 'asc') =>
        (await deals.findPageForOrg(a.scope, filter, 'business_name', order, 0, 10)).map((d) => d.businessName);
      expect(await names({})).toEqual(['Alpha Bakery LLC', 'Beta Holdings Inc', 'Gamma Diner Corp']);
      expect(await names({}, 'desc')).toEqual(['Gamma Diner Corp', 'Beta Holdings Inc', 'Alpha Bakery LLC']);
      // q matches any of the three names (here the dba name), and its LIKE wildcards are literal
      expect(await names({ q: 'cafe' })).toEqual(['Beta Holdings Inc']);
      expect(await names({ q: '%' })).toEqual([]);
      expect(await names({ status: 'ready' })).toEqual([]);
      expect(await deals.countMatching(a.scope, {})).toBe(3);
      expect(await deals.countUpTo(a.scope, {}, 2)).toBe(2);
      expect(await deals.countMatching(b.scope, { q: 'alpha' })).toBe(1);
      expect((await deals.findPageForOrg(a.scope, {}, 'created_at', 'asc', 1, 1)).map((d) => d.id)).toEqual([ids[1]]);
      // a summary page reads neither the report nor the analysis
      const [summary] = await deals.findPageForOrg(a.scope, {}, 'created_at', 'asc', 0, 1);
      expect(summary).not.toHaveProperty('report');
      expect(summary).not.toHaveProperty('analysis');
      expect(await deals.estimateMatching(a.scope, {})).toBeGreaterThanOrEqual(0);
      const stats = await deals.statsForOrg(a.scope, '2000-01-01T00:00:00.000Z', '2000-01-01T00:00:00.000Z');
      expect({ total: stats.total, new: stats.status_new, week: stats.this_week }).toEqual({ total: 3, new: 3, week: 3 });
    });

    it("never finds another organization's or mode's deal", async () => {
      const other = (await b.deal({ businessName: 'Hidden LLC' })).id;
      expect(await deals.findDetail(a.scope, other)).toBeNull();
      expect((await deals.findDetail(b.scope, other))?.businessName).toBe('Hidden LLC');
      expect(await deals.findById(uow(a.scope), other)).toBeNull();
      expect(await deals.exists(uow({ ...b.scope, livemode: false }), other)).toBe(false);
      await expect(deals.getOr404(uow(a.scope), other)).rejects.toMatchObject({ code: 'DEAL_NOT_FOUND' });
      expect((await deals.findMany(uow(a.scope), [other, ids[0]])).map((d) => d.id)).toEqual([ids[0]]);
      expect(await deals.businessNames(uow(a.scope), [other, ids[2]])).toEqual(new Map([[ids[2], 'Gamma Diner Corp']]));
      expect((await deals.takenReferences(uow(a.scope), ['ref-Alpha', 'ref-Zeta'])).sort()).toEqual(['ref-Alpha']);
      expect(await deals.takenReferences(uow(b.scope), ['ref-Alpha'])).toEqual([]);
    });

    it('finds the deals ingest matches and CRM sync pushes: by reference, EIN, a word of the name, all; inside the scope', async () => {
      const delta = (await a.deal({ businessName: 'Delta Deli LLC', ein: '123456789' })).id;
      await b.deal({ businessName: 'Delta Elsewhere', ein: '123456789', externalReference: 'ref-Alpha' });
      const inA = uow(a.scope);
      expect((await deals.findByReference(inA, 'ref-Alpha'))?.id).toBe(ids[0]);
      expect(await deals.findByReference(inA, 'ref-Zeta')).toBeNull();
      expect((await deals.findByReferences(inA, ['ref-Beta', 'ref-Gamma', 'ref-Zeta'])).map((d) => d.id).sort()).toEqual(
        [ids[1], ids[2]].sort(),
      );
      expect((await deals.findNewestByEin(inA, '123456789', true))?.id).toBe(delta);
      expect(await deals.findNewestByEin(uow({ ...a.scope, livemode: false }), '123456789', false)).toBeNull();
      expect((await deals.findNamesContaining(inA, 'delta', false, 10)).map((d) => d.id)).toEqual([delta]);
      expect(await deals.findNamesContaining(inA, '%', false, 10)).toEqual([]);
      // without a reference only: Alpha Bakery has one
      expect(await deals.findNamesContaining(inA, 'alpha', true, 10)).toEqual([]);
      expect((await deals.findNamesContaining(inA, 'alpha', false, 10)).map((d) => d.id)).toEqual([ids[0]]);
      expect(await deals.countAll(inA)).toBe(4);
      expect((await deals.findAll(inA)).map((d) => d.id)).toEqual([...ids, delta]);
    });

    it('writes nothing of a unit of work whose transaction throws', async () => {
      const before = await deals.countMatching(a.scope, {});
      await expect(
        uow(a.scope).transaction(async (tx) => {
          deals.create(tx, { ...scopeFields(a.scope), businessName: 'Rolled Back LLC', fundingAmountRequested: 1000 });
          await tx.flush();
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      expect(await deals.countMatching(a.scope, {})).toBe(before);
      const created = await uow(a.scope).transaction(async (tx) => {
        const deal = deals.create(tx, { ...scopeFields(a.scope), businessName: 'Committed LLC', fundingAmountRequested: 1000 });
        await tx.flush();
        return deal;
      });
      expect((await deals.findDetail(a.scope, created.id))?.businessName).toBe('Committed LLC');
    });
  });

  describe('DocumentRepository', () => {
    it('lists, finds and locks documents of the scope only; the queue sees every organization', async () => {
      const deal = await a.deal();
      const failed = await a.document(deal, { status: 'failed' });
      const queued = await a.document(deal, { status: 'uploaded' });
      const cancelled = await a.document(deal, { status: 'cancelled' });
      const foreign = await b.document(await b.deal(), { status: 'uploaded' });
      expect((await documents.listForDeal(uow(a.scope), deal.id)).map((d) => d.id)).toEqual([failed.id, queued.id, cancelled.id]);
      expect((await documents.findPageForDeal(uow(a.scope), deal.id, 1, 1)).map((d) => d.id)).toEqual([queued.id]);
      expect(await documents.countForDeal(uow(a.scope), deal.id)).toBe(3);
      // in flight, other than those named: the queued one only (failed and cancelled are terminal)
      expect(await documents.countInFlightForDeal(uow(a.scope), deal.id, [])).toBe(1);
      expect(await documents.countInFlightForDeal(uow(a.scope), deal.id, [queued.id])).toBe(0);
      expect(await documents.countInFlightForDeal(uow(b.scope), deal.id, [])).toBe(0);
      expect((await documents.findRetryableForDeal(uow(a.scope), deal.id)).map((d) => d.id)).toEqual([failed.id, cancelled.id]);
      expect(await documents.findById(uow(a.scope), foreign.id)).toBeNull();
      expect((await documents.findMany(uow(a.scope), [foreign.id, queued.id])).map((d) => d.id)).toEqual([queued.id]);
      expect(await uow(a.scope).transaction((tx) => documents.lockById(tx, foreign.id))).toBeNull();
      // the queue's workers find a document by id whatever its organization
      const system = app.get(Database).systemUnitOfWork();
      expect((await documents.findByIdUnscoped(system, foreign.id))?.organizationId).toBe(b.scope.organizationId);
      expect((await system.transaction((tx) => documents.lockByIdUnscoped(tx, foreign.id)))?.id).toBe(foreign.id);
      // a document's place in its own organization's backlog: its unfinished documents up to it
      expect(await documents.placeInBacklog(queued)).toBe(1 + (await documents.placeInBacklog({ ...queued, id: queued.id - 1 })));
      expect((await documents.findUnfinishedBacklog()).map((d) => d.id)).toEqual(expect.arrayContaining([queued.id, foreign.id]));
      expect((await documents.findUnfinishedBacklog()).map((d) => d.id)).not.toContain(failed.id);
      const stuck = await documents.findStuck(system, new Date(Date.now() + 60_000), 500);
      expect(stuck.map((d) => d.id)).toEqual(expect.arrayContaining([queued.id, foreign.id]));
      expect(stuck.map((d) => d.id)).not.toContain(cancelled.id);
    });
  });

  describe('TransactionRepository', () => {
    it('filters, orders and pages the rows of a statement, and keyset pages cover each row once', async () => {
      const deal = await a.deal();
      const doc = await a.statement(deal, march);
      const scoped = uow(a.scope);
      const total = await transactions.countForDocument(scoped, doc.id, {});
      expect(total).toBe(march.transactions.length);
      const credits = await transactions.countForDocument(scoped, doc.id, { type: 'credit' });
      const debits = await transactions.countForDocument(scoped, doc.id, { type: 'debit' });
      expect(credits + debits).toBe(total);
      const flagged = await transactions.countForDocument(scoped, doc.id, { flagged: true });
      expect(flagged + (await transactions.countForDocument(scoped, doc.id, { flagged: false }))).toBe(total);
      const all = await transactions.findPageForDocument(scoped, doc.id, {}, 0, 1000);
      const order = all.map((t) => `${t.date}|${String(t.position).padStart(5, '0')}`);
      expect(order).toEqual([...order].sort());
      const firstWeek = await transactions.findPageForDocument(scoped, doc.id, { from: '2025-03-01', to: '2025-03-07' }, 0, 1000);
      expect(firstWeek.length).toBeGreaterThan(0);
      expect(firstWeek.every((t) => t.date >= '2025-03-01' && t.date <= '2025-03-07')).toBe(true);
      expect(await transactions.countForDocument(uow(b.scope), doc.id, {})).toBe(0);

      const seen: number[] = [];
      let after: TransactionExportRow | null = null;
      for (;;) {
        const page: TransactionExportRow[] = await transactions.findExportPage(scoped, deal.id, [doc.id], after, 7);
        seen.push(...page.map((r) => r.id));
        if (page.length < 7) break;
        after = page[page.length - 1];
      }
      expect(seen).toEqual(all.map((t) => t.id));
      expect(await transactions.findExportPage(uow(b.scope), deal.id, [doc.id], null, 7)).toEqual([]);
    });

    it('counts the trail entries of documents and keeps corrected rows when a reading is replaced', async () => {
      const deal = await a.deal();
      const doc = await a.statement(deal, march);
      const scoped = uow(a.scope);
      expect(await transactions.countCorrectionsForDocuments(scoped, [doc.id])).toBe(0);
      const [row] = await transactions.findPageForDocument(scoped, doc.id, {}, 0, 1);
      await scoped.transaction(async (tx) => {
        const locked = (await transactions.findInDocument(tx, doc.id, row.id, true))!;
        locked.correctionCount += 2;
        transactions.addCorrection(tx, {
          ...scopeFields(a.scope),
          transactionId: row.id,
          dealId: deal.id,
          documentId: doc.id,
          field: 'description',
          oldValue: row.description,
          newValue: 'CORRECTED',
          correctionReason: 'medium test',
          correctedBy: 'test:medium',
          correctedAt: new Date('2026-01-01T00:00:00Z'),
        });
      });
      expect(await transactions.countCorrectionsForDocuments(uow(a.scope), [doc.id])).toBe(1);
      expect(await transactions.countCorrectionsForDocuments(uow(b.scope), [doc.id])).toBe(0);
      expect((await transactions.trailOf(uow(a.scope), row.id)).map((c) => c.newValue)).toEqual(['CORRECTED']);
      // a description correction is not a category one: the deal's screening may set this row's category
      const rows = await transactions.findForDocuments(uow(a.scope), [doc.id]);
      expect(await transactions.categoryCorrected(uow(a.scope), rows)).toEqual(new Set());
      expect(await transactions.trailOf(uow(b.scope), row.id)).toEqual([]);

      const system = app.get(Database).systemUnitOfWork();
      await system.transaction(async (tx) => {
        const corrected = await transactions.loadCorrectedRowsUnscoped(tx, doc.id);
        expect(corrected.rows.map((r) => r.id)).toEqual([row.id]);
        expect(corrected.trails.get(row.id)?.map((c) => c.field)).toEqual(['description']);
        await transactions.deleteReadingUnscoped(
          tx,
          doc.id,
          corrected.rows.map((r) => r.id),
        );
      });
      expect((await transactions.findPageForDocument(uow(a.scope), doc.id, {}, 0, 1000)).map((t: Transaction) => t.id)).toEqual([row.id]);
      expect(await transactions.exists(uow(a.scope), row.id)).toBe(true);
      expect(await transactions.exists(uow(b.scope), row.id)).toBe(false);
      // a category correction is: the deal's screening leaves that row's category alone
      await uow(a.scope).transaction(async (tx) => {
        transactions.addCorrection(tx, {
          ...scopeFields(a.scope),
          transactionId: row.id,
          dealId: deal.id,
          documentId: doc.id,
          field: 'category',
          oldValue: row.category,
          newValue: 'transfer',
          correctionReason: 'medium test',
          correctedBy: 'test:medium',
          correctedAt: new Date('2026-01-01T00:00:00Z'),
        });
      });
      expect(await transactions.categoryCorrected(uow(a.scope), rows)).toEqual(new Set([row.id]));
      expect(await transactions.categoryCorrected(uow(b.scope), rows)).toEqual(new Set());
    });
  });
});
