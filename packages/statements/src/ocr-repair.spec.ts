/** OCR-only repairs in the layout parser, on synthetic word layouts (no OCR engine needed). */
import { parseBankStatement } from './bank-parser';
import { groupLines } from './extract';
import { PageLayout, Word } from './types';

/** cells: [x, text] per row; rows 14pt apart from y0 */
function page(rowsOfCells: Array<Array<[number, string]>>, method: 'ocr' | 'text', y0 = 60): PageLayout {
  const words: Word[] = [];
  rowsOfCells.forEach((cells, i) => {
    for (const [x, text] of cells) {
      let cx = x;
      for (const t of text.split(' ')) {
        const w = t.length * 5;
        words.push({
          text: t,
          x0: cx,
          x1: cx + w,
          y0: y0 + i * 14 - 8,
          y1: y0 + i * 14,
          base: y0 + i * 14,
          size: 9,
          font: method === 'ocr' ? 'ocr' : 'Helvetica',
        });
        cx += w + 3;
      }
    }
  });
  return { index: 0, width: 612, height: 792, lines: groupLines(words), method, confidence: method === 'ocr' ? 0.9 : 1, imageRects: [] };
}

const top: Array<Array<[number, string]>> = [
  [[40, 'Test Bank']],
  [[40, 'Statement Period: 07/01/2023 - 07/31/2023']],
  [[40, 'Beginning Balance 1,000.00']],
  [[40, 'Ending Balance 800.00']],
  [
    [40, 'Date'],
    [100, 'Description'],
    [400, 'Amount'],
    [500, 'Balance'],
  ],
];

describe('OCR repairs', () => {
  it('takes the period year when an OCR-read year falls far outside the period', () => {
    const rows = [
      ...top,
      [
        [40, '07/16/28'],
        [100, 'ACH Debit Vendor'],
        [400, '-200.00'],
        [500, '800.00'],
      ] as Array<[number, string]>,
    ];
    const r = parseBankStatement([page(rows, 'ocr')]);
    expect(r.transactions[0].date).toBe('2023-07-16');
    expect(r.warnings.join()).toMatch(/outside the statement period/);
    const t = parseBankStatement([page(rows, 'text')]);
    expect(t.transactions[0].date).toBe('2028-07-16'); // a text layer is kept as printed
  });

  it('reads a date whose slash OCR lost ("717" in the date column)', () => {
    const rows = [
      ...top,
      [
        [40, '717'],
        [100, 'ACH Debit Vendor'],
        [400, '-200.00'],
        [500, '800.00'],
      ] as Array<[number, string]>,
    ];
    expect(parseBankStatement([page(rows, 'ocr')]).transactions[0]).toMatchObject({ date: '2023-07-17', description: 'ACH Debit Vendor' });
  });

  it('fixes a sign OCR dropped, from the running balance (same row or a later printed balance)', () => {
    const rows = [
      ...top,
      [
        [40, '07/05'],
        [100, 'Transfer To Savings'],
        [400, '150.00'],
        [500, ''],
      ],
      [
        [40, '07/09'],
        [100, 'Card Purchase'],
        [400, '-50.00'],
        [500, '800.00'],
      ],
    ] as Array<Array<[number, string]>>;
    const r = parseBankStatement([page(rows, 'ocr')]);
    expect(r.transactions.map((t) => t.amount)).toEqual([-150, -50]);
    expect(r.warnings.join()).toMatch(/sign taken from the running balance/);
    const t = parseBankStatement([page(rows, 'text')]);
    expect(t.transactions.map((x) => x.amount)).toEqual([150, -50]);
  });
});

describe('a currency sign OCR read as a digit', () => {
  const rows = (bal2: string, amt2 = '-150.00') =>
    [
      ...top,
      [
        [40, '07/05'],
        [100, 'Card Purchase'],
        [400, '-50.00'],
        [500, '950.00'],
      ],
      [
        [40, '07/09'],
        [100, 'Transfer To Savings'],
        [400, amt2],
        [500, bal2],
      ],
    ] as Array<Array<[number, string]>>;

  it('is dropped from a balance when the chain then holds ("8800.00" for "$800.00")', () => {
    const r = parseBankStatement([page(rows('8800.00'), 'ocr')]);
    expect(r.transactions.map((t) => t.balance)).toEqual([950, 800]);
    expect(r.misprints).toEqual([]);
    expect(r.warnings.join()).toMatch(/8800.00 .* read as 800.00: its first digit is a misread currency sign/);
  });

  it('is dropped from an amount when the chain then holds ("-5150.00" for "-$150.00")', () => {
    const r = parseBankStatement([page(rows('800.00', '-5150.00'), 'ocr')]);
    expect(r.transactions.map((t) => t.amount)).toEqual([-50, -150]);
  });

  it("is not touched on a text layer (a misprint there is the document's)", () => {
    const r = parseBankStatement([page(rows('8800.00'), 'text')]);
    expect(r.transactions.map((t) => t.balance)).toEqual([950, 8800]);
    expect(r.warnings.join()).not.toMatch(/currency sign/);
  });
});

describe('daily balance pairs under a transaction header', () => {
  it('are not transactions', () => {
    const rows = [
      ...top,
      [
        [40, '07/05'],
        [100, 'Card Purchase'],
        [400, '-200.00'],
        [500, '800.00'],
      ],
      [
        [40, '07/01'],
        [100, '1,000.00'],
        [250, '07/05'],
        [300, '800.00'],
      ],
    ] as Array<Array<[number, string]>>;
    const r = parseBankStatement([page(rows, 'text')]);
    expect(r.transactions).toHaveLength(1);
  });
});
