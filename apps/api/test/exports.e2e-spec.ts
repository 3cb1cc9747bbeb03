import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StatementInput } from '@ledgerlens/underwriting';
import { writeDealReport } from '../src/modules/pipeline/services/deal-report';
import { Deal } from '../src/modules/pipeline/entities/deal.entities';
import { Document } from '../src/modules/pipeline/entities/document.entities';
import { toPublicEvent } from '../src/modules/webhooks/public-events';
import { Transaction } from '../src/modules/pipeline/entities/transaction.entities';
import { Database } from '../src/platform/database/database.service';
import { UnitOfWork } from '../src/platform/database/unit-of-work';
import { DealRepository } from '../src/modules/pipeline/repositories/deal.repository';
import { DocumentRepository } from '../src/modules/pipeline/repositories/document.repository';
import { TransactionRepository } from '../src/modules/pipeline/repositories/transaction.repository';
import { DomainEventRecord } from '../src/platform/events/outbox.entity';
import { toDomainEvent } from '../src/platform/events/events';
import { Factories } from './support/factories';
import { TestApp } from './support/harness';
import { makeStatements } from './support/ready-deal';

const FORM_A =
  'Statement,Date,Description,Amount,Balance,Type,NSF Fee,Overdraft Fee,Large Deposit,Large Strange,Repeat Charge,Suspicious,Screening Bucket,Flag Reason,Revenue Class,Revenue Rule';
const FORM_B =
  'date,description,amount,balance,transaction_type,is_nsf_fee,is_overdraft_fee,screening_bucket,flag_reason,category,document_id,revenue_class,revenue_rule';

/** RFC 4180 parser for the checks (quoted cells, doubled quotes, CRLF). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  if (cell || row.length) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

/** Statements whose descriptions try spreadsheet formulas: the export must neutralise them. */
function hostileStatements(): StatementInput[] {
  const statements = makeStatements('weak');
  const first = statements[0].transactions;
  first[0] = { ...first[0], description: '=HYPERLINK("http://127.0.0.1/x","click")' };
  first[1] = { ...first[1], description: '+CMD|/C calc!A0' };
  first[2] = { ...first[2], description: '@SUM(A1:A9), "quoted"' };
  return statements;
}

describe('exports: CSV, document JSON and the PDF underwriting report', () => {
  let app: TestApp;
  let f: Factories & { apiKey: string };
  let key: string;
  let ready: Deal;
  let docs: Document[];
  let pending: Deal;
  let failedDoc: Document;
  let pngDir: string;

  beforeAll(async () => {
    app = await TestApp.start({ RATE_LIMIT_STANDARD: '100000' });
    f = await Factories.forNewOrg(app, 'Exports Org');
    key = f.apiKey;
    ready = await f.deal({
      businessName: 'Eastside Auto Repair Inc',
      industry: 'Automotive repair',
      entityType: 'llc',
      sourceType: 'crm',
      fundingAmountRequested: 60000,
    });
    docs = [];
    for (const [i, st] of hostileStatements().entries())
      docs.push(await f.statement(ready, st, { filename: `statement-2025-0${i + 1}.pdf` }));
    const em = app.get(Database).forScope(f.scope);
    await em.transactional(async (tx) => {
      const deal = await tx.findOneOrFail(Deal, { id: ready.id });
      const sources = {
        deals: app.get(DealRepository),
        documents: app.get(DocumentRepository),
        transactions: app.get(TransactionRepository),
      };
      const docs = await tx.find(Document, { dealId: deal.id }, { orderBy: { id: 'asc' } });
      await writeDealReport(sources, UnitOfWork.of(tx), deal, docs, '2025-04-01');
      deal.status = 'ready';
    });
    pending = await f.deal({ businessName: 'Not Yet Ready LLC' });
    failedDoc = await f.document(pending, { status: 'failed', error: 'no text' });
    pngDir = join(tmpdir(), `ledgerlens-report-png-${process.pid}`);
    mkdirSync(pngDir, { recursive: true });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  const dbTransactions = async (where: Record<string, unknown>) =>
    app
      .get(Database)
      .forScope(f.scope)
      .find(Transaction, where, { orderBy: [{ date: 'asc' }, { documentId: 'asc' }, { position: 'asc' }] });

  it('deal CSV (Form A): exact columns, every transaction by date then upload order, streamed as an attachment', async () => {
    const res = await app.request('GET', `/v1/deals/${ready.id}/export/csv`, { key });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="deal-\d+-eastside-auto-repair-inc-transactions\.csv"/);
    expect(res.headers.get('content-length')).toBeNull();
    const rows = parseCsv(res.body as string);
    expect(rows[0].join(',')).toBe(FORM_A);
    const txs = await dbTransactions({ dealId: ready.id });
    expect(rows.length - 1).toBe(txs.length);
    const names = new Map(docs.map((d) => [d.id, d.filename]));
    txs.forEach((t, i) => {
      const r = rows[i + 1];
      expect(r[0]).toBe(names.get(t.documentId));
      expect(r[1]).toBe(t.date);
      expect(Number(r[3])).toBe(Number(t.amount));
      expect(r[4]).toBe(t.balance === null ? '' : Number(t.balance).toFixed(2));
      expect(r[5]).toBe(t.transactionType);
      expect(r.slice(6, 12)).toEqual(
        [t.isNsfFee, t.isOverdraftFee, t.isLargeDeposit, t.isLargeStrange, t.isRepeatCharge, t.isSuspicious].map(String),
      );
      expect(r[12]).toBe(t.screeningBucket ?? '');
      // appended after Flag Reason: a deposit's revenue class and the rule that decided it, empty for a debit
      expect(r.slice(14)).toEqual([t.revenueClass ?? '', t.revenueRule ?? '']);
      if (Number(t.amount) < 0) expect(r.slice(14)).toEqual(['', '']);
    });
    const dates = rows.slice(1).map((r) => r[1]);
    expect([...dates].sort()).toEqual(dates);
    // the deal has NSF fees, an overdraft fee and flagged MCA debits: the flags reach the file
    expect(rows.some((r) => r[6] === 'true')).toBe(true);
    expect(rows.some((r) => r[12] === 'mca_payment' && r[13].length > 0)).toBe(true);
  });

  it('neutralises formula-like text cells and leaves every number a number', async () => {
    const res = await app.request('GET', `/v1/deals/${ready.id}/export/csv`, { key });
    const rows = parseCsv(res.body as string).slice(1);
    const descriptions = rows.map((r) => r[2]);
    expect(descriptions).toContain(`'=HYPERLINK("http://127.0.0.1/x","click")`);
    expect(descriptions).toContain("'+CMD|/C calc!A0");
    expect(descriptions).toContain(`'@SUM(A1:A9), "quoted"`);
    expect(descriptions.filter((d) => /^[=+\-@]/.test(d))).toEqual([]);
    // debits stay negative numbers (no apostrophe), and the column sums to the stored total
    const amounts = rows.map((r) => r[3]);
    expect(amounts.every((a) => /^-?\d+\.\d{2}$/.test(a))).toBe(true);
    expect(amounts.some((a) => a.startsWith('-'))).toBe(true);
    const txs = await dbTransactions({ dealId: ready.id });
    const cents = (xs: number[]) => xs.reduce((s, x) => s + Math.round(x * 100), 0);
    expect(cents(amounts.map(Number))).toBe(cents(txs.map((t) => Number(t.amount))));
  });

  it('transactions CSV (Form B): its own columns, with category and document_id, then revenue_class and revenue_rule', async () => {
    const res = await app.request('GET', `/v1/deals/${ready.id}/transactions/csv`, { key });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="deal-\d+-transactions\.csv"/);
    const rows = parseCsv(res.body as string);
    expect(rows[0].join(',')).toBe(FORM_B);
    const txs = await dbTransactions({ dealId: ready.id });
    expect(rows.length - 1).toBe(txs.length);
    expect(rows.slice(1).map((r) => Number(r[10]))).toEqual(txs.map((t) => t.documentId));
    expect(rows.slice(1).map((r) => r[9])).toEqual(txs.map((t) => t.category));
    // revenue_class and revenue_rule come last, as GET /v1/deals/{id}/transactions shows them
    const api = (await app.request('GET', `/v1/deals/${ready.id}/transactions?type=credit&per_page=200`, { key })).body.data as Array<{
      date: string;
      description: string;
      amount: number;
      revenue_class: string | null;
      revenue_rule: string | null;
    }>;
    const credits = rows.slice(1).filter((r) => Number(r[2]) > 0);
    expect(api).toHaveLength(credits.length);
    // (a formula-like description carries the apostrophe that neutralises it)
    const byCells = (r: string[]) => `${r[0]}|${r[1].replace(/^'(?=[=+\-@])/, '')}|${Number(r[2]).toFixed(2)}`;
    const classes = new Map(
      api.map((t) => [`${t.date}|${t.description}|${t.amount.toFixed(2)}`, [t.revenue_class ?? '', t.revenue_rule ?? '']]),
    );
    for (const r of credits) expect(r.slice(11)).toEqual(classes.get(byCells(r)));
    // a card payout is revenue by a named rule; the MCA's daily debit has no class
    const payout = rows.find((r) => r[1] === 'STRIPE TRANSFER PAYOUT')!;
    expect(payout.slice(11)).toEqual(['revenue', expect.stringMatching(/\w/)]);
    const debit = rows.find((r) => r[1] === 'ONDECK CAPITAL DAILY PMT')!;
    expect(debit.slice(11)).toEqual(['', '']);
  });

  it('document CSV: the Form A columns for one completed document; 409 for a document not completed', async () => {
    const doc = docs[1];
    const res = await app.request('GET', `/v1/documents/${doc.id}/export/csv`, { key });
    expect(res.status).toBe(200);
    const rows = parseCsv(res.body as string);
    expect(rows[0].join(',')).toBe(FORM_A);
    expect(rows.length - 1).toBe((await dbTransactions({ documentId: doc.id })).length);
    expect(new Set(rows.slice(1).map((r) => r[0]))).toEqual(new Set([doc.filename]));
    const conflict = await app.request('GET', `/v1/documents/${failedDoc.id}/export/csv`, { key });
    expect(conflict.status).toBe(409);
  });

  it('document JSON export: the listed shape, flags as `transactions?flagged=true` shows them, transactions by link', async () => {
    const doc = docs[0];
    const res = await app.request('GET', `/v1/documents/${doc.id}/export`, { key });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['analysis', 'document', 'exported_at', 'extraction', 'screening', 'transactions']);
    expect(res.body.document).toEqual({
      id: doc.id,
      deal_id: ready.id,
      filename: doc.filename,
      document_type: 'bank_statement',
      status: 'completed',
    });
    const flagged = await app.request('GET', `/v1/documents/${doc.id}/transactions?flagged=true&per_page=200`, { key });
    expect(res.body.screening.total_flags).toBe(flagged.body.meta.total);
    expect(res.body.screening.flagged_transactions.map((t: { id: number }) => t.id).sort()).toEqual(
      flagged.body.data.map((t: { id: number }) => t.id).sort(),
    );
    const bucketSum = Object.values(res.body.screening.buckets as Record<string, number>).reduce((a, b) => a + b, 0);
    expect(bucketSum).toBe(res.body.screening.total_flags);
    expect(res.body.transactions).toEqual({
      total: (await dbTransactions({ documentId: doc.id })).length,
      included: false,
      download_url: expect.stringMatching(new RegExp(`/v1/documents/${doc.id}/export/csv$`)),
    });
  });

  it('PDF report: 409 unless the deal is ready, on both paths', async () => {
    for (const path of ['export/pdf', 'report']) {
      const res = await app.request('GET', `/v1/deals/${pending.id}/${path}`, { key });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('CONFLICT');
    }
  });

  it('PDF report: embedded fonts, every section, page numbers, vector charts; its pages render to PNG and are checked', async () => {
    const res = await app.request('GET', `/v1/deals/${ready.id}/export/pdf`, { key });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="underwriting-report-\d+-eastside-auto-repair-inc\.pdf"/);
    const pdf = res.body as Buffer;
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const mupdf = await import('mupdf');
    const doc = mupdf.Document.openDocument(pdf, 'application/pdf') as InstanceType<typeof mupdf.PDFDocument>;
    const pages = doc.countPages();
    expect(pages).toBeGreaterThanOrEqual(3);
    // fonts: every font is embedded (a FontFile2 stream), none is a base-14 font left to the viewer
    const fonts: string[] = [];
    for (let i = 0; i < pages; i++) {
      const res0 = doc.findPage(i).get('Resources').get('Font');
      res0.forEach((font) => {
        const descriptor = font.get('DescendantFonts').get(0).get('FontDescriptor');
        fonts.push(`${font.get('BaseFont').asName()}:${descriptor.get('FontFile2').isStream()}`);
      });
    }
    expect(fonts.length).toBeGreaterThan(0);
    expect(fonts.every((x) => /IBMPlexSans.*:true$/.test(x))).toBe(true);

    const deal = (await app.request('GET', `/v1/deals/${ready.id}`, { key })).body;
    const recommendation = (await app.request('GET', `/v1/deals/${ready.id}/recommendation`, { key })).body;
    const text: string[] = [];
    let chartInk = 0;
    let negativeShade = 0;
    for (let i = 0; i < pages; i++) {
      const page = doc.loadPage(i);
      text.push(page.toStructuredText('preserve-whitespace').asText());
      const pixmap = page.toPixmap(mupdf.Matrix.scale(1.5, 1.5), mupdf.ColorSpace.DeviceRGB, false, true);
      writeFileSync(join(pngDir, `report-${i + 1}.png`), pixmap.asPNG());
      const px = pixmap.getPixels();
      let ink = 0;
      for (let p = 0; p < px.length; p += 3) {
        if (px[p] < 235 || px[p + 1] < 235 || px[p + 2] < 235) ink++;
        if (px[p] === 0x1f && px[p + 1] === 0x4e && px[p + 2] === 0x9c) chartInk++;
        if (px[p] === 0xfb && px[p + 1] === 0xdc && px[p + 2] === 0xd8) negativeShade++;
      }
      // no blank page: beyond the running header and footer (~0.3% of the pixels), something is drawn
      expect({ page: i + 1, inked: ink / (px.length / 3) > 0.006 }).toEqual({ page: i + 1, inked: true });
      expect(text[i]).toContain(`Page ${i + 1} of ${pages}`);
    }
    const all = text.join('\n');
    for (const section of [
      'Eastside Auto Repair Inc',
      'RECOMMENDATION',
      'HEALTH SCORE',
      'Financials',
      'Summary',
      'Monthly revenue',
      'Daily balance',
      'Monthly breakdown',
      'Recommendation factors',
      'Why this recommendation',
      'Health score factors',
      'NSF and overdraft',
      'Lender positions',
      'Transaction screening',
      'Statements',
      'Document authenticity',
    ]) {
      expect({ section, found: all.includes(section) }).toEqual({ section, found: true });
    }
    // what needs review is said on page 1, before the financials
    expect(text[0]).toMatch(/(NEEDS REVIEW|Nothing needs a human look)[\s\S]*Financials/);
    // the figures are the deal report's and the recommendation's
    expect(all).toContain(recommendation.decision.toUpperCase());
    expect(all).toContain(`${recommendation.total_score.toFixed(1)} / 100`);
    expect(all).toContain(`Grade ${deal.health.grade}`);
    for (const label of ['Revenue trend', 'Debt service', 'Transaction screening', 'Cross-document consistency'])
      expect(all).toContain(label);
    expect(all).toContain('ONDECK CAPITAL DAILY PMT');
    // entity and source types as people write them
    expect(all).toContain('Automotive repair  ·  LLC');
    expect(all).toMatch(/SOURCE\s+CRM/);
    expect(all).not.toMatch(/\b(Llc|Crm)\b/);
    expect(all).toContain('NSF FEE');
    expect(all).toContain(docs[2].filename);
    // vector charts: bars in the accent colour; negative-balance days shaded when the deal has any
    expect(chartInk).toBeGreaterThan(2000);
    if (deal.financials.negative_balance_days > 0) expect(negativeShade).toBeGreaterThan(100);
    else expect(negativeShade).toBe(0);
  });

  it('the Form B path serves the same report; every export emits export.ready through the outbox', async () => {
    const res = await app.request('GET', `/v1/deals/${ready.id}/report`, { key });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    await app.drainEvents();
    const events = await app
      .get(Database)
      .system()
      .find(DomainEventRecord, { type: 'export.ready', dealId: ready.id }, { orderBy: { id: 'asc' } });
    const formats = events.map((e) => e.data.format);
    expect(formats).toEqual(expect.arrayContaining(['csv', 'json', 'pdf']));
    const pdfEvent = events.filter((e) => e.data.format === 'pdf').pop()!;
    const published = toPublicEvent(toDomainEvent(pdfEvent))!;
    expect(published).toMatchObject({ type: 'export.ready', deal_id: ready.id, data: { deal_id: ready.id, format: 'pdf' } });
    expect(published.data.filename).toMatch(/\.pdf$/);
    const csvEvent = events.find((e) => e.data.format === 'csv' && !e.data.document_id)!;
    expect(csvEvent.data.rows).toBe((await dbTransactions({ dealId: ready.id })).length);
  });

  it("underwriting tables as CSV (positions, true revenue, transfers, affordability): the report's own figures; 422 for another table, 409 before ready", async () => {
    const deal = (await app.request('GET', `/v1/deals/${ready.id}`, { key })).body;
    const table = async (name: string) => {
      const res = await app.request('GET', `/v1/deals/${ready.id}/export/underwriting/csv?table=${name}`, { key });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(res.headers.get('content-disposition')).toMatch(
        new RegExp(`^attachment; filename="deal-\\d+-eastside-auto-repair-inc-${name}\\.csv"`),
      );
      return parseCsv(res.body as string).filter((r) => r.length > 1 || r[0] !== '');
    };
    const positions = await table('positions');
    expect(positions[0].slice(0, 7)).toEqual([
      'lender',
      'lender_id',
      'counterparty',
      'sequence',
      'start_reason',
      'frequency',
      'payment_amount',
    ]);
    expect(deal.lender_positions.positions.length).toBeGreaterThan(0);
    expect(positions.length - 1).toBe(deal.lender_positions.positions.length);
    deal.lender_positions.positions.forEach((p: { frequency: string; payment_amount: number; first_seen: string }, i: number) =>
      expect([positions[i + 1][5], positions[i + 1][6], positions[i + 1][9]]).toEqual([
        p.frequency,
        p.payment_amount.toFixed(2),
        p.first_seen,
      ]),
    );
    const revenue = await table('revenue');
    expect(revenue.length).toBe(deal.revenue.months.length + 2);
    const t = deal.revenue.totals;
    expect(revenue[revenue.length - 1]).toEqual([
      'total',
      t.gross_deposits.toFixed(2),
      t.excluded.transfer.toFixed(2),
      t.excluded.loan_proceeds.toFixed(2),
      t.excluded.refund.toFixed(2),
      t.excluded.owner_injection.toFixed(2),
      t.excluded.other_non_revenue.toFixed(2),
      t.excluded_total.toFixed(2),
      t.true_revenue.toFixed(2),
      t.cash_deposits.toFixed(2),
    ]);
    expect((await table('transfers')).length - 1).toBe(deal.own_transfers?.count ?? 0);
    const affordability = Object.fromEntries((await table('affordability')).slice(1));
    expect(affordability).toMatchObject({
      max_advance: deal.affordability.max_advance.toFixed(2),
      monthly_revenue: deal.affordability.monthly_revenue.toFixed(2),
      step_1: deal.affordability.steps[0],
    });
    const wrong = await app.request('GET', `/v1/deals/${ready.id}/export/underwriting/csv?table=everything`, { key });
    expect(wrong.status).toBe(422);
    expect(JSON.stringify(wrong.body)).toContain('table must be one of: positions, revenue, transfers, affordability');
    expect((await app.request('GET', `/v1/deals/${pending.id}/export/underwriting/csv?table=revenue`, { key })).status).toBe(409);
  });

  it('a foreign deal or document is 404 on every export', async () => {
    const other = await Factories.forNewOrg(app, 'Other Org');
    for (const path of [
      `/v1/deals/${ready.id}/export/csv`,
      `/v1/deals/${ready.id}/transactions/csv`,
      `/v1/deals/${ready.id}/export/underwriting/csv?table=positions`,
      `/v1/deals/${ready.id}/export/pdf`,
      `/v1/deals/${ready.id}/report`,
      `/v1/documents/${docs[0].id}/export/csv`,
      `/v1/documents/${docs[0].id}/export`,
    ]) {
      expect({ path, status: (await app.request('GET', path, { key: other.apiKey })).status }).toEqual({ path, status: 404 });
    }
  });
});
