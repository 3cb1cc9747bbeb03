import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { Ledgerlens } from '@ledgerlens/sdk';
import { Document } from '../../src/modules/pipeline/entities/document.entities';
import { Transaction } from '../../src/modules/pipeline/entities/transaction.entities';
import { DealLifecycleService } from '../../src/modules/pipeline/services/deal-lifecycle.service';
import { Database } from '../../src/platform/database/database.service';
import { Rng } from '../../../../tools/corpus/rng';
import type { TestApp } from './harness';
import { seedDocument } from './seed-document';

/**
 * Big deals for the web app's speed tests (web-perf.e2e-spec.ts), made in seconds rather than by
 * reading thousands of rows from PDFs: completed statements stored as the reader would leave them
 * (the document with its period and balances, its file, its rows with their `source` boxes), then
 * the deal brought in line with its documents by the pipeline's own step (DealLifecycleService
 * .refresh: screening, report, recommendation), as when a reading finishes.
 */
const ROWS_PER_PAGE = 40;
const TOP = 90;
const LINE = 16;
const PAGE = { width: 612, height: 792 };

const DESCRIPTIONS: [string, number, number][] = [
  ['SQUARE INC DEPOSIT', 400, 2600],
  ['STRIPE TRANSFER PAYOUT', 200, 1800],
  ['REMOTE ONLINE DEPOSIT', 150, 3000],
  ['CARD PURCHASE HOME DEPOT', -600, -40],
  ['ACH DEBIT PAYROLL ADP', -4000, -900],
  ['ONLINE PAYMENT DUKE ENERGY', -500, -90],
  ['POS DEBIT SHELL OIL', -120, -20],
  ['CHECK', -2500, -100],
];

export interface SeededRow {
  date: string;
  description: string;
  amount: number;
  balance: number;
}

export interface SeededStatement {
  start: string;
  end: string;
  opening: number;
  closing: number;
  rows: SeededRow[];
}

const cents = (n: number) => Math.round(n * 100) / 100;
const pad = (n: number) => String(n).padStart(2, '0');

/** `count` rows over the month `year-month` (1-based), the running balance printed on each. */
export function makeStatement(rng: Rng, year: number, month: number, count: number, opening: number): SeededStatement {
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  let balance = opening;
  const rows: SeededRow[] = [];
  for (let i = 0; i < count; i++) {
    const [description, lo, hi] = rng.pick(DESCRIPTIONS);
    // a little more in than out: the balance stays positive over a year
    const amount = cents(lo + rng.next() * (hi - lo) + (lo > 0 ? 120 : 0));
    balance = cents(balance + amount);
    const day = 1 + Math.floor((i * days) / count);
    rows.push({ date: `${year}-${pad(month)}-${pad(day)}`, description: `${description} ${1000 + i}`, amount, balance });
  }
  return { start: `${year}-${pad(month)}-01`, end: `${year}-${pad(month)}-${pad(days)}`, opening, closing: balance, rows };
}

/** Where row `i` of a statement is printed: its page and its line's box (PDF points from the page's top-left). */
export function sourceOf(i: number): { page: number; boxes: Array<[number, number, number, number]> } {
  const y = TOP + (i % ROWS_PER_PAGE) * LINE;
  return { page: Math.floor(i / ROWS_PER_PAGE) + 1, boxes: [[40, y - 11, 572, y + 3]] };
}

/** The statement printed: ROWS_PER_PAGE rows a page, each where sourceOf says. */
export async function statementPdf(statement: SeededStatement, title: string): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const pages = Math.max(1, Math.ceil(statement.rows.length / ROWS_PER_PAGE));
  const money = (n: number) => n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  for (let p = 0; p < pages; p++) {
    const page = pdf.addPage([PAGE.width, PAGE.height]);
    page.drawText(`${title}  ${statement.start} to ${statement.end}  page ${p + 1} of ${pages}`, {
      x: 40,
      y: PAGE.height - 50,
      size: 10,
      font,
    });
    for (let i = p * ROWS_PER_PAGE; i < Math.min(statement.rows.length, (p + 1) * ROWS_PER_PAGE); i++) {
      const r = statement.rows[i];
      const y = PAGE.height - (TOP + (i % ROWS_PER_PAGE) * LINE);
      page.drawText(r.date, { x: 44, y, size: 9, font });
      page.drawText(r.description, { x: 120, y, size: 9, font });
      const amount = money(r.amount);
      page.drawText(amount, { x: 470 - font.widthOfTextAtSize(amount, 9), y, size: 9, font });
      const balance = money(r.balance);
      page.drawText(balance, { x: 568 - font.widthOfTextAtSize(balance, 9), y, size: 9, font });
    }
  }
  return pdf.save();
}

/**
 * A deal of `statements` (one a month, oldest first), stored as read and scored by the pipeline.
 * Returns the deal's id and its documents' ids.
 */
export async function seedStatementDeal(
  app: TestApp,
  client: Ledgerlens,
  organizationId: number,
  businessName: string,
  statements: SeededStatement[],
): Promise<{ dealId: number; documentIds: number[] }> {
  const deal = await client.deals.create({ business_name: businessName, funding_amount_requested: 50000 });
  const db = app.get(Database);
  const documentIds: number[] = [];
  for (const [k, st] of statements.entries()) {
    const bytes = await statementPdf(st, businessName);
    const doc = await seedDocument(app, organizationId, deal.id, 'completed', { bytes });
    const em = db.forScope({ organizationId, livemode: true });
    await em.nativeUpdate(
      Document,
      { id: doc.id },
      {
        filename: `statement-${st.start.slice(0, 7)}-${k + 1}.pdf`,
        documentType: 'bank_statement',
        pageCount: Math.max(1, Math.ceil(st.rows.length / ROWS_PER_PAGE)),
        bankName: 'First Test Bank',
        accountNumberLast4: '4321',
        accountHolder: businessName,
        statementStartDate: st.start,
        statementEndDate: st.end,
        openingBalance: st.opening,
        closingBalance: st.closing,
        currency: 'USD',
        extractionMethod: 'text',
        pdfRiskLevel: 'low',
        needsReview: false,
        transactionCount: st.rows.length,
        processingCompletedAt: new Date(),
        extractedAt: new Date(),
      },
    );
    const rows = st.rows.map((r, i) => ({
      organizationId,
      livemode: true,
      dealId: deal.id,
      documentId: doc.id,
      position: i,
      date: r.date,
      description: r.description,
      amount: r.amount,
      balance: r.balance,
      transactionType: (r.amount < 0 ? 'debit' : 'credit') as 'debit' | 'credit',
      category: r.amount < 0 ? 'operating_expense' : 'revenue',
      source: sourceOf(i),
    }));
    for (let i = 0; i < rows.length; i += 1000) await em.insertMany(Transaction, rows.slice(i, i + 1000));
    documentIds.push(doc.id);
  }
  await app.get(DealLifecycleService).refresh({ organizationId, livemode: true }, deal.id);
  return { dealId: deal.id, documentIds };
}
