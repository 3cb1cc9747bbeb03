/**
 * Tables that go on past a line or a page (issue 11): wrapped descriptions, "(continued)" headings,
 * carried/brought-forward balances checked against the balance chain, the first row of a page without
 * a date; and the year of yearless dates across December -> January, from the period, the printed
 * years of other rows, or the upload date. Each on a small hand-laid PDF read through the whole pipeline.
 */
import { makePdf, rows, Txt } from './__fixtures__/make-pdf';
import { parseStatementFile } from './index';

const head = (lines: string[], y = 40): Txt[] =>
  lines.map((text, i) => ({ x: 40, y: y + i * 13, text, size: i === 0 ? 14 : 9, bold: i === 0 }));
const pairs = (r: { transactions: Array<{ date: string; amount: number }> }) => r.transactions.map((t) => [t.date, t.amount]);
const X = [40, 100, -380, -460, -560];
const HEADER = ['Date', 'Description', 'Withdrawals', 'Deposits', 'Balance'];

/** Two pages; `cf` is the balance printed as carried (and brought) forward, `tail` the balances of page 2. */
function continued(cf: string, tail: [string, string], closing: string): Txt[][] {
  const p1: Txt[] = [
    ...head([
      'Ashgrove Savings Bank',
      'Statement period 15 Dec 2025 to 14 Jan 2026',
      'Opening balance 1,000.00',
      `Closing balance ${closing}`,
    ]),
    { x: 40, y: 105, text: 'Account activity', size: 10, bold: true },
    ...rows([HEADER], X, 120),
    ...rows(
      [
        ['20 Dec', 'Card payment Corner Hardware', '100.00', '', '900.00'],
        ['', 'Rent Harbour Properties', '400.00', '', '500.00'],
        ['28 Dec', 'Transfer from savings account', '', '1,500.00', '2,000.00'],
        ['', 'reference 99812 online', '', '', ''],
        ['', 'Balance carried forward', '', '', cf],
      ],
      X,
      135,
    ),
    { x: 40, y: 210, text: 'Continued on next page', size: 7 },
  ];
  const p2: Txt[] = [
    { x: 40, y: 40, text: 'Account activity (continued)', size: 10, bold: true },
    ...rows([HEADER], X, 60),
    ...rows(
      [
        ['', 'Balance brought forward', '', '', cf],
        ['', 'Card payment Bakery Lane', '25.50', '', tail[0]],
        ['3 Jan', 'Salary Kestrel Ltd', '', '2,000.00', tail[1]],
        ['14 Jan', 'Closing balance', '', '', closing],
      ],
      X,
      75,
    ),
  ];
  return [p1, p2];
}

describe('rows and tables that continue', () => {
  it('a table continued on the next page: forward rows are not transactions, the first row of page 2 keeps the day, Dec->Jan years from the period', async () => {
    const r = await parseStatementFile(await makePdf(continued('2,000.00', ['1,974.50', '3,974.50'], '3,974.50')));
    expect(r.transactions.map((t) => [t.date, t.amount, t.description])).toEqual([
      ['2025-12-20', -100, 'Card payment Corner Hardware'],
      ['2025-12-20', -400, 'Rent Harbour Properties'],
      ['2025-12-28', 1500, 'Transfer from savings account reference 99812 online'],
      ['2025-12-28', -25.5, 'Card payment Bakery Lane'],
      ['2026-01-03', 2000, 'Salary Kestrel Ltd'],
    ]);
    expect(r).toMatchObject({ openingBalance: 1000, closingBalance: 3974.5, periodStart: '2025-12-15', periodEnd: '2026-01-14' });
    expect(r.reconciliation.reconciled).toBe(true);
    expect(r.needsReview).toBe(false);
    expect(r.warnings.filter((w) => /balance chain/.test(w))).toEqual([]);
    expect(r.readings).toContainEqual(
      expect.objectContaining({ question: 'year', candidates: 2, evidence: expect.stringMatching(/across the new year/) }),
    );
  });

  it('a carried-forward balance that the rows above do not reach is named, and the document goes to review', async () => {
    // a row of page 1 is missing (or misprinted): the chain jumps by 100.00 at the page break
    const r = await parseStatementFile(await makePdf(continued('2,100.00', ['2,074.50', '4,074.50'], '4,074.50')));
    expect(r.transactions).toHaveLength(5);
    expect(r.reconciliation.reconciled).toBe(false);
    expect(r.needsReview).toBe(true);
    const chain = r.reviewReasons.filter((w) => /^balance chain:/.test(w));
    expect(chain).toHaveLength(2);
    expect(chain[0]).toMatch(/"Balance carried forward 2,100.00" on page 1 prints 2100.00, but the rows above it give 2000.00/);
    expect(chain[1]).toMatch(/"Balance brought forward 2,100.00" on page 2/);
  });

  it('a brought-forward balance that disagrees with the printed opening balance is named too', async () => {
    const [p1] = continued('2,000.00', ['1,974.50', '3,974.50'], '2,000.00');
    const page = [...p1.filter((t) => t.y < 135 || t.y > 190), ...rows([['', 'Balance brought forward', '', '', '1,050.00']], X, 135)];
    const r = await parseStatementFile(await makePdf([page]));
    expect(r.reviewReasons.join(' ')).toMatch(
      /"Balance brought forward 1,050.00" on page 1 prints 1050.00, but the rows above it give 1000.00/,
    );
  });

  it('without a period, yearless rows take the year printed on other rows and run on into January', async () => {
    const page: Txt[] = [
      ...head(['Kestrel Bank', 'Opening balance 100.00', 'Closing balance 180.00']),
      ...rows([['Date', 'Description', 'Amount', 'Balance']], [40, 110, -420, -500], 100),
      ...rows(
        [
          ['12/28/2025', 'Deposit', '50.00', '150.00'],
          ['12/30', 'Card fee', '-20.00', '130.00'],
          ['01/03', 'Deposit', '50.00', '180.00'],
        ],
        [40, 110, -420, -500],
        115,
      ),
    ];
    const r = await parseStatementFile(await makePdf([page], { created: new Date(Date.UTC(2026, 5, 30)) }));
    expect(pairs(r)).toEqual([
      ['2025-12-28', 50],
      ['2025-12-30', -20],
      ['2026-01-03', 50],
    ]);
    expect(r.readings).toContainEqual(
      expect.objectContaining({ question: 'year', chosen: expect.stringMatching(/years printed on other rows/) }),
    );
  });

  it('without a period or PDF dates, years come from the upload date, said in a warning, a reading and the review reasons', async () => {
    const page: Txt[] = [
      ...head(['Kauri Bank', 'Opening balance $100.00', 'Closing balance $150.00']),
      ...rows([['Date', 'Description', 'Amount', 'Balance']], [40, 100, -420, -500], 100),
      ...rows(
        [
          ['28 Dec', 'Deposit', '70.00', '170.00'],
          ['3 Jan', 'Card fee', '-20.00', '150.00'],
        ],
        [40, 100, -420, -500],
        115,
      ),
    ];
    const r = await parseStatementFile(await makePdf([page], { noDates: true }), { receivedAt: new Date(Date.UTC(2026, 0, 10)) });
    expect(pairs(r)).toEqual([
      ['2025-12-28', 70],
      ['2026-01-03', -20],
    ]);
    const why = /dates without a year placed in the 12 months up to the upload date \(2026-01-10\)/;
    expect(r.warnings.join(' ')).toMatch(why);
    expect(r.reviewReasons.join(' ')).toMatch(why);
    expect(r.readings).toContainEqual(
      expect.objectContaining({ question: 'year', confidence: 0.5, chosen: expect.stringMatching(/the upload date \(2026-01-10\)/) }),
    );
  });
});
