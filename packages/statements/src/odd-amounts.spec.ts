/**
 * Amounts printed without decimals or separators, or with a space for the decimal point, read by their
 * digits and checked against the balance chain; misplaced separators ("2,7843.55") are confirmed by
 * the chain or named as a misprint that puts the statement up for review (issue 11).
 */
import { makePdf, rows, Txt } from './__fixtures__/make-pdf';
import { parseStatementFile } from './index';

const X = [40, 120, -330, -420, -520];
const header: Txt[] = [
  { x: 40, y: 30, text: 'Kestrel Bank - Statement of Account', size: 12, bold: true },
  { x: 40, y: 44, text: 'Account number 001234567890', size: 9 },
  ...rows([['Date', 'Description', 'Debit Amt', 'Credit Amt', 'Balance']], X, 60),
];
const pairs = (r: { transactions: Array<{ date: string; amount: number; balance: number | null }> }) =>
  r.transactions.map((t) => [t.date, t.amount, t.balance]);

describe('amounts in odd notations', () => {
  it('reads whole amounts ("1935"), a space for the point ("120 00") and "90,350" in money columns, confirmed by the running balance', async () => {
    const page: Txt[] = [
      ...header,
      ...rows(
        [
          ['13-08-2024', 'Opening deposit', '', '5000', '5000'],
          ['14-08-2024', 'Rent transfer', '1935', '', '3065'],
          ['15-08-2024', 'Card payment 4411', '120 00', '', '2945.00'],
          ['16-08-2024', 'Sale of equipment', '', '87,405', '90,350'],
        ],
        X,
        75,
      ),
    ];
    const r = await parseStatementFile(await makePdf([page]));
    expect(pairs(r)).toEqual([
      ['2024-08-13', 5000, 5000],
      ['2024-08-14', -1935, 3065],
      ['2024-08-15', -120, 2945],
      ['2024-08-16', 87405, 90350],
    ]);
    expect(r.transactions[2].description).toBe('Card payment 4411');
    expect(r.reconciliation.reconciled).toBe(true);
    expect(r.needsReview).toBe(false);
    expect(r.warnings).toContainEqual(
      expect.stringMatching(
        /amount "120 00" on 2024-08-15 \(page 1\) is printed with a space for the decimal point: read as -120.00, which the running balance confirms/,
      ),
    );
    expect(r.warnings).toContainEqual(
      expect.stringMatching(/amount "1935" on 2024-08-14 .* no decimals: read as -1935.00, which the running balance confirms/),
    );
  });

  it('a number beside a proper amount in the same column stays text (a reference printed into the column)', async () => {
    const page: Txt[] = [
      ...header,
      ...rows(
        [
          ['14-08-2024', 'Deposit', '', '500.00', '500.00'],
          ['15-08-2024', 'Fee', '25.00', '', '475.00'],
        ],
        X,
        75,
      ),
      { x: 280, y: 75 + 12, text: '7731', size: 9 },
    ];
    const r = await parseStatementFile(await makePdf([page]));
    expect(pairs(r)).toEqual([
      ['2024-08-14', 500, 500],
      ['2024-08-15', -25, 475],
    ]);
  });

  it('misplaced thousands separators: confirmed by the chain, a warning; contradicted, a named misprint and a review', async () => {
    const make = (bal: string) =>
      makePdf([
        [
          ...header,
          ...rows(
            [
              ['13-08-2024', 'Deposit', '', '27,000.00', '27,000.00'],
              ['14-08-2024', 'Transfer in', '', '843.55', bal],
              ['15-08-2024', 'Fee', '43.55', '', '27,800.00'],
            ],
            X,
            75,
          ),
        ],
      ]);
    const ok = await parseStatementFile(await make('2,7843.55'));
    expect(pairs(ok)[1]).toEqual(['2024-08-14', 843.55, 27843.55]);
    expect(ok.needsReview).toBe(false);
    expect(ok.warnings).toContainEqual(
      expect.stringMatching(
        /balance "2,7843.55" on 2024-08-14 .* thousands separators misplaced: read as 27843.55, which the running balance confirms/,
      ),
    );

    // the printed digits are wrong too: the chain gives 27,843.55, the page says 2,7834.55
    const bad = await parseStatementFile(await make('2,7834.55'));
    expect(bad.needsReview).toBe(true);
    expect(bad.reviewReasons).toContainEqual(
      expect.stringMatching(
        /misprint: balance "2,7834.55" on 2024-08-14 \(page 1\) is printed with thousands separators misplaced: read as 27834.55, but the running balance then gives 27843.55 where 27834.55 is printed/,
      ),
    );
  });
});
