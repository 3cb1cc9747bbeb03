/**
 * Every printed description fragment of a row ends up in its description (issue 19): wrapped lines, a
 * wrapped line printed at the top of the next page, lines printed above the amount line, fragments left
 * of the date or right of the amounts. A row left without a description is a warning.
 */
import { makePdf, rows, Txt } from './__fixtures__/make-pdf';
import { parseStatementFile } from './index';

const head = (opening: string, closing: string): Txt[] =>
  [
    'Harbor Point Bank',
    'Statement Period: 01/01/2026 - 01/31/2026',
    'Account Number: 0000123456789',
    `Opening Balance $${opening}`,
    `Closing Balance $${closing}`,
  ].map((text, i) => ({ x: 40, y: 40 + i * 13, text, size: i === 0 ? 14 : 9 }));
const XS = [40, 100, -420, -500, -570];
const HEADER = ['Date', 'Description', 'Debits', 'Credits', 'Balance'];
const descriptions = (r: Awaited<ReturnType<typeof parseStatementFile>>) => r.transactions.map((t) => t.description);

describe('row descriptions', () => {
  it('a wrapped line printed at the top of the next page, under the repeated header, ends the last row of the page before', async () => {
    const p1 = [
      ...head('1,000.00', '1,342.52'),
      ...rows([HEADER], XS, 150),
      ...rows(
        [
          ['01/05', 'Card Purchase Corner Hardware', '100.00', '', '900.00'],
          ['01/06', 'Signature POS Debit Giant Food', '57.48', '', '842.52'],
        ],
        XS,
        165,
      ),
    ];
    const p2 = [
      { x: 40, y: 40, text: 'Account Activity (continued)', size: 10 },
      ...rows([HEADER], XS, 60),
      ...rows(
        [
          ['', 'SEQ# 0087', '', '', ''],
          ['01/07', 'Deposit Branch 12', '', '500.00', '1,342.52'],
        ],
        XS,
        75,
      ),
    ];
    const r = await parseStatementFile(await makePdf([p1, p2]));
    expect(descriptions(r)).toEqual(['Card Purchase Corner Hardware', 'Signature POS Debit Giant Food SEQ# 0087', 'Deposit Branch 12']);
    expect(r.reconciliation.reconciled).toBe(true);
  });

  it('lines printed between a dated line without an amount and the amount line all belong to that row', async () => {
    const page = [
      ...head('1,000.00', '880.00'),
      ...rows([HEADER], XS, 150),
      ...rows(
        [
          ['17 Jan', 'Payment to Harbor', '', '', ''],
          ['', 'Insurance Group Ref 55', '', '', ''],
          ['', 'Policy 7781', '120.00', '', '880.00'],
        ],
        XS,
        165,
      ),
    ];
    const r = await parseStatementFile(await makePdf([page]));
    // the rows as read (where each was read, `source`, is checked in arithmetic-readings.spec.ts)
    expect(r.transactions.map(({ source: _source, ...t }) => t)).toEqual([
      {
        date: '2026-01-17',
        description: 'Payment to Harbor Insurance Group Ref 55 Policy 7781',
        amount: -120,
        balance: 880,
        transactionType: 'debit',
      },
    ]);
  });

  it('a description printed just above its amount line is not taken as the wrapped line of the row before', async () => {
    const page: Txt[] = [
      ...head('1,000.00', '865.00'),
      ...rows([HEADER], XS, 150),
      ...rows([['01/05', 'Card Purchase Corner Hardware', '100.00', '', '900.00']], XS, 165),
      // the text layer puts this row's description 5 pt above its date and amounts: a line of its own
      { x: 100, y: 174, text: 'ACH Debit Utility Co', size: 9 },
      ...rows([['01/08', '', '35.00', '', '865.00']], XS, 179),
    ];
    const r = await parseStatementFile(await makePdf([page]));
    expect(descriptions(r)).toEqual(['Card Purchase Corner Hardware', 'ACH Debit Utility Co']);
    expect(r.warnings.filter((w) => /no description/.test(w))).toEqual([]);
  });

  it('fragments left of the date and right of the amounts are part of the description', async () => {
    const xs = [40, 150, 200, -430, -500, 520];
    const page = [
      ...head('1,000.00', '930.00'),
      ...rows([['Channel', 'Date', 'Description', 'Amount', 'Balance', 'Note']], xs, 150),
      ...rows(
        [
          ['ONLINE BANKING XFER', '01/12', 'To Savings', '-50.00', '950.00', ''],
          ['', '01/14', 'Card Purchase', '-20.00', '930.00', 'Ref 8812'],
        ],
        xs,
        165,
      ),
    ];
    const r = await parseStatementFile(await makePdf([page]));
    expect(descriptions(r)).toEqual(['ONLINE BANKING XFER To Savings', 'Card Purchase Ref 8812']);
  });

  it('a row without any description is a warning naming it', async () => {
    const page = [...head('1,000.00', '985.00'), ...rows([HEADER], XS, 150), ...rows([['01/09', '', '15.00', '', '985.00']], XS, 165)];
    const r = await parseStatementFile(await makePdf([page]));
    expect(r.transactions).toHaveLength(1);
    expect(r.warnings).toContain('row 1 (2026-01-09, -15.00) on page 1 has no description');
  });
});
