/**
 * A statement cannot cover days after it was received: one that does is read, and flagged for
 * review with the dates (a fabricated or altered statement often is dated ahead).
 */
import { makePdf, rows, Txt } from './__fixtures__/make-pdf';
import { parseStatementFile } from './index';

const head = (lines: string[], y = 40): Txt[] =>
  lines.map((text, i) => ({ x: 40, y: y + i * 13, text, size: i === 0 ? 14 : 9, bold: i === 0 }));

const statement = (period: string, dates: [string, string]): Txt[] => [
  ...head(['Riverbend Community Bank', `Statement Period: ${period}`, 'Opening Balance $1,000.00', 'Closing Balance $1,400.00']),
  ...rows([['Date', 'Description', 'Amount', 'Balance']], [40, 100, -420, -500], 110),
  ...rows(
    [
      [dates[0], 'Deposit From Square Inc', '500.00', '1,500.00'],
      [dates[1], 'ACH Debit Utility Co', '-100.00', '1,400.00'],
    ],
    [40, 100, -420, -500],
    125,
  ),
];

const on = (iso: string) => new Date(`${iso}T15:00:00Z`);

describe('statements dated after they were received', () => {
  it('a period ending after the upload date is read and flagged for review, naming both dates', async () => {
    const pdf = await makePdf([statement('03/01/2026 - 03/31/2026', ['03/02/2026', '03/30/2026'])]);
    const r = await parseStatementFile(pdf, { receivedAt: on('2026-03-15') });
    expect(r.transactions).toHaveLength(2);
    expect(r.reconciliation.reconciled).toBe(true);
    expect(r.needsReview).toBe(true);
    expect(r.reviewReasons).toContain(
      'dated after it was received: the statement period ends 2026-03-31, the file was received 2026-03-15',
    );
  });

  it('a transaction dated after the upload is flagged even when the printed period is not', async () => {
    const pdf = await makePdf([statement('02/01/2026 - 02/28/2026', ['02/02/2026', '04/20/2026'])]);
    const r = await parseStatementFile(pdf, { receivedAt: on('2026-03-01') });
    expect(r.reviewReasons).toContain('dated after it was received: a transaction is dated 2026-04-20, the file was received 2026-03-01');
  });

  it('the same statement received after its period (or on the next day, time zones) is not flagged', async () => {
    const pdf = await makePdf([statement('03/01/2026 - 03/31/2026', ['03/02/2026', '03/30/2026'])]);
    for (const day of ['2026-03-30', '2026-04-02']) {
      const r = await parseStatementFile(pdf, { receivedAt: on(day) });
      expect({ day, reasons: r.reviewReasons }).toEqual({ day, reasons: [] });
      expect(r.needsReview).toBe(false);
    }
  });
});
