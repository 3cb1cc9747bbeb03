/**
 * Layouts of banks the reader had not seen (issue 28), each on a small hand-laid PDF read through the
 * whole pipeline: the reading is chosen by what the statement's own arithmetic proves (running balance,
 * daily balances, printed totals), one bad cell stays on its row, and needs_review names what is wrong.
 */
import { impossibleDatePage, makePdf, rows, Txt } from './__fixtures__/make-pdf';
import { checkDailyBalances, chooseRowOrder } from './bank-parser';
import { cleanOcrWord } from './ocr';
import { parseStatementFile } from './index';
import { joinSplitAmount, parseAmount, resolveYear } from './tokens';
import { StatementTransaction } from './types';

const pairs = (r: { transactions: Array<{ date: string; amount: number }> }) => r.transactions.map((t) => [t.date, t.amount]);

/** A typewriter-style sectioned statement: rules around headings, dot leaders, amount before text, daily balances. */
function sectioned(opts: { dailyLast?: string; credit?: string } = {}): Txt[][] {
  return [
    [
      { x: 40, y: 40, text: 'KESTREL FEDERAL BANK', size: 12, bold: true },
      { x: 400, y: 60, text: 'STATEMENT DATE', courier: true },
      { x: 400, y: 72, text: '01/09/14', courier: true },
      { x: 40, y: 90, text: 'ACCOUNT 0000123456', courier: true },
      { x: 40, y: 140, text: '-------------- DEPOSITS AND OTHER CREDITS --------------', courier: true },
      { x: 40, y: 155, text: 'DATE..........AMOUNT.TRANSACTION DESCRIPTION', courier: true },
      ...rows([['12/31', opts.credit ?? '27.00', 'FUNDS TRANSFER CR']], [40, 115, 200], 170),
      { x: 40, y: 200, text: '-------------- OTHER DEBITS --------------', courier: true },
      { x: 40, y: 215, text: 'DATE..........AMOUNT.TRANSACTION DESCRIPTION', courier: true },
      ...rows(
        [
          ['12/13', '80.32', 'FUNDS TRANSFER DB'],
          ['12/16', '10.00', 'POS DEBIT 123456'],
          ['', '', 'TARGET SOME CITY ST'],
          ['12/16', '.15', 'SERVICE FEE'],
        ],
        [40, 115, 200],
        230,
      ),
      { x: 40, y: 300, text: 'ACCOUNT BALANCE SUMMARY', courier: true },
      { x: 40, y: 315, text: 'DATE.........BALANCE DATE.........BALANCE', courier: true },
      ...rows(
        [
          ['12/09', '217.00', '12/16', '126.53'],
          ['12/13', '136.68', '12/31', opts.dailyLast ?? '153.53'],
        ],
        [40, -150, 220, -330],
        330,
      ),
    ],
  ];
}

describe('sectioned layouts read by their arithmetic', () => {
  it('reads sections framed by rules, a dot-leader header, amounts before the text and under a dollar; the year from a statement date printed under its label; the opening from the daily balances', async () => {
    const r = await parseStatementFile(await makePdf(sectioned()), { receivedAt: new Date(Date.UTC(2014, 1, 1)) });
    expect(pairs(r)).toEqual([
      ['2013-12-31', 27],
      ['2013-12-13', -80.32],
      ['2013-12-16', -10],
      ['2013-12-16', -0.15],
    ]);
    expect(r.periodEnd).toBe('2014-01-09');
    expect(r.openingBalance).toBe(217);
    expect(r.closingBalance).toBe(153.53);
    expect(r.fieldSources.openingBalance?.via).toMatch(/daily balance table/);
    expect(r.reconciliation.reconciled).toBe(true);
    expect(r.needsReview).toBe(false);
    expect(r.transactions[2].description).toBe('POS DEBIT 123456 TARGET SOME CITY ST');
  });

  it('a daily balance the rows do not give puts the statement up for review, naming the day', async () => {
    // the opening printed, the last day's balance contradicting the rows
    const pages = sectioned({ dailyLast: '160.00' });
    pages[0].push({ x: 40, y: 110, text: 'Beginning balance 217.00', courier: true });
    pages[0].push({ x: 40, y: 122, text: 'Ending balance 160.00', courier: true });
    const r = await parseStatementFile(await makePdf(pages), { receivedAt: new Date(Date.UTC(2014, 1, 1)) });
    expect(r.needsReview).toBe(true);
    expect(r.reviewReasons.join('\n')).toMatch(/daily balance table prints 160\.00 for 2013-12-31/);
  });
});

describe('the summary against the daily-balance table (tamper findings)', () => {
  const withSummary = (ending: string, dailyLast?: string) => {
    const pages = sectioned({ dailyLast });
    pages[0].push({ x: 40, y: 110, text: 'Beginning balance 217.00', courier: true });
    pages[0].push({ x: 40, y: 122, text: `Ending balance ${ending}`, courier: true });
    return makePdf(pages);
  };
  const read = async (ending: string, dailyLast?: string) =>
    parseStatementFile(await withSummary(ending, dailyLast), { ocr: false, receivedAt: new Date(Date.UTC(2014, 1, 1)) });
  const totals = (r: Awaited<ReturnType<typeof read>>) => (r.tamperFindings ?? []).filter((f) => f.kind === 'totals');

  it('as printed: no finding', async () => {
    const r = await read('153.53');
    expect(r.reconciliation.reconciled).toBe(true);
    expect(r.tamperFindings).toEqual([]);
  });

  it("the summary's closing balance changed alone: printed twice, against the table's last day, the summary's line boxed", async () => {
    const r = await read('183.53');
    const twice = totals(r).filter((f) => /printed twice/.test(f.message));
    expect(twice).toHaveLength(1);
    expect(twice[0]).toMatchObject({ category: 'arithmetic', severity: 'medium', page: 1, row: null });
    expect(twice[0].message).toBe(
      "the closing balance is printed twice with different values: 183.53 on page 1 (Ending balance) and 153.53 as the daily balance of 2013-12-31 (page 1), the table's last day; the opening balance and the rows give every day of that table, and 153.53 at its end",
    );
    // the summary's line (y 122) and the table's last day (y 330 + 12) on the same page
    expect(twice[0].boxes.map((b) => Math.round(b[3]))).toEqual([expect.any(Number), expect.any(Number)]);
    expect(twice[0].boxes[0][1]).toBeLessThan(122);
    expect(twice[0].boxes[0][3]).toBeGreaterThan(118);
    expect(twice[0].boxes[1][1]).toBeGreaterThan(330);
    expect(r.pdfRiskLevel).not.toBe('low');
  });

  it('the summary and the table changed together: the table day no row explains is boxed, and the summary line', async () => {
    const r = await read('160.00', '160.00');
    const day = totals(r).find((f) => /daily balance printed for 2013-12-31/.test(f.message));
    expect(day).toBeDefined();
    expect(day!.message).toBe(
      'the daily balance printed for 2013-12-31 (page 1) differs from the opening balance plus the rows by 6.47, as the closing balance does, and the one row dated between 2013-12-16, the last day the table agrees on, and 2013-12-31 does not explain it with one digit changed: that row was changed by more than one digit, the printed balances were changed, or rows were added or removed there',
    );
    expect(day!.boxes).toHaveLength(1);
    expect(day!.boxes[0][1]).toBeGreaterThan(330);
    // the one row dated in that window is boxed too, as the place to look (here it was not the one changed)
    const row = totals(r).find((f) => /only row dated/.test(f.message));
    expect(row).toMatchObject({ page: 1, row: 0 });
    expect(row!.message).toMatch(
      /it prints 27\.00, where 33\.47 would make them agree; its amount was changed, or the printed balances were/,
    );
    const summary = totals(r).find((f) => /^the printed closing balance \(page 1, Ending balance\) differs/.test(f.message));
    expect(summary).toMatchObject({ page: 1 });
    expect(summary!.boxes[0][1]).toBeLessThan(122);
  });
});

describe('a row changed by more than one digit, the daily balances left as printed', () => {
  it('the one row dated where the table first disagrees is named, with the amount that would make it agree', async () => {
    const pages = sectioned({ credit: '93.47' });
    pages[0].push({ x: 40, y: 110, text: 'Beginning balance 217.00', courier: true });
    pages[0].push({ x: 40, y: 122, text: 'Ending balance 153.53', courier: true });
    const r = await parseStatementFile(await makePdf(pages), { ocr: false, receivedAt: new Date(Date.UTC(2014, 1, 1)) });
    expect(r.transactions[0]).toMatchObject({ date: '2013-12-31', amount: 93.47 });
    const named = (r.tamperFindings ?? []).filter((f) => f.row === 0 && f.kind === 'totals');
    expect(named).toHaveLength(1);
    expect(named[0]).toMatchObject({ category: 'arithmetic', severity: 'medium', page: 1 });
    expect(named[0].message).toBe(
      'the daily balances first disagree with the rows on 2013-12-31, by -66.47, and row 1 is the only row dated between 2013-12-16, the last day the table agrees on, and 2013-12-31: it prints 93.47, where 27.00 would make them agree; its amount was changed, or the printed balances were, or rows were added or removed there (row 1: 2013-12-31, FUNDS TRANSFER CR)',
    );
    // boxed on the row (y 170), not on the table
    expect(named[0].boxes.length).toBeGreaterThan(0);
    expect(named[0].boxes.every((b) => b[1] < 185 && b[3] > 160)).toBe(true);
    expect(r.pdfRiskLevel).not.toBe('low');
  });
});

describe('business layouts: check grids and item totals', () => {
  it('reads a two-column "Check Nbr | Date | Amount" grid as checks, and "N item(s) totaling" lines as totals, not rows', async () => {
    const X = [40, 100, -560];
    const page: Txt[] = [
      { x: 40, y: 40, text: 'Harrier State Bank', size: 12, bold: true },
      { x: 40, y: 60, text: 'Statement period 06/01/2023 - 06/30/2023' },
      { x: 40, y: 72, text: 'Beginning Balance $1,000.00' },
      { x: 40, y: 84, text: 'Ending Balance $535.00' },
      { x: 40, y: 110, text: 'Electronic Credits', bold: true },
      ...rows([['Date', 'Description', 'Amount']], X, 125),
      ...rows([['06/05/2023', 'Internet Transfer from savings', '$500.00']], X, 140),
      { x: 400, y: 155, text: '1 item(s) totaling $500.00' },
      { x: 40, y: 180, text: 'Checks Cleared', bold: true },
      ...rows([['Check Nbr', 'Date', 'Amount', 'Check Nbr', 'Date', 'Amount']], [60, 130, -250, 330, 400, -540], 195),
      ...rows(
        [
          ['1001', '06/06/2023', '$400.00', '1003*', '06/20/2023', '$315.00'],
          ['1002', '06/09/2023', '$250.00', '', '', ''],
        ],
        [60, 130, -250, 330, 400, -540],
        210,
      ),
      { x: 400, y: 240, text: '3 item(s) totaling $965.00' },
    ];
    const r = await parseStatementFile(await makePdf([page]));
    expect(pairs(r).sort()).toEqual(
      [
        ['2023-06-05', 500],
        ['2023-06-06', -400],
        ['2023-06-09', -250],
        ['2023-06-20', -315],
      ].sort(),
    );
    expect(r.reconciliation.reconciled).toBe(true);
    expect(r.needsReview).toBe(false);
    expect(r.transactions.find((t) => t.amount === -315)?.description).toBe('Check 1003');
  });
});

describe('newest-first printouts', () => {
  const X = [40, 110, -430, -540];
  /** An online activity printout: signed amounts, newest first, rows spaced wide, the date only on a day's first row. */
  const printout = (): Txt[] => [
    { x: 40, y: 20, text: 'Printed from Osprey Bank for Business', size: 9 },
    { x: 40, y: 32, text: 'Business checking account ...1234 statement of account activity', size: 9 },
    { x: 40, y: 50, text: 'Account activity', size: 12, bold: true },
    ...rows([['Date', 'Description', 'Amount', 'Balance']], X, 70),
    ...rows(
      [
        ['Jul 5, 2023', 'ORIG CO NAME:ON', '-$20.00', '$1,480.00'],
        ['Jun 30, 2023', 'ORIG CO NAME:SAN', '-$500.00', '$1,500.00'],
        ['', 'ORIG CO NAME:CE', '$1,200.00', '$2,000.00'],
        ['Jun 28, 2023', 'Same-Day ACH Payment', '-$200.00', '$800.00'],
      ],
      X,
      95,
      45,
    ),
  ];

  it('reads the rows bottom-up where the running balance runs up the page, records that reading, and keeps the day across wide rows', async () => {
    const r = await parseStatementFile(await makePdf([printout()]));
    expect(pairs(r)).toEqual([
      ['2023-06-28', -200],
      ['2023-06-30', 1200],
      ['2023-06-30', -500],
      ['2023-07-05', -20],
    ]);
    expect(r.openingBalance).toBe(1000);
    expect(r.closingBalance).toBe(1480);
    const order = r.readings?.find((x) => x.question === 'row_order');
    expect(order?.chosen).toMatch(/newest first/);
    expect(order?.runnerUp).toEqual({
      chosen: 'oldest first (as printed)',
      whyNot: 'the running balance holds on 0 of 3 rows read top-down',
    });
    expect(r.reconciliation.reconciled).toBe(true);
    expect(r.needsReview).toBe(false);
  });

  it('chooseRowOrder keeps a table whose balance runs down the page', () => {
    const t = (date: string, amount: number, balance: number): StatementTransaction => ({
      date,
      description: 'x',
      amount,
      balance,
      transactionType: amount < 0 ? 'debit' : 'credit',
    });
    const txs = [t('2024-01-01', -10, 90), t('2024-01-02', 20, 110), t('2024-01-03', -5, 105)];
    const readings: Parameters<typeof chooseRowOrder>[3] = [];
    expect(chooseRowOrder(txs, [], [], readings)).toBe(false);
    expect(txs[0].date).toBe('2024-01-01');
  });
});

describe('one bad cell never costs the statement', () => {
  it('keeps a row with an impossible date and names it on the row; every row carries where it was read', async () => {
    const page = impossibleDatePage();
    const r = await parseStatementFile(await makePdf([page]));
    expect(pairs(r)).toEqual([
      ['2023-02-10', -50],
      ['2023-02-29', -20],
    ]);
    expect(r.transactions[1].rowWarnings?.[0]).toMatch(/impossible date "29\/02\/2023"/);
    expect(r.transactions[0].rowWarnings).toBeUndefined();
    expect(r.reconciliation.reconciled).toBe(true);
    for (const t of r.transactions) {
      expect(t.source?.page).toBe(1);
      expect(t.source?.boxes.length).toBe(1);
      const [x0, y0, x1, y1] = t.source!.boxes[0];
      expect(x0).toBeCloseTo(40, 0);
      expect(x1).toBeGreaterThan(540);
      expect(y1).toBeGreaterThan(y0);
    }
    expect(r.transactions[0].source!.boxes[0][1]).toBeLessThan(r.transactions[1].source!.boxes[0][1]);
  });

  it('a page of dated money lines that gives no row is named in needs_review', async () => {
    const X2 = [40, 100, -380, -460, -560];
    const p1: Txt[] = [
      { x: 40, y: 40, text: 'Plover Savings Bank', size: 12, bold: true },
      { x: 40, y: 58, text: 'Statement period 01/03/2023 to 31/03/2023' },
      ...rows([['Date', 'Description', 'Withdrawals', 'Deposits', 'Balance']], X2, 110),
      ...rows([['02/03/2023', 'Grocer', '50.00', '', '450.00']], X2, 125),
    ];
    // page 2: a table under an "ignore" block the reader skips, though its lines are transactions
    const p2: Txt[] = [
      { x: 40, y: 40, text: 'Transactions to ignore', bold: true },
      ...rows(
        [
          ['05/03/2023', 'Bakery Lane', '5.00', '', '445.00'],
          ['06/03/2023', 'Petrol station', '40.00', '', '405.00'],
          ['07/03/2023', 'Pharmacy', '12.00', '', '393.00'],
          ['08/03/2023', 'Book shop', '13.00', '', '380.00'],
        ],
        X2,
        60,
      ),
    ];
    const r = await parseStatementFile(await makePdf([p1, p2]));
    expect(r.needsReview).toBe(true);
    expect(r.reviewReasons.join('\n')).toMatch(/no transactions read on page 2, which holds 4 lines/);
  });
});

describe('tables that go on', () => {
  const X = [40, 110, -380, -460, -560];
  const HEADER = ['Date', 'Payment type and details', 'Paid out', 'Paid in', 'Balance'];
  it('a heading printed again on every page continues its table: the day carries over, a row described by a reference number keeps it', async () => {
    const p1: Txt[] = [
      { x: 40, y: 40, text: 'Wren Bank plc', size: 12, bold: true },
      { x: 40, y: 58, text: '9 January to 8 February 2022' },
      { x: 300, y: 70, text: 'Opening Balance 1,000.00' },
      { x: 300, y: 82, text: 'Closing Balance 845.00' },
      { x: 40, y: 110, text: 'Your current account details', bold: true },
      ...rows([HEADER], X, 125),
      ...rows(
        [
          ['', 'BALANCE BROUGHT FORWARD', '', '', '1,000.00'],
          ['14 Jan 22', 'DD Water Company', '100.00', '', ''],
          ['', 'SO Rent', '', '', ''],
          ['', '101146', '5.00', '', '895.00'],
          ['', 'BALANCE CARRIED FORWARD', '', '', '895.00'],
        ],
        X,
        140,
      ),
    ];
    const p2: Txt[] = [
      { x: 40, y: 40, text: '9 January to 8 February 2022' },
      { x: 40, y: 70, text: 'Your current account details', bold: true },
      ...rows([HEADER], X, 85),
      ...rows(
        [
          ['', 'BALANCE BROUGHT FORWARD', '', '', '895.00'],
          ['', 'VIS Corner shop', '50.00', '', '845.00'],
        ],
        X,
        100,
      ),
    ];
    const r = await parseStatementFile(await makePdf([p1, p2]));
    expect(pairs(r)).toEqual([
      ['2022-01-14', -100],
      ['2022-01-14', -5],
      ['2022-01-14', -50],
    ]);
    expect(r.reconciliation.reconciled).toBe(true);
    expect(r.needsReview).toBe(false);
  });

  it('a title framed by rules above the header is not part of it; an amount beside a column of times goes to the balance', async () => {
    const page: Txt[] = [
      { x: 40, y: 40, text: 'Bittern Bank statement of account', size: 12, bold: true },
      { x: 40, y: 58, text: 'Statement Dates 3/16/21 thru 4/15/21' },
      { x: 40, y: 70, text: 'Previous Balance 1,000.00' },
      { x: 40, y: 82, text: 'Ending Balance 955.00' },
      { x: 40, y: 110, text: '---------------- Activity in Date Order ----------------' },
      ...rows([['Date', 'Description', 'Withdrawals', 'Deposits', 'Balance', 'Time']], [40, 100, -330, -420, -500, 540], 122),
      ...rows(
        [
          ['3/16', 'POS', '15.00-', '.00', '985.00', '08:00'],
          ['3/17', 'DDA', '.00', '20.00', '1,005.00', '09:10'],
          ['3/18', 'ATM', '50.00-', '.00', '955.00', '10:20'],
        ],
        [40, 100, -330, -420, -530, 540],
        137,
      ),
    ];
    const r = await parseStatementFile(await makePdf([page]));
    expect(r.transactions.map((t) => [t.date, t.amount, t.balance])).toEqual([
      ['2021-03-16', -15, 985],
      ['2021-03-17', 20, 1005],
      ['2021-03-18', -50, 955],
    ]);
    expect(r.needsReview).toBe(false);
  });

  it('a labelled opening the rows contradict gives way to the one the first row implies, when only that one reconciles', async () => {
    const X2 = [40, 110, -430, -540];
    const page: Txt[] = [
      { x: 40, y: 30, text: 'Heron Bank statement details', size: 12, bold: true },
      { x: 300, y: 50, text: 'Opening balance 700.00' },
      { x: 300, y: 62, text: 'Closing balance 1,150.00' },
      ...rows([['Date', 'Description', 'Amount', 'Balance']], X2, 90),
      ...rows(
        [
          ['02/05/2022', 'Transfer in', '250.00', '1,250.00'],
          ['03/05/2022', 'Transfer out', '-100.00', '1,150.00'],
        ],
        X2,
        105,
      ),
    ];
    const r = await parseStatementFile(await makePdf([page]));
    expect(r.openingBalance).toBe(1000);
    expect(r.warnings.join('\n')).toMatch(/opening balance 700\.00 .* does not reconcile/);
    expect(r.reconciliation.reconciled).toBe(true);
  });
});

describe('day and month order', () => {
  const X = [40, 110, -400, -480, -560];
  const table = (dates: string[]): Txt[] => [
    { x: 40, y: 40, text: 'Avocet Bank plc statement of account', size: 12, bold: true },
    ...rows([['Date', 'Narrative', 'Debit', 'Credit', 'Balance']], X, 80),
    ...rows(
      dates.map((d, i) => [d, `Payment ${i + 1}`, '10.00', '', (1000 - 10 * (i + 1)).toFixed(2)]),
      X,
      95,
    ),
  ];

  it('numeric dates that read either way: the reading under which the rows span weeks, not months', async () => {
    const r = await parseStatementFile(await makePdf([table(['01/03/2024', '02/03/2024', '04/03/2024', '07/03/2024'])]));
    expect(r.transactions.map((t) => t.date)).toEqual(['2024-03-01', '2024-03-02', '2024-03-04', '2024-03-07']);
    expect(r.readings?.find((x) => x.question === 'date_order')?.evidence).toMatch(/span 6 days under this reading and 182/);
    expect(r.reviewReasons.join('\n')).not.toMatch(/date order/);
  });

  it('when nothing tells the two readings apart, the statement says so in needs_review', async () => {
    const r = await parseStatementFile(await makePdf([table(['03/04/2024', '03/04/2024', '04/04/2024'])]));
    expect(r.needsReview).toBe(true);
    expect(r.reviewReasons.join('\n')).toMatch(/date order undecided/);
  });
});

describe('classification', () => {
  it('a document classified as something else while its pages hold a dated table of money is flagged, not passed over', async () => {
    const page: Txt[] = [
      { x: 40, y: 40, text: 'Quarterly ledger export', size: 12, bold: true },
      ...rows(
        [
          ['01/02/2024', 'Consulting income', '1,200.00'],
          ['03/02/2024', 'Office rent', '800.00'],
          ['05/02/2024', 'Software licences', '120.00'],
          ['09/02/2024', 'Travel', '340.00'],
          ['12/02/2024', 'Hardware', '95.00'],
        ],
        [40, 120, -400],
        70,
      ),
    ];
    const r = await parseStatementFile(await makePdf([page]), { documentTypeHint: 'other' });
    expect(r.documentType).toBe('other');
    expect(r.needsReview).toBe(true);
    expect(r.reviewReasons[0]).toMatch(/classified as other, but its pages hold 5 lines with a date/);
  });
});

describe('arithmetic helpers', () => {
  it('checkDailyBalances takes the opening from the day before the first row only when every day then holds', () => {
    const t = (date: string, amount: number): StatementTransaction => ({
      date,
      description: 'x',
      amount,
      balance: null,
      transactionType: amount < 0 ? 'debit' : 'credit',
    });
    const day = (iso: string, balance: number) => ({ iso, balance, page: 0, date: { month: 1, day: 1, year: null } });
    const txs = [t('2024-01-02', -10), t('2024-01-03', 5)];
    const w: string[] = [];
    const ok = checkDailyBalances([day('2024-01-01', 100), day('2024-01-02', 90), day('2024-01-03', 95)], txs, null, w);
    expect(ok.opening?.balance).toBe(100);
    expect(ok.closing?.balance).toBe(95);
    const bad = checkDailyBalances([day('2024-01-01', 100), day('2024-01-02', 90), day('2024-01-03', 99)], txs, null, []);
    expect(bad.opening).toBeNull();
  });

  it('amounts: no leading zero, overdrawn marks, split glyphs; OCR marks beside amounts', () => {
    expect(parseAmount('.15')).toEqual({ value: 0.15, sign: 0 });
    expect(parseAmount('123.34-OD')).toEqual({ value: 123.34, sign: -1 });
    expect(parseAmount('998.28- OD')).toEqual({ value: 998.28, sign: -1 });
    expect(parseAmount('.')).toBeNull();
    expect(joinSplitAmount('3,0', '03.49')).toBe('3,003.49');
    expect(joinSplitAmount('3,003', '12.00')).toBeNull();
    expect(joinSplitAmount('Page', '12.00')).toBeNull();
    expect(cleanOcrWord('2.00-~')).toBe('2.00-');
    expect(cleanOcrWord('24.,18-')).toBe('24.18-');
  });

  it('a period known by its end only: rows after the end belong to the year before', () => {
    expect(resolveYear(12, 31, null, '2014-01-09', 2020)).toBe(2013);
    expect(resolveYear(1, 5, null, '2014-01-09', 2020)).toBe(2014);
    expect(resolveYear(1, 5, '2013-12-09', null, 2020)).toBe(2014);
  });
});
