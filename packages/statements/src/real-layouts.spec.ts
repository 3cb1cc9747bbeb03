/**
 * Traits of real statements outside the generated US corpus (issue 11), each on a small hand-laid PDF
 * read through the whole pipeline: UK/NZ/AU/IN layouts, day-first dates, period phrasings, years for
 * yearless dates, "ignore" blocks, dates printed once per day across page breaks, misprints, and the
 * honest outcome (needs_review with reasons).
 */
import { makePdf, rows, Txt } from './__fixtures__/make-pdf';
import { parseStatementFile } from './index';

const head = (lines: string[], y = 40): Txt[] =>
  lines.map((text, i) => ({ x: 40, y: y + i * 13, text, size: i === 0 ? 14 : 9, bold: i === 0 }));
const pairs = (r: { transactions: Array<{ date: string; amount: number }> }) => r.transactions.map((t) => [t.date, t.amount]);

describe('real-world statement traits', () => {
  it('UK layout: Money in / Money out, ordinal dates without a year, period with the year once, brought forward row, first row of the day without a date', async () => {
    const X = [40, 100, -380, -450, -530];
    const page: Txt[] = [
      ...head(['Thistle & Crown Bank plc', 'Your statement 12th Feb to 11th Mar 2022', 'Sort code 12-34-56 Account number 87654321']),
      ...rows([['Date', 'Description', 'Money out', 'Money in', 'Balance']], X, 110),
      ...rows(
        [
          ['12th Feb', 'Balance brought forward', '', '', '1,000.00'],
          ['', 'Card payment Tesco Stores', '25.40', '', '974.60'],
          ['20th Feb', 'Salary Acme Ltd', '', '2,000.00', '2,974.60'],
          ['', 'Direct debit Council Tax', '150.00', '', '2,824.60'],
          ['11th Mar', 'Balance carried forward', '', '', '2,824.60'],
        ],
        X,
        125,
      ),
    ];
    const r = await parseStatementFile(await makePdf([page]));
    expect(r.documentType).toBe('bank_statement');
    expect(pairs(r)).toEqual([
      ['2022-02-12', -25.4],
      ['2022-02-20', 2000],
      ['2022-02-20', -150],
    ]);
    expect(r).toMatchObject({
      periodStart: '2022-02-12',
      periodEnd: '2022-03-11',
      openingBalance: 1000,
      closingBalance: 2824.6,
      needsReview: false,
    });
    expect(r.reconciliation.reconciled).toBe(true);
  });

  it('bare table with day-first DD-MM-YYYY dates, amounts without separators or trailing zero, no balances printed in a header', async () => {
    const X = [40, 120, -330, -420, -520];
    const page: Txt[] = [
      ...rows([['Date', 'Description', 'Debit Amt', 'Credit Amt', 'Balance']], X, 60),
      ...rows(
        [
          ['01-08-2024', 'Salary Credit XYZ Pvt Ltd', '1935.3', '', '6864.58'],
          ['02-08-2024', 'Mobile Recharge Via UPI', '', '1652.61', '8517.19'],
          ['14-08-2024', 'Fuel Purchase Debit Card', '', '1641.2', '10158.39'],
          ['03-09-2024', 'NEFT Transfer', '158.39', '', '10000.0'],
        ],
        X,
        75,
      ),
    ];
    const r = await parseStatementFile(await makePdf([page]));
    expect(r.documentType).toBe('bank_statement');
    expect(pairs(r)).toEqual([
      ['2024-08-01', -1935.3],
      ['2024-08-02', 1652.61],
      ['2024-08-14', 1641.2],
      ['2024-09-03', -158.39],
    ]);
    expect(r.openingBalance).toBe(8799.88);
    expect(r.closingBalance).toBe(10000);
    expect(r.periodStart).toBe('2024-08-01');
    expect(r.warnings.join(' ')).toMatch(/opening balance not printed: implied by the first row/);
    expect(r.warnings.join(' ')).toMatch(/statement period not printed: taken from the transaction dates/);
    expect(r.reconciliation.reconciled).toBe(true);
  });

  it('DD/MM dates that are also valid MM/DD are read day-first when the period says so', async () => {
    const X = [40, 110, 200, -420, -500, -570];
    const page: Txt[] = [
      ...head(['Harbourside Bank', 'Statement period 01/03/2024 - 07/03/2024', 'Opening balance £0.00', 'Closing balance £2,424.50']),
      ...rows([['Posting Date', 'Value Date', 'Narrative', 'Debit Amount', 'Credit Amount', 'Balance']], X, 110),
      ...rows(
        [
          ['01/03/2024', '01/03/2024', 'SALARY PAYMENT', '', '£2,500.00', '£2,500.00'],
          ['02/03/2024', '03/03/2024', 'GROCERY STORE', '£75.50', '', '£2,424.50'],
        ],
        X,
        125,
      ),
    ];
    const r = await parseStatementFile(await makePdf([page]));
    expect(pairs(r)).toEqual([
      ['2024-03-01', 2500],
      ['2024-03-02', -75.5],
    ]);
    expect(r.reconciliation.reconciled).toBe(true);
  });

  it('without a period, years come from the PDF creation date, with a visible warning and a review flag', async () => {
    const X = [40, 100, -420, -500];
    const page: Txt[] = [
      ...head(['Kauri Bank', 'Opening balance $100.00', 'Closing balance $150.00']),
      ...rows([['Date', 'Description', 'Amount', 'Balance']], X, 100),
      ...rows(
        [
          ['28 Dec', 'Deposit', '70.00', '170.00'],
          ['03 Jan', 'Card fee', '-20.00', '150.00'],
        ],
        X,
        115,
      ),
    ];
    const r = await parseStatementFile(await makePdf([page], { created: new Date(Date.UTC(2025, 0, 6)) }));
    expect(pairs(r)).toEqual([
      ['2024-12-28', 70],
      ['2025-01-03', -20],
    ]);
    expect(r.warnings.join(' ')).toMatch(/dates without a year placed in the 12 months up to the PDF's creation date \(2025-01-06\)/);
    expect(r.needsReview).toBe(true);
  });

  it('an "ignore" block repeating rows under a repeated header is not read; dates printed once per day carry across a page break', async () => {
    const X = [40, 100, -330, -400, -500];
    const hdr = rows([['Date', 'Description', 'Debit', 'Credit', 'Balance']], X, 110);
    const p1: Txt[] = [
      ...head([
        'Gravy Crumb Bank',
        'Statement Period: 1 Jan 2025 to 31 Jan 2025',
        'Opening balance: $1,000.00 CR',
        'Closing balance: $1,070.00 CR',
      ]),
      ...hdr,
      ...rows(
        [
          ['01 Jan', 'Transaction 1', '100.00', '', ''],
          ['', 'Transaction 2', '', '50.00', '950.00 CR'],
          ['17 Jan', 'Transaction 3', '', '', ''],
        ],
        X,
        125,
        16,
      ),
    ];
    const p2: Txt[] = [
      ...rows(
        [
          ['', 'continues here', '', '120.00', ''],
          ['', 'Transaction 4', '', '', '1,070.00 CR'],
        ],
        X,
        60,
        16,
      ),
      { x: 40, y: 120, text: 'Transactions the parser should ignore', size: 9 },
      ...rows([['Date', 'Description', 'Debit', 'Credit', 'Balance']], X, 140),
      ...rows([['01 Jan', 'Transaction 1', '100.00', '', '']], X, 155),
    ];
    const r = await parseStatementFile(await makePdf([p1, p2]));
    expect(pairs(r)).toEqual([
      ['2025-01-01', -100],
      ['2025-01-01', 50],
      ['2025-01-17', 120],
    ]);
    expect(r.reconciliation.reconciled).toBe(true);
    expect(r.needsReview).toBe(false);
  });

  it('names a misprinted running balance and asks for review instead of reporting success', async () => {
    const X = [40, 100, -420, -500];
    const page: Txt[] = [
      ...head(['Granite Bank', 'Statement Period: Mar 1, 2025 to Mar 31, 2025', 'Beginning Balance: $500.00', 'Ending Balance: $1,100.00']),
      ...rows([['Date', 'Description', 'Amount', 'Balance']], X, 110),
      ...rows(
        [
          ['Mar 03', 'Wire In', '1,000.00', '1,500.00'],
          ['Mar 05', 'Rent', '-300.00', '2,200.00'],
          ['Mar 09', 'Fee', '-100.00', '1,100.00'],
        ],
        X,
        125,
      ),
    ];
    const r = await parseStatementFile(await makePdf([page]));
    expect(pairs(r)).toEqual([
      ['2025-03-03', 1000],
      ['2025-03-05', -300],
      ['2025-03-09', -100],
    ]);
    expect(r.reconciliation.totalsMatch).toBe(true);
    expect(r.needsReview).toBe(true);
    expect(r.reviewReasons.join(' ')).toMatch(
      /misprint: printed balance 2200.00 on 2025-03-05 \(row 2\) looks misprinted: the running balance gives 1200.00/,
    );
  });

  it('a bank statement with no transactions read is flagged, never a silent success', async () => {
    const page: Txt[] = head([
      'Summit Bank',
      'Statement Period: 05/01/2025 - 05/31/2025',
      'Checking Account Number 1234567',
      'Beginning Balance $500.00',
      'Ending Balance $500.00',
      'Deposits and credits 0',
      'Withdrawals and debits 0',
    ]);
    const r = await parseStatementFile(await makePdf([page]));
    expect(r.documentType).toBe('bank_statement');
    expect(r.transactions).toEqual([]);
    expect(r).toMatchObject({ needsReview: true, reviewReasons: ['no transactions were read'] });
  });

  it('joins word pieces a text layer emits without spaces ("J" "an")', async () => {
    const X = [40, 100, -420, -500];
    const page: Txt[] = [
      ...head(['Fragment Bank', 'Statement Period: 1 Jan 2025 to 31 Jan 2025', 'Opening balance $10.00', 'Closing balance $15.00']),
      ...rows([['Date', 'Description', 'Amount', 'Balance']], X, 110),
      { x: 40, y: 125, text: '1', size: 9 },
      { x: 45.5, y: 125, text: '3', size: 9 },
      { x: 53, y: 125, text: 'J', size: 9 },
      { x: 57.5, y: 125, text: 'an', size: 9 },
      ...rows([['', 'Deposit', '5.00', '15.00']], X, 125),
    ];
    const r = await parseStatementFile(await makePdf([page]));
    expect(pairs(r)).toEqual([['2025-01-13', 5]]);
  });

  it('a second listing of the same transactions grouped by type is not counted twice; a daily ending-balance table is not read', async () => {
    const X = [40, 100, -420, -500];
    const page: Txt[] = [
      ...head(['Birch Hollow Bank', 'October 1, 2019 through October 31, 2019', 'Beginning Balance $1,000.00', 'Ending Balance $1,300.00']),
      ...rows([['Date', 'Description', 'Amount', 'Balance']], X, 110),
      ...rows(
        [
          ['10/03', 'ATM Check Deposit', '500.00', '1,500.00'],
          ['10/09', 'Utility Payment', '-200.00', '1,300.00'],
        ],
        X,
        125,
      ),
      { x: 40, y: 170, text: 'DEPOSITS AND ADDITIONS', size: 10, bold: true },
      ...rows([['Date', 'Description', 'Amount']], X, 185),
      ...rows([['10/03', 'ATM Check Deposit', '500.00']], X, 200),
      { x: 40, y: 225, text: 'ELECTRONIC WITHDRAWALS', size: 10, bold: true },
      ...rows([['Date', 'Description', 'Amount']], X, 240),
      ...rows([['10/09', 'Utility Payment', '200.00']], X, 255),
      { x: 40, y: 280, text: 'ENDING BALANCE', size: 10, bold: true },
      ...rows([['Date', 'Amount']], [40, -200], 295),
      ...rows(
        [
          ['10/03', '1,500.00'],
          ['10/09', '1,300.00'],
        ],
        [40, -200],
        310,
      ),
    ];
    const r = await parseStatementFile(await makePdf([page]));
    expect(pairs(r)).toEqual([
      ['2019-10-03', 500],
      ['2019-10-09', -200],
    ]);
    expect(r.reconciliation.reconciled).toBe(true);
    expect(r.warnings.join(' ')).toMatch(/second listing of the same transactions \(2 rows from 2019-10-03\) was not counted/);
  });

  it('takes the sign reading under which the printed running balance holds (columns named the other way round)', async () => {
    // a bank printing its columns from its own book-keeping side: "Credit" holds the withdrawals
    const X = [40, 100, -400, -470, -550];
    const page: Txt[] = [
      ...head(['Ledger Side Bank', 'Statement Period: 06/01/2025 - 06/30/2025']),
      ...rows([['Date', 'Description', 'Debit', 'Credit', 'Balance']], X, 100),
      ...rows(
        [
          ['06/02', 'Payroll deposit', '1,000.00', '', '1,500.00'],
          ['06/05', 'Card purchase', '', '200.00', '1,300.00'],
          ['06/09', 'Rent', '', '700.00', '600.00'],
        ],
        X,
        115,
      ),
    ];
    const r = await parseStatementFile(await makePdf([page]));
    expect(pairs(r)).toEqual([
      ['2025-06-02', 1000],
      ['2025-06-05', -200],
      ['2025-06-09', -700],
    ]);
    expect(r.openingBalance).toBe(500);
    expect(r.warnings.join(' ')).toMatch(/amounts read with the opposite sign: the printed running balance follows them only that way/);
    expect(r.reconciliation.reconciled).toBe(true);
  });

  it('checks printed section totals against the rows read above them and names a difference', async () => {
    const X = [40, 100, -420];
    const page: Txt[] = [
      ...head(['Totals Bank', 'Statement Period: 06/01/2025 - 06/30/2025', 'Beginning Balance $1,000.00']),
      { x: 40, y: 100, text: 'DEPOSITS AND ADDITIONS', size: 10, bold: true },
      ...rows([['Date', 'Description', 'Amount']], X, 115),
      ...rows(
        [
          ['06/02', 'Payroll deposit', '1,000.00'],
          ['06/05', 'Mobile deposit', '250.00'],
          ['Total Deposits and Additions', '', '1,350.00'],
        ],
        X,
        130,
      ),
      { x: 40, y: 180, text: 'ELECTRONIC WITHDRAWALS', size: 10, bold: true },
      ...rows([['Date', 'Description', 'Amount']], X, 195),
      ...rows(
        [
          ['06/09', 'Rent', '700.00'],
          ['Total Electronic Withdrawals', '', '700.00'],
        ],
        X,
        210,
      ),
    ];
    const r = await parseStatementFile(await makePdf([page]));
    expect(pairs(r)).toEqual([
      ['2025-06-02', 1000],
      ['2025-06-05', 250],
      ['2025-06-09', -700],
    ]);
    expect(r.warnings.filter((w) => /printed total/.test(w))).toEqual([
      'printed total "Total Deposits and Additions 1,350.00" (1350.00) differs from the 2 rows read above it (1250.00)',
    ]);
    expect(r.needsReview).toBe(true);
    expect(r.reviewReasons).toEqual([
      'cannot reconcile: closing balance not found',
      'printed total "Total Deposits and Additions 1,350.00" (1350.00) differs from the 2 rows read above it (1250.00)',
    ]);
  });
});
