/**
 * Column roles from the cells (issue 11): tables without header words, bands that move between
 * pages, and the running balance as the oracle that picks which money column is which.
 */
import { makePdf, rows, Txt } from './__fixtures__/make-pdf';
import { CellTok, inferColumns, pageShift } from './columns';
import { parseStatementFile } from './index';

/** A row of cells: a date at x=40, a description, then amounts right-aligned at edges ("330:100 520:900"). */
function row(date: string, desc: string, money: string): CellTok[] {
  const out: CellTok[] = [
    { kind: 'date', x0: 40, x1: 40 + date.length * 5, size: 9 },
    { kind: 'text', x0: 110, x1: 110 + desc.length * 5, size: 9 },
  ];
  for (const cell of money.split(' ')) {
    const [edge, v] = cell.split(':').map(Number);
    out.push({ kind: 'amount', x0: edge - 35, x1: edge, size: 9, value: v });
  }
  return out;
}

const roles = (r: ReturnType<typeof inferColumns>) => r?.columns.map((c) => c.role);

describe('column roles from the cells', () => {
  const debitsLeft = [
    row('01-08-2024', 'Opening', '520:1000'),
    row('02-08-2024', 'Card', '330:100 520:900'),
    row('03-08-2024', 'Salary', '420:1935.3 520:2835.3'),
    row('04-08-2024', 'Rent', '330:800 520:2035.3'),
  ];
  const creditsLeft = [
    row('01/08', 'Card', '420:100 520:900'),
    row('02/08', 'Salary', '330:500 520:1400'),
    row('03/08', 'Rent', '420:800 520:600'),
    row('04/08', 'Refund', '330:50 520:650'),
  ];
  it.each([
    ['debits left of credits', debitsLeft, ['date', 'desc', 'debit', 'credit', 'balance']],
    ['credits left of debits', creditsLeft, ['date', 'desc', 'credit', 'debit', 'balance']],
  ])('debit, credit and balance bands (%s): the running balance says which is which', (_, cells, want) => {
    const r = inferColumns(cells);
    expect(roles(r)).toEqual(want);
    expect(r?.chainScore).toBe(1);
    expect(r?.candidates).toBe(2);
  });

  it('a balance band printed before the money bands', () => {
    const r = inferColumns([
      row('01/08', 'Card', '250:900 420:100'),
      row('02/08', 'Salary', '250:1400 520:500'),
      row('03/08', 'Rent', '250:600 420:800'),
    ]);
    expect(roles(r)).toEqual(['date', 'desc', 'balance', 'debit', 'credit']);
  });

  it('two bands never filled on the same row are debits and credits; filled together, an amount and its balance', () => {
    const exclusive = inferColumns([row('01/08', 'Card', '330:100'), row('02/08', 'Salary', '420:500'), row('03/08', 'Rent', '330:800')]);
    expect(roles(exclusive)).toEqual(['date', 'desc', 'debit', 'credit']);
    expect(exclusive?.chainScore).toBeNull();
    const shared = inferColumns([
      row('01/08', 'Card', '420:100 520:900'),
      row('02/08', 'Salary', '420:500 520:1400'),
      row('03/08', 'Rent', '420:-800 520:600'),
    ]);
    expect(roles(shared)).toEqual(['date', 'desc', 'amount', 'balance']);
  });

  it('says nothing under three dated rows, and leaves side-by-side lists out', () => {
    expect(inferColumns([row('01/08', 'Card', '330:100'), row('02/08', 'Salary', '420:500')])).toBeNull();
    const tuples: CellTok[][] = [1, 2, 3].map((i) => [
      { kind: 'date', x0: 40, x1: 60, size: 9 },
      { kind: 'amount', x0: 80, x1: 110, size: 9, value: i },
      { kind: 'date', x0: 200, x1: 220, size: 9 },
      { kind: 'amount', x0: 240, x1: 270, size: 9, value: i },
    ]);
    expect(inferColumns(tuples)).toBeNull();
  });

  it('measures how far a page moved: the money bands, else the dates', () => {
    const b = (x1: number) => ({ x0: x1 - 30, x1, rows: 3 });
    expect(pageShift({ bands: [b(330), b(420), b(520)], dateX0: 40 }, { bands: [b(360), b(450), b(550)], dateX0: 70 })).toBe(30);
    expect(pageShift({ bands: [b(330), b(420), b(520)], dateX0: 40 }, { bands: [b(470), b(570)], dateX0: 58 })).toBe(18);
    expect(pageShift(null, { bands: [b(330)], dateX0: 40 })).toBe(0);
  });
});

/** Rows on two pages, the second page's columns `dx` points further right (an even page's margin). */
const shiftedPages = (xs: number[], dx: number, first: string[][], y: number, second: string[][]): [Txt[], Txt[]] => [
  rows(first, xs, y),
  rows(
    second,
    xs.map((x) => (x < 0 ? x - dx : x + dx)),
    60,
  ),
];

const pairs = (r: { transactions: Array<{ date: string; amount: number }> }) => r.transactions.map((t) => [t.date, t.amount]);

describe('tables without header words, through the whole pipeline', () => {
  it('Date | Credit | Debit | Balance with no header line, DD-MM-YYYY, amounts like 1935.3, on two pages whose margins differ', async () => {
    const title: Txt[] = [
      { x: 40, y: 40, text: 'Karbon Bank Account Statement', size: 14, bold: true },
      { x: 40, y: 58, text: 'Savings account number 1234567890', size: 9 },
      { x: 40, y: 70, text: 'Statement period 01-08-2024 to 30-09-2024', size: 9 },
    ];
    // page 2 (an even page) sits 60 points further right
    const [p1, p2] = shiftedPages(
      [40, 120, -330, -420, -520],
      60,
      [
        ['01-08-2024', 'ATM Withdrawal Branch 12', '', '1935.3', '6864.58'],
        ['02-08-2024', 'Mobile Recharge Via UPI', '', '652.61', '6211.97'],
        ['14-08-2024', 'Fuel Purchase Debit Card', '', '1641.2', '4570.77'],
        ['20-08-2024', 'Interest Credit', '12.5', '', '4583.27'],
      ],
      90,
      [
        ['03-09-2024', 'NEFT Transfer In', '1000.0', '', '5583.27'],
        ['09-09-2024', 'Electricity Bill', '', '83.27', '5500.0'],
        ['12-09-2024', 'Cashback', '100.00', '', '5600.0'],
        ['18-09-2024', 'Rent Payment', '', '1500.00', '4100.0'],
      ],
    );
    const r = await parseStatementFile(await makePdf([[...title, ...p1], p2]));
    expect(pairs(r)).toEqual([
      ['2024-08-01', -1935.3],
      ['2024-08-02', -652.61],
      ['2024-08-14', -1641.2],
      ['2024-08-20', 12.5],
      ['2024-09-03', 1000],
      ['2024-09-09', -83.27],
      ['2024-09-12', 100],
      ['2024-09-18', -1500],
    ]);
    expect(r.reconciliation.reconciled).toBe(true);
    const columns = r.readings?.find((x) => x.question === 'columns');
    expect(columns?.chosen).toMatch(/^credit, debit, balance \(no header words; pages 1, 2\)/);
    expect(columns?.confidence).toBe(1);
    expect(r.readings?.find((x) => x.question === 'date_order')).toMatchObject({ chosen: 'DD/MM', confidence: 1 });
  });

  it('debit and credit columns without a balance column: the printed opening and closing balances decide which is which', async () => {
    const X = [40, 120, -380, -470];
    const page: Txt[] = [
      { x: 40, y: 40, text: 'Fernhill Bank Account Statement', size: 14, bold: true },
      { x: 40, y: 60, text: 'Statement period 01/03/2024 - 31/03/2024', size: 9 },
      { x: 40, y: 74, text: 'Opening balance 1,000.00', size: 9 },
      { x: 40, y: 88, text: 'Closing balance 1,650.00', size: 9 },
      // credits printed left of debits, no header words
      ...rows(
        [
          ['04/03/2024', 'Salary', '900.00', ''],
          ['11/03/2024', 'Groceries', '', '150.00'],
          ['19/03/2024', 'Utilities', '', '100.00'],
        ],
        X,
        120,
      ),
    ];
    const r = await parseStatementFile(await makePdf([page]));
    expect(pairs(r)).toEqual([
      ['2024-03-04', 900],
      ['2024-03-11', -150],
      ['2024-03-19', -100],
    ]);
    expect(r.reconciliation.reconciled).toBe(true);
    expect(r.readings?.find((x) => x.question === 'sign')).toMatchObject({ chosen: 'reversed', confidence: 1 });
    expect(r.warnings.join('\n')).toMatch(/opposite sign: only that way do the opening balance/);
  });
});

describe('a header printed on the first page only, the table moved on the next page', () => {
  it('follows the table with the header columns moved', async () => {
    const X = [40, 100, -330, -420, -520];
    const [rows1, p2] = shiftedPages(
      X,
      60,
      [
        ['03/02', 'Card Purchase Grocer', '50.00', '', '950.00'],
        ['03/05', 'Payroll Deposit', '', '400.00', '1,350.00'],
        ['03/09', 'Utility Payment', '25.00', '', '1,325.00'],
      ],
      125,
      [
        ['03/12', 'Card Purchase Fuel', '40.00', '', '1,285.00'],
        ['03/20', 'Refund Store', '', '15.00', '1,300.00'],
        ['03/28', 'Phone Bill', '25.00', '', '1,275.00'],
      ],
    );
    const p1: Txt[] = [
      { x: 40, y: 40, text: 'Riverside Bank Account Statement', size: 14, bold: true },
      { x: 40, y: 60, text: 'Statement Period: 03/01/2025 - 03/31/2025', size: 9 },
      { x: 40, y: 74, text: 'Beginning Balance 1,000.00', size: 9 },
      { x: 40, y: 88, text: 'Ending Balance 1,275.00', size: 9 },
      ...rows([['Date', 'Description', 'Withdrawals', 'Deposits', 'Balance']], X, 110),
      ...rows1,
    ];
    const r = await parseStatementFile(await makePdf([p1, p2]));
    expect(pairs(r)).toEqual([
      ['2025-03-02', -50],
      ['2025-03-05', 400],
      ['2025-03-09', -25],
      ['2025-03-12', -40],
      ['2025-03-20', 15],
      ['2025-03-28', -25],
    ]);
    expect(r.reconciliation.reconciled).toBe(true);
  });
});
