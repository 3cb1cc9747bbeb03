/**
 * Each notation of issue 3, on small hand-laid PDFs read through the whole pipeline.
 */
import { makePdf, rows, Txt } from './__fixtures__/make-pdf';
import { parseStatementFile } from './index';

const head = (lines: string[], y = 40): Txt[] =>
  lines.map((text, i) => ({ x: 40, y: y + i * 13, text, size: i === 0 ? 14 : 9, bold: i === 0 }));
const simple = (ts: Array<{ date: string; amount: number; description: string; balance: number | null }>) =>
  ts.map((t) => [t.date, t.amount, t.description, t.balance]);

describe('layout parser notations', () => {
  it('separate debit and credit columns, balance on some rows, wrapped descriptions, Dec->Jan MM/DD', async () => {
    const page: Txt[] = [
      ...head([
        'Riverbend Community Bank',
        'Statement Period: 12/20/2025 - 01/19/2026',
        'Account Number: 0000123456789',
        'Account Holder: Blue Fox Coffee LLC',
        'Small Business Checking',
        'Opening Balance $1,000.00',
        'Closing Balance $1,625.25',
      ]),
      ...rows([['Date', 'Description', 'Withdrawals', 'Deposits', 'Balance']], [40, 90, -420, -500, -570], 150),
      ...rows(
        [
          ['12/28', 'Card Purchase Corner Hardware', '100.00', '', ''],
          ['12/30', 'Deposit From Square Inc', '', '500.00', '1,400.00'],
          ['', 'Settlement Batch 9912 Terminal 7', '', '', ''],
          ['01/02', 'ACH Debit Utility Co', '74.75', '', '1,325.25'],
          ['01/05', 'Mobile Deposit', '', '300.00', '1,625.25'],
        ],
        [40, 90, -420, -500, -570],
        165,
      ),
    ];
    const r = await parseStatementFile(await makePdf([page]));
    expect(r.documentType).toBe('bank_statement');
    // the rows as read (where each was read, `source`, is checked in arithmetic-readings.spec.ts)
    expect(r.transactions.map(({ source: _source, ...t }) => t)).toEqual([
      { date: '2025-12-28', description: 'Card Purchase Corner Hardware', amount: -100, balance: null, transactionType: 'debit' },
      {
        date: '2025-12-30',
        description: 'Deposit From Square Inc Settlement Batch 9912 Terminal 7',
        amount: 500,
        balance: 1400,
        transactionType: 'credit',
      },
      { date: '2026-01-02', description: 'ACH Debit Utility Co', amount: -74.75, balance: 1325.25, transactionType: 'debit' },
      { date: '2026-01-05', description: 'Mobile Deposit', amount: 300, balance: 1625.25, transactionType: 'credit' },
    ]);
    expect(r).toMatchObject({
      bankName: 'Riverbend Community Bank',
      accountHolder: 'Blue Fox Coffee LLC',
      accountNumberLast4: '6789',
      accountType: 'Small Business Checking',
      periodStart: '2025-12-20',
      periodEnd: '2026-01-19',
      openingBalance: 1000,
      closingBalance: 1625.25,
    });
    expect(r.reconciliation.reconciled).toBe(true);
  });

  it('single signed column with parentheses negatives and month-name dates', async () => {
    const page: Txt[] = [
      ...head([
        'Granite Peak Bank',
        'Statement Period: Mar 1, 2025 to Mar 31, 2025',
        'Acct # ****4321',
        'Beginning Balance: $500.00',
        'Ending Balance: $1,250.00',
      ]),
      ...rows([['Date', 'Description', 'Amount', 'Balance']], [40, 100, -470, -560], 120),
      ...rows(
        [
          ['Mar 03', 'Wire In Client', '1,000.00', '1,500.00'],
          ['Mar 09', 'Rent Payment', '(250.00)', '1,250.00'],
        ],
        [40, 100, -470, -560],
        135,
      ),
    ];
    const r = await parseStatementFile(await makePdf([page]));
    expect(r.transactions.map((t) => [t.date, t.amount, t.balance])).toEqual([
      ['2025-03-03', 1000, 1500],
      ['2025-03-09', -250, 1250],
    ]);
    expect(r.accountNumberLast4).toBe('4321');
    expect(r.reconciliation.reconciled).toBe(true);
  });

  it('trailing minus, MM-DD dates and amounts before the description', async () => {
    const page: Txt[] = [
      ...head([
        'Coastal Federal Credit Union',
        'For the period 07/01/2025 to 07/31/2025',
        'Account: 55512349876',
        'Previous Balance 2,000.00',
        'New Balance 1,900.00',
      ]),
      ...rows([['POSTED', 'AMOUNT', 'DESCRIPTION', 'BALANCE']], [40, -170, 190, -560], 120),
      ...rows(
        [
          ['07-02', '150.00-', 'POS PURCHASE FUEL', ''],
          ['07-15', '50.00', 'REFUND VENDOR', '1,900.00'],
        ],
        [40, -170, 190, -560],
        135,
      ),
    ];
    const r = await parseStatementFile(await makePdf([page]));
    expect(simple(r.transactions)).toEqual([
      ['2025-07-02', -150, 'POS PURCHASE FUEL', null],
      ['2025-07-15', 50, 'REFUND VENDOR', 1900],
    ]);
    expect(r.reconciliation.reconciled).toBe(true);
  });

  it('CR/DR suffixes on amounts and balances', async () => {
    const page: Txt[] = [
      ...head([
        'Harbor Light Bank',
        'Statement Period 04/01/25 to 04/30/25',
        'Account ending in 7788',
        'Opening Balance 100.00 CR',
        'Closing Balance 60.00 CR',
      ]),
      ...rows([['Date', 'Transaction Details', 'Amount', 'Balance']], [40, 100, -470, -560], 120),
      ...rows(
        [
          ['04/03/25', 'Service Charge', '90.00 DR', '10.00 CR'],
          ['04/20/25', 'Transfer In', '50.00 CR', '60.00 CR'],
        ],
        [40, 100, -470, -560],
        135,
      ),
    ];
    const r = await parseStatementFile(await makePdf([page]));
    expect(simple(r.transactions)).toEqual([
      ['2025-04-03', -90, 'Service Charge', 10],
      ['2025-04-20', 50, 'Transfer In', 60],
    ]);
    expect(r.accountNumberLast4).toBe('7788');
    expect(r.reconciliation.reconciled).toBe(true);
  });

  it('sectioned statement: unsigned amounts take the section sign; checks side by side; summary, totals and daily balances are not transactions', async () => {
    const page: Txt[] = [
      ...head(['Oak Valley Bank', 'June 1, 2025 through June 30, 2025', 'Account Number: 000099991111']),
      { x: 40, y: 90, text: 'ACCOUNT SUMMARY', bold: true },
      ...rows(
        [
          ['Beginning Balance', '$5,000.00'],
          ['Deposits and Additions', '1,200.00'],
          ['Checks Paid', '-300.00'],
          ['Electronic Withdrawals', '-400.00'],
          ['Ending Balance', '$5,500.00'],
        ],
        [40, -300],
        105,
      ),
      { x: 40, y: 180, text: 'DEPOSITS AND ADDITIONS', bold: true },
      ...rows([['DATE', 'DESCRIPTION', 'AMOUNT']], [40, 90, -560], 195),
      ...rows(
        [
          ['06/02', 'Remote Deposit', '1,000.00'],
          ['06/20', 'Interest Payment', '200.00'],
        ],
        [40, 90, -560],
        208,
      ),
      ...rows([['Total Deposits and Additions', '$1,200.00']], [40, -560], 235),
      { x: 40, y: 260, text: 'CHECKS PAID', bold: true },
      ...rows([['CHECK NO.', 'DATE PAID', 'AMOUNT', 'CHECK NO.', 'DATE PAID', 'AMOUNT']], [40, 100, -200, 300, 360, -460], 275),
      ...rows(
        [
          ['1201', '06/05', '100.00', '1203', '06/12', '150.00'],
          ['1202', '06/07', '50.00', '', '', ''],
        ],
        [40, 100, -200, 300, 360, -460],
        288,
      ),
      ...rows([['Total Checks Paid', '$300.00']], [40, -560], 315),
      { x: 40, y: 340, text: 'ELECTRONIC WITHDRAWALS', bold: true },
      ...rows([['DATE', 'DESCRIPTION', 'AMOUNT']], [40, 90, -560], 355),
      ...rows([['06/15', 'Online Payment To Insurance Co', '400.00']], [40, 90, -560], 368),
      ...rows([['Total Electronic Withdrawals', '$400.00']], [40, -560], 383),
      { x: 40, y: 410, text: 'DAILY ENDING BALANCE', bold: true },
      ...rows([['DATE', 'AMOUNT', 'DATE', 'AMOUNT']], [40, -160, 250, -370], 425),
      ...rows(
        [
          ['06/02', '6,000.00', '06/05', '5,900.00'],
          ['06/07', '5,850.00', '06/30', '5,500.00'],
        ],
        [40, -160, 250, -370],
        438,
      ),
    ];
    const r = await parseStatementFile(await makePdf([page]));
    expect(simple(r.transactions)).toEqual([
      ['2025-06-02', 1000, 'Remote Deposit', null],
      ['2025-06-20', 200, 'Interest Payment', null],
      ['2025-06-05', -100, 'Check 1201', null],
      ['2025-06-12', -150, 'Check 1203', null],
      ['2025-06-07', -50, 'Check 1202', null],
      ['2025-06-15', -400, 'Online Payment To Insurance Co', null],
    ]);
    expect(r.openingBalance).toBe(5000);
    expect(r.closingBalance).toBe(5500);
    expect(r.reconciliation.reconciled).toBe(true);
  });

  it('repeated page headers and footers over two pages do not become transactions or descriptions', async () => {
    const hdr = (n: number): Txt[] => [
      { x: 40, y: 30, text: 'Lakeside Bank  Account 1234567890', size: 8 },
      { x: 500, y: 30, text: `Page ${n} of 2`, size: 8 },
    ];
    const cols = [40, 100, -470, -560];
    const p1: Txt[] = [
      ...hdr(1),
      ...head(['Lakeside Bank', 'Statement Period 02/01/2025 - 02/28/2025', 'Beginning Balance 100.00', 'Ending Balance 130.00'], 50),
      ...rows([['Date', 'Description', 'Amount', 'Balance']], cols, 120),
      ...rows([['02/03', 'Deposit', '10.00', '110.00']], cols, 135),
      { x: 40, y: 760, text: 'Member FDIC. Equal Housing Lender. Questions? Call 800-555-0100', size: 7 },
    ];
    const p2: Txt[] = [
      ...hdr(2),
      ...rows([['Date', 'Description', 'Amount', 'Balance']], cols, 60),
      ...rows(
        [
          ['02/10', 'Deposit', '10.00', '120.00'],
          ['02/20', 'Deposit', '10.00', '130.00'],
        ],
        cols,
        75,
      ),
      { x: 40, y: 760, text: 'Member FDIC. Equal Housing Lender. Questions? Call 800-555-0100', size: 7 },
    ];
    const r = await parseStatementFile(await makePdf([p1, p2]));
    expect(r.pageCount).toBe(2);
    expect(r.transactions.map((t) => `${t.date} ${t.description} ${t.amount}`)).toEqual([
      '2025-02-03 Deposit 10',
      '2025-02-10 Deposit 10',
      '2025-02-20 Deposit 10',
    ]);
    expect(r.reconciliation.reconciled).toBe(true);
  });

  it('reports a date that does not exist instead of shifting or dropping it', async () => {
    const page: Txt[] = [
      ...head(['Test Bank', 'Statement Period: 02/01/2025 - 02/28/2025', 'Beginning Balance 10.00', 'Ending Balance 15.00']),
      ...rows([['Date', 'Description', 'Amount', 'Balance']], [40, 100, -470, -560], 120),
      ...rows([['02/29', 'Deposit', '5.00', '15.00']], [40, 100, -470, -560], 135),
    ];
    const r = await parseStatementFile(await makePdf([page]));
    expect(r.transactions).toHaveLength(1);
    expect(r.transactions[0].date).toBe('2025-02-29');
    expect(r.warnings.join(' ')).toMatch(/invalid date "02\/29"/);
  });

  it('flags a statement whose running balance breaks', async () => {
    const page: Txt[] = [
      ...head(['Test Bank', 'Statement Period: 05/01/2025 - 05/31/2025', 'Beginning Balance 100.00', 'Ending Balance 150.00']),
      ...rows([['Date', 'Description', 'Amount', 'Balance']], [40, 100, -470, -560], 120),
      ...rows(
        [
          ['05/02', 'Deposit', '20.00', '120.00'],
          ['05/03', 'Deposit', '30.00', '999.00'],
          ['05/04', 'Deposit', '30.00', '150.00'],
        ],
        [40, 100, -470, -560],
        135,
      ),
    ];
    const r = await parseStatementFile(await makePdf([page]));
    expect(r.reconciliation.reconciled).toBe(false);
    expect(r.reconciliation.firstBrokenRow).toBe(1);
    expect(r.reconciliation.difference).toBe(-30);
    expect(r.pdfRiskLevel).not.toBe('low');
    expect(r.riskReasons.join(' ')).toMatch(/reconcile/);
  });

  it('two-line column headers, dates printed once per day, "$" in its own column', async () => {
    const cols = [40, 90, 380, -450, 470, -530, -575];
    const page: Txt[] = [
      ...head(['Willow Creek Bank', 'Statement Period: 10/01/2024 - 10/31/2024', 'Beginning Balance $300.00', 'Ending Balance $420.00']),
      ...rows(
        [
          ['Post', 'Description', '', 'Money', '', 'Money', 'Running'],
          ['Date', '', '', 'Out', '', 'In', 'Balance'],
        ],
        [40, 90, 380, -450, 470, -530, -575],
        110,
        10,
      ),
      ...rows(
        [
          ['10/04', 'Payroll Deposit', '', '', '$', '200.00', ''],
          ['', 'Card Purchase Gas', '$', '30.00', '', '', '470.00'],
          ['10/09', 'Check 101', '$', '50.00', '', '', '420.00'],
        ],
        cols,
        138,
      ),
    ];
    const r = await parseStatementFile(await makePdf([page]));
    expect(simple(r.transactions)).toEqual([
      ['2024-10-04', 200, 'Payroll Deposit', null],
      ['2024-10-04', -30, 'Card Purchase Gas', 470],
      ['2024-10-09', -50, 'Check 101', 420],
    ]);
    expect(r.reconciliation.reconciled).toBe(true);
  });

  it('sections without a column header: trailing amounts are amount and balance', async () => {
    const page: Txt[] = [
      ...head([
        'Pine Ridge Savings Bank',
        'Statement Period: 08/01/2025 - 08/31/2025',
        'Previous Balance 1,000.00',
        'New Balance 1,060.00',
      ]),
      { x: 40, y: 120, text: 'Deposits and Other Credits', bold: true },
      ...rows([['08/05', 'ACH Credit Stripe', '100.00']], [40, 90, -560], 135),
      { x: 40, y: 160, text: 'Withdrawals and Other Debits', bold: true },
      ...rows([['08/07', 'Card Purchase Lumber Yard', '40.00']], [40, 90, -560], 175),
    ];
    const r = await parseStatementFile(await makePdf([page]));
    expect(simple(r.transactions)).toEqual([
      ['2025-08-05', 100, 'ACH Credit Stripe', null],
      ['2025-08-07', -40, 'Card Purchase Lumber Yard', null],
    ]);
    expect(r.reconciliation.reconciled).toBe(true);
  });
});
