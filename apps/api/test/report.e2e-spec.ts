import { parseStatementFile } from '@ledgerlens/statements';
import { counterpartyKey, matchLender, screenTransactions } from '@ledgerlens/underwriting';
import { makeEdit } from '../../../tools/bench/tamper-edits';
import { LAYOUTS } from '../../../tools/corpus/layouts';
import { makeStatement, CorpusItem } from '../../../tools/corpus/corpus';
import { withIncrementalEdit } from '../../../tools/corpus/others';
import type { StatementModel, TruthTransaction } from '../../../tools/corpus/model';
import { Rng } from '../../../tools/corpus/rng';
import { TestApp } from './support/harness';
import { newReadyDeal } from './support/ready-deal';
import { unreconciledStatement } from './support/unreconciled-statement';

/**
 * The deal report end to end: corpus statements (PDFs with ground truth) go through upload, the
 * real pipeline and the report builder; every section is checked against the ground truth.
 */

const layout = (name: string) => LAYOUTS.find((l) => l.name === name)!;
const round2 = (n: number) => Math.round(n * 100) / 100;
const sum = (xs: number[]) => round2(xs.reduce((a, b) => a + b, 0));
const DAY = 86_400_000;
const days = (from: string, to: string) => {
  const out: string[] = [];
  for (let t = Date.parse(from); t <= Date.parse(to); t += DAY) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
};
type Truth = Required<CorpusItem['truth']>;
const truthOf = (item: CorpusItem) => item.truth as Truth;

/** End-of-day balance of one statement on each day of its period, from the printed truth. */
function truthDaily(item: CorpusItem): Map<string, number> {
  const t = truthOf(item);
  const out = new Map<string, number>();
  // layouts print sections (deposits, then withdrawals): walk the rows in date order
  const rows = t.transactions
    .map((x, k) => ({ x, k }))
    .sort((p, q) => p.x.date.localeCompare(q.x.date) || p.k - q.k)
    .map(({ x }) => x);
  let bal = t.openingBalance;
  let i = 0;
  for (const day of days(t.periodStart, t.periodEnd)) {
    while (i < rows.length && rows[i].date <= day) bal = round2(bal + rows[i++].amount);
    out.set(day, bal);
  }
  return out;
}

describe('deal report from corpus statements', () => {
  let app: TestApp;
  let key: string;
  let a: CorpusItem;
  let b: CorpusItem;

  const newDeal = async (name: string, funding = 40000) =>
    (await app.request('POST', '/v1/deals', { key, body: { business_name: name, funding_amount_requested: funding } })).body.id as number;
  const upload = async (
    dealId: number,
    item: CorpusItem,
    name = `${item.name}.pdf`,
    fields: Record<string, string> = {},
    bytes = item.bytes,
  ) => {
    const fd = new FormData();
    for (const [k, v] of Object.entries(fields)) fd.append(k, v);
    fd.append('file', new Blob([bytes], { type: 'application/pdf' }), name);
    const res = await app.request('POST', `/v1/deals/${dealId}/documents`, { key, form: fd });
    expect(res.status).toBe(201);
    return res.body.id as number;
  };
  const report = async (dealId: number) => (await app.request('GET', `/v1/deals/${dealId}`, { key })).body;

  beforeAll(async () => {
    app = await TestApp.start();
    key = (await app.newOrg('Report Org')).api_key;
    a = await makeStatement(layout('sectioned_unsigned'), 31, 60);
    b = await makeStatement(layout('signed_single_column'), 32, 45);
  });
  afterAll(() => app?.close());

  describe('two statements of two accounts', () => {
    let dealId: number;
    let deal: any;
    let ids: Record<string, number>;

    beforeAll(async () => {
      dealId = await newDeal('Two Accounts LLC');
      ids = { a: await upload(dealId, a), b: await upload(dealId, b) };
      await app.settle();
      deal = await report(dealId);
    });

    it('is ready, authentic and names no document for review', () => {
      expect(deal.status).toBe('ready');
      expect(deal.authenticity).toMatchObject({ risk_level: 'low', reasons: [], high_risk_document_ids: [] });
      expect(deal.authenticity.documents.map((d: { document_id: number }) => d.document_id).sort()).toEqual([ids.a, ids.b].sort());
      expect(deal.review).toEqual({ needs_review_count: 0, documents: [] });
      expect(deal.related_deals).toEqual([]);
    });

    it('per-statement table: bank, last 4, period, opening/closing, reconciled, risk', () => {
      for (const [item, id] of [
        [a, ids.a],
        [b, ids.b],
      ] as const) {
        const t = truthOf(item);
        const row = deal.statements.find((r: { document_id: number }) => r.document_id === id);
        expect(row).toEqual({
          document_id: id,
          filename: `${item.name}.pdf`,
          bank_name: t.bankName,
          account_number_last4: t.accountNumberLast4,
          account_holder: t.accountHolder,
          period_start: t.periodStart,
          period_end: t.periodEnd,
          opening_balance: t.openingBalance,
          closing_balance: t.closingBalance,
          currency: t.currency ?? null,
          reconciled: true,
          risk_level: 'low',
          transaction_count: t.transactions.length,
          total_deposits: sum(t.transactions.filter((x) => x.amount > 0).map((x) => x.amount)),
          total_withdrawals: sum(t.transactions.filter((x) => x.amount < 0).map((x) => -x.amount)),
          included: true,
          stale: false,
        });
      }
    });

    it('daily balance series: the sum of both accounts on every covered day', () => {
      const expected = new Map<string, number>();
      for (const item of [a, b]) for (const [day, bal] of truthDaily(item)) expected.set(day, round2((expected.get(day) ?? 0) + bal));
      expect(deal.daily_balances.map((d: { date: string }) => d.date)).toEqual([...expected.keys()].sort());
      for (const d of deal.daily_balances) expect(d.balance).toBeCloseTo(expected.get(d.date)!, 2);
    });

    it('monthly table: deposits, withdrawals, fees, ending and average balance per month', () => {
      const txs = [a, b].flatMap((i) => truthOf(i).transactions);
      const daily = new Map<string, number>();
      for (const item of [a, b]) for (const [day, bal] of truthDaily(item)) daily.set(day, (daily.get(day) ?? 0) + bal);
      const months = [...new Set([...daily.keys()].map((d) => d.slice(0, 7)))].sort();
      expect(deal.monthly.map((m: { month: string }) => m.month)).toEqual(months);
      for (const m of deal.monthly) {
        const inMonth = txs.filter((t) => t.date.startsWith(m.month));
        const monthDays = [...daily.entries()].filter(([d]) => d.startsWith(m.month)).sort();
        expect(m.deposits).toBeCloseTo(sum(inMonth.filter((t) => t.amount > 0).map((t) => t.amount)), 2);
        expect(m.withdrawals).toBeCloseTo(sum(inMonth.filter((t) => t.amount < 0).map((t) => -t.amount)), 2);
        expect(m.overdraft_count).toBe(inMonth.filter((t) => /overdraft/i.test(t.description)).length);
        expect(m.nsf_count).toBe(inMonth.filter((t) => /\bnsf\b/i.test(t.description)).length);
        expect(m.ending_balance).toBeCloseTo(monthDays[monthDays.length - 1][1], 2);
        expect(m.avg_daily_balance).toBeCloseTo(sum(monthDays.map(([, v]) => v)) / monthDays.length, 2);
      }
    });

    it('NSF/overdraft list: every fee of the statements', () => {
      const fees = [a, b].flatMap((i) => truthOf(i).transactions.filter((t) => /overdraft|\bnsf\b/i.test(t.description)));
      const key2 = (t: { date: string; amount: number }) => `${t.date} ${t.amount.toFixed(2)}`;
      expect(deal.nsf_events.map(key2).sort()).toEqual(fees.map(key2).sort());
      expect(deal.nsf_overdraft.total_overdraft_fees + deal.nsf_overdraft.total_nsf_fees).toBe(fees.length);
    });

    it('revenue by counterparty: each source adds up the truth deposits of that counterparty', () => {
      expect(deal.revenue_sources.length).toBeGreaterThan(0);
      const credits = [a, b].flatMap((i) => truthOf(i).transactions.filter((t) => t.amount > 0));
      for (const s of deal.revenue_sources) {
        const mine = credits.filter((t) => counterpartyKey(t.description) === s.counterparty);
        expect(s.deposit_count).toBe(mine.length);
        expect(s.total).toBeCloseTo(sum(mine.map((t) => t.amount)), 2);
      }
      const totals = deal.revenue_sources.map((s: { total: number }) => s.total);
      expect(totals).toEqual([...totals].sort((x: number, y: number) => y - x));
      expect(sum(totals)).toBeLessThanOrEqual(deal.financials.total_revenue + 0.01);
    });

    it('lender positions: cadence, payments and estimated daily/weekly debit from the truth debits', () => {
      const debits = [a, b].flatMap((i) => truthOf(i).transactions.filter((t) => /daily payment/i.test(t.description)));
      expect(debits.length).toBeGreaterThan(0);
      expect(deal.lender_positions.position_count).toBeGreaterThan(0);
      for (const p of deal.lender_positions.positions) {
        // a directory funder's position is named by the directory ("Rapid Advance LLC" is Rapid Finance); others by their words
        const mine = debits.filter((t) =>
          p.lender_id ? matchLender(t.description)?.id === p.lender_id : t.description.toLowerCase().includes(p.counterparty),
        );
        expect(mine.length).toBeGreaterThan(0);
        expect(p.payment_count).toBe(mine.length);
        expect(p.total_paid).toBeCloseTo(sum(mine.map((t) => -t.amount)), 2);
        expect(['daily', 'weekly', 'biweekly', 'monthly', 'irregular']).toContain(p.frequency);
        expect(p.estimated_daily_debit).toBeCloseTo(round2(p.estimated_monthly_total / 21.75), 2);
        expect(p.estimated_weekly_debit).toBeCloseTo(round2(p.estimated_monthly_total / (52 / 12)), 2);
      }
    });

    it('a gap between the two statements lowers cross_doc with a finding', () => {
      const [first, second] = [truthOf(a), truthOf(b)].sort((x, y) => x.periodStart.localeCompare(y.periodStart));
      const gap = Math.round((Date.parse(second.periodStart) - Date.parse(first.periodEnd)) / DAY) - 1;
      expect(gap).toBeGreaterThan(3); // the seeds are chosen so: the corpus months are apart
      expect(deal.cross_doc.findings).toContainEqual(
        expect.objectContaining({
          type: 'coverage_gap',
          message: `no statement covers the ${gap} days between ${first.periodEnd} and ${second.periodStart}`,
          deduction: 10,
        }),
      );
      expect(deal.cross_doc.score).toBe(100 - deal.cross_doc.findings.reduce((s: number, f: { deduction: number }) => s + f.deduction, 0));
    });

    it('one screening result: the report, the deal and transactions?flagged=true agree', async () => {
      const flagged = await app.request('GET', `/v1/deals/${dealId}/transactions?flagged=true&per_page=100`, { key });
      expect(flagged.body.meta.total).toBe(deal.screening.total_flags);
      expect(deal.screening_flags).toBe(deal.screening.total_flags);
      const buckets: Record<string, number> = {};
      for (const t of flagged.body.data) buckets[t.screening_bucket] = (buckets[t.screening_bucket] ?? 0) + 1;
      for (const [bucket, n] of Object.entries(deal.screening.buckets)) expect(buckets[bucket] ?? 0).toBe(n);
      const docs = await Promise.all([ids.a, ids.b].map(async (id) => (await app.request('GET', `/v1/documents/${id}`, { key })).body));
      expect(docs.reduce((s, d) => s + d.prescreen.flagged_transactions, 0)).toBe(deal.screening.total_flags);
      expect(docs[0].reconciliation).toMatchObject({ reconciled: true, first_broken_row: null, totals_match: true });
      expect(docs.map((d) => [d.needs_review, d.review_reasons])).toEqual([
        [false, []],
        [false, []],
      ]);
    });
  });

  describe('screening across statements', () => {
    /** A statement with the given rows (date, description, signed amount), balances from the opening. */
    const statement = async (accountNumber: string, month: string, rows: [string, string, number][]) => {
      let bal = 10_000;
      const transactions: TruthTransaction[] = rows.map(([day, description, amount]) => {
        bal = round2(bal + amount);
        return { date: `${month}-${day}`, description, amount, balance: bal, kind: amount > 0 ? 'deposit' : 'card' };
      });
      const m: StatementModel = {
        bankName: 'First Harbor Bank',
        bankAddress: 'P.O. Box 1200, Portland, OR',
        accountHolder: 'Median Test Bakery LLC',
        holderAddress: ['12 Harbor St', 'Portland, OR 97201'],
        accountNumber,
        accountType: 'Business Checking',
        periodStart: `${month}-01`,
        periodEnd: `${month}-30`,
        openingBalance: 10_000,
        closingBalance: bal,
        transactions,
      };
      return { m, bytes: (await layout('signed_single_column').render(m, new Rng(7))).bytes };
    };
    const key_ = (t: { date: string; amount: number }) => `${t.date} ${t.amount}`;

    it('flags by the deal-level screening: a deposit large within its own statement but not within the deal is not flagged anywhere', async () => {
      // Alone, statement A's median deposit is ~521, so 2,013.47 is 3.9x it: a large unusual deposit.
      // Across the deal (B deposits ~5,500) the median is 2,013.47 and nothing is 3x it.
      const stA = await statement('100200300401', '2025-04', [
        ['03', 'Counter deposit ref 5512', 512.37],
        ['08', 'Office Depot #221', -84.19],
        ['11', 'Counter deposit ref 5530', 498.12],
        ['16', 'Counter deposit ref 5581', 530.55],
        ['22', 'Counter deposit ref 5617', 2013.47],
        ['27', 'Shell Oil 5521', -61.4],
      ]);
      const stB = await statement('100200300402', '2025-06', [
        ['02', 'Counter deposit ref 7710', 5204.11],
        ['12', 'Counter deposit ref 7733', 6015.72],
        ['19', 'Staples 0042', -129.99],
        ['24', 'Counter deposit ref 7781', 5511.09],
      ]);
      const alone = [stA, stB].flatMap((st) =>
        screenTransactions(st.m.transactions)
          .filter((t) => t.screening_bucket !== null)
          .map((t) => [key_(t), t.screening_bucket]),
      );
      expect(alone).toEqual([['2025-04-22 2013.47', 'large_unusual_deposit']]);

      const dealId = await newDeal('Median Test Bakery LLC');
      const docIds = [
        await upload(dealId, { name: 'april', ext: 'pdf', bytes: stA.bytes, truth: { kind: 'statement' } } as unknown as CorpusItem),
        await upload(dealId, { name: 'june', ext: 'pdf', bytes: stB.bytes, truth: { kind: 'statement' } } as unknown as CorpusItem),
      ];
      await app.settle();
      const r = await report(dealId);
      expect(r.status).toBe('ready');
      expect(r.screening.transaction_count).toBe(10);
      expect(r.screening.total_flags).toBe(0);
      expect(r.screening_flags).toBe(0);
      const flagged = await app.request('GET', `/v1/deals/${dealId}/transactions?flagged=true&per_page=100`, { key });
      expect(flagged.body.meta.total).toBe(0);
      const all = await app.request('GET', `/v1/deals/${dealId}/transactions?per_page=100`, { key });
      const big = all.body.data.find((t: { date: string; amount: number }) => key_(t) === '2025-04-22 2013.47');
      expect(big).toMatchObject({ screening_bucket: null, is_large_deposit: false });
      for (const id of docIds) {
        const doc = (await app.request('GET', `/v1/documents/${id}`, { key })).body;
        expect(doc.prescreen.flagged_transactions).toBe(0);
        expect(doc.analysis.screening_flags).toBe(0);
      }
    });
  });

  describe('a statement edited in a word processor', () => {
    it('is never approved: the same statement clean is approved, tampered it is review with the file named; both deals are linked', async () => {
      const clean = await newDeal('Clean Copy LLC', 1000);
      await upload(clean, a, 'clean.pdf');
      const tampered = await newDeal('Edited Copy LLC', 1000);
      const edited = await withIncrementalEdit(a.bytes);
      const docId = await upload(tampered, a, 'edited.pdf', {}, edited);
      await app.settle();

      const cleanReport = await report(clean);
      expect(cleanReport.recommendation.decision).toBe('approve');
      const doc = (await app.request('GET', `/v1/documents/${docId}`, { key })).body;
      expect(doc.pdf_risk_level).toBe('high');

      const r = await report(tampered);
      expect([r.status, doc.status, doc.error]).toEqual(['ready', 'completed', null]);
      expect(r.authenticity).toMatchObject({ risk_level: 'high', high_risk_document_ids: [docId] });
      expect(r.authenticity.reasons[0]).toMatch(/^edited\.pdf \(high risk\): /);
      expect(r.review.documents).toEqual([
        expect.objectContaining({ document_id: docId, reasons: expect.arrayContaining(['high tampering risk']) }),
      ]);
      expect(r.recommendation).toMatchObject({ decision: 'review', max_advance: null });
      expect(r.recommendation.reasons[1]).toMatch(/^Document authenticity: edited\.pdf has a high tampering risk/);
      const rec = (await app.request('GET', `/v1/deals/${tampered}/recommendation`, { key })).body;
      expect(rec.decision).toBe('review');
      // every ruleset respects it, not only the default
      const evaluated = (await app.request('POST', `/v1/deals/${tampered}/evaluate`, { key })).body;
      expect(evaluated.evaluations.map((e: { decision: string }) => e.decision)).toEqual(['review']);
      expect(r.ai_summary).toMatch(/signs of editing/);

      // the same account in another deal of the organization links both deals
      expect(r.related_deals).toContainEqual(
        expect.objectContaining({ type: 'same_account', other_deal_id: clean, other_business_name: 'Clean Copy LLC' }),
      );
    });

    it('one deposit raised under a white box, metadata untouched: high risk from the content, the finding on the row, review', async () => {
      const parsed = await parseStatementFile(a.bytes, { ocr: false });
      const edit = (await makeEdit(a.bytes, parsed, 'white_box', 32))!;
      const dealId = await newDeal('Overlay Copy LLC', 1000);
      const docId = await upload(dealId, a, 'overlay.pdf', {}, edit.bytes);
      await app.settle();
      const doc = (await app.request('GET', `/v1/documents/${docId}`, { key })).body;
      expect(doc.pdf_risk_level).toBe('high');
      const covered = doc.tamper_findings.find((f: { kind: string }) => f.kind === 'covered_text');
      expect(covered).toMatchObject({ category: 'content', severity: 'high', page: edit.page, row: edit.row });
      expect(covered.boxes[0]).toHaveLength(4);
      expect(doc.risk_reasons).toContain(covered.message);
      expect(doc.risk_reasons.join()).not.toMatch(/editing tool|incremental/);
      const r = await report(dealId);
      expect(r.authenticity).toMatchObject({ risk_level: 'high', high_risk_document_ids: [docId] });
      expect(r.recommendation.decision).toBe('review');
    });

    it('the very same file in another deal is a finding naming that deal', async () => {
      const first = await newDeal('First Holder LLC');
      const firstDoc = await upload(first, b, 'b.pdf');
      const second = await newDeal('Second Holder LLC');
      const secondDoc = await upload(second, b, 'b-again.pdf');
      await app.settle();
      const r = await report(second);
      expect(r.related_deals).toContainEqual({
        type: 'same_file',
        severity: 'error',
        message: `b-again.pdf is the same file as document ${firstDoc} of deal ${first} (First Holder LLC)`,
        document_id: secondDoc,
        other_deal_id: first,
        other_business_name: 'First Holder LLC',
        other_document_id: firstDoc,
      });
    });
  });

  describe('statements in two currencies', () => {
    it('are not summed: the other currency is a finding, left out of every figure', async () => {
      const dealId = await newDeal('Two Currencies Ltd');
      const usd = await upload(dealId, a, 'usd.pdf', { currency: 'usd' });
      const nzd = await upload(dealId, b, 'nzd.pdf', { currency: 'NZD' });
      await app.settle();
      const r = await report(dealId);
      expect(r.currency).toMatchObject({ reporting_currency: 'USD', currencies: ['NZD', 'USD'], excluded_statement_ids: [nzd] });
      const ta = truthOf(a);
      expect(r.financials.total_deposits).toBeCloseTo(sum(ta.transactions.filter((t) => t.amount > 0).map((t) => t.amount)), 2);
      expect(r.financials.ending_balance).toBeCloseTo(ta.closingBalance, 2);
      expect(r.coverage.statement_count).toBe(1);
      expect(r.cross_doc.findings).toContainEqual(
        expect.objectContaining({ type: 'currency_mismatch', severity: 'error', statement_ids: [nzd], deduction: 20 }),
      );
      expect(
        r.statements.map((s: { document_id: number; currency: string; included: boolean }) => [s.document_id, s.currency, s.included]),
      ).toEqual([
        [usd, 'USD', true],
        [nzd, 'NZD', false],
      ]);
      // its transactions carry no flag the deal does not count
      const flagged = await app.request('GET', `/v1/deals/${dealId}/transactions?flagged=true&per_page=100`, { key });
      expect(flagged.body.meta.total).toBe(r.screening.total_flags);
      const nzdDoc = (await app.request('GET', `/v1/documents/${nzd}`, { key })).body;
      expect(nzdDoc).toMatchObject({ currency: 'NZD', prescreen: { flagged_transactions: 0 }, analysis: { screening_flags: 0 } });
      expect(Object.values(nzdDoc.prescreen.buckets).every((n) => n === 0)).toBe(true);
    });

    it("the bank's charter gives its country's currency, below one declared at upload; a statement naming none is named", async () => {
      expect([truthOf(a).currency, truthOf(b).currency]).toEqual([undefined, 'USD']);
      const dealId = await newDeal('Charter Default LLC');
      // b prints "Member FDIC" and no currency: USD by default, said so in its provenance
      const charter = await upload(dealId, b, 'charter.pdf');
      // a prints neither a currency nor a charter
      const bare = await upload(dealId, a, 'bare.pdf');
      await app.settle();
      const doc = (await app.request('GET', `/v1/documents/${charter}`, { key })).body;
      expect(doc.currency).toBe('USD');
      expect(doc.field_sources.currency).toMatchObject({
        via: expect.stringMatching(/^default for the bank's country/),
        text: expect.stringMatching(/Member FDIC/),
      });
      const r = await report(dealId);
      expect(r.currency).toEqual({
        reporting_currency: 'USD',
        currencies: ['USD'],
        excluded_statement_ids: [],
        unstated_statement_ids: [bare],
      });
      expect(r.cross_doc.findings).toContainEqual(
        expect.objectContaining({ type: 'currency_unstated', severity: 'warning', statement_ids: [bare], deduction: 0 }),
      );
      // declared at upload: the declaration wins over the charter's default, and the provenance does not claim otherwise
      const declared = await upload(await newDeal('Declared CAD Ltd'), b, 'declared.pdf', { currency: 'CAD' });
      await app.settle();
      const d2 = (await app.request('GET', `/v1/documents/${declared}`, { key })).body;
      expect(d2.currency).toBe('CAD');
      expect(d2.field_sources.currency).toBeNull();
    });

    it('a malformed currency is a 422 in the error envelope', async () => {
      const dealId = await newDeal('Bad Currency Ltd');
      const fd = new FormData();
      fd.append('currency', 'dollars');
      fd.append('file', new Blob([a.bytes], { type: 'application/pdf' }), 'a.pdf');
      const res = await app.request('POST', `/v1/deals/${dealId}/documents`, { key, form: fd });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', errors: [expect.objectContaining({ field: 'currency' })] });
    });
  });
  describe('the PDF report', () => {
    /** The text of each page of the deal's PDF report, as mupdf extracts it, and the fonts each page uses. */
    async function pdfPages(dealId: number): Promise<{ text: string; fonts: string[] }[]> {
      const res = await app.request('GET', `/v1/deals/${dealId}/export/pdf`, { key });
      expect(res.status).toBe(200);
      const mupdf = await import('mupdf');
      const doc = mupdf.Document.openDocument(res.body as Buffer, 'application/pdf') as InstanceType<typeof mupdf.PDFDocument>;
      const pages: { text: string; fonts: string[] }[] = [];
      for (let i = 0; i < doc.countPages(); i++) {
        const fonts: string[] = [];
        doc
          .findPage(i)
          .get('Resources')
          .get('Font')
          .forEach((f) => fonts.push(f.get('BaseFont').asName()));
        const text = doc.loadPage(i).toStructuredText('preserve-whitespace').asText().replace(/\s+/g, ' ');
        pages.push({ text, fonts: [...new Set(fonts)] });
      }
      return pages;
    }

    it('page 1 says first what needs review: the statement that failed reconciliation, the held recommendation', async () => {
      const dealId = await newDeal('Misread Report LLC', 1000);
      await upload(dealId, a, 'good.pdf');
      await upload(dealId, b, 'misread.pdf', {}, await unreconciledStatement(33));
      await app.settle();
      const deal = await report(dealId);
      expect(deal.recommendation.decision).toBe('review');
      const [first] = await pdfPages(dealId);
      expect(first.text).toContain('NEEDS REVIEW');
      expect(first.text).toMatch(/Review: statement misread\.pdf failed reconciliation \(does not reconcile: .*\(difference 59673\.00\)\)/);
      // before the financials: the first thing after the recommendation
      expect(first.text.indexOf('NEEDS REVIEW')).toBeLessThan(first.text.indexOf('Financials'));
    });

    it('keeps each heading with its content: "Recommendation factors" on the page of its first factor', async () => {
      // three monthly statements: the section starts near a page foot
      const deal = await newReadyDeal(app, key, { recommend: true });
      const pages = await pdfPages(deal.id);
      const at = pages.findIndex((p) => p.text.includes('Recommendation factors'));
      expect(at).toBeGreaterThanOrEqual(0);
      const after = pages[at].text.slice(pages[at].text.indexOf('Recommendation factors'));
      expect(after).toMatch(/Recommendation factors .*Revenue .*Balance health .*Why this recommendation/);
      const health = pages.findIndex((p) => p.text.includes('Health score factors'));
      expect(pages[health].text.slice(pages[health].text.indexOf('Health score factors'))).toMatch(/Health score factors .*Revenue/);
    });

    it('draws a non-Latin business name with glyphs of fallback fonts (CJK, Arabic, Hebrew, emoji), not empty boxes', async () => {
      const name = '東京ラーメン株式会社 مطعم القدس מסעדת הים 🍜';
      const deal = await newReadyDeal(app, key, { businessName: name, recommend: true });
      const [first, second] = await pdfPages(deal.id);
      expect(first.text).toContain('東京ラーメン株式会社');
      expect(first.text).toContain('🍜');
      expect(first.fonts).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/IBMPlexSans/),
          expect.stringMatching(/NotoSansSC/),
          expect.stringMatching(/NotoNaskhArabic/),
          expect.stringMatching(/NotoSansHebrew/),
          expect.stringMatching(/NotoEmoji/),
        ]),
      );
      // the running header of later pages too
      expect(second.text).toContain('東京ラーメン株式会社');
      // a Latin report embeds none of them
      const latin = await newReadyDeal(app, key, { recommend: true });
      expect((await pdfPages(latin.id)).flatMap((p) => p.fonts).every((f) => /IBMPlexSans/.test(f))).toBe(true);
    });
  });
});
