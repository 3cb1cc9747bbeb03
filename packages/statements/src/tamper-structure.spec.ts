import { makePdf } from './__fixtures__/make-pdf';
import { openDocument } from './index';
import type { Glyph } from './ink';
import type { InkToken } from './tamper-content';
import { fontFindings, PageFont, pageFonts } from './tamper-structure';
import type { StatementTransaction } from './types';

const glyph = (font: string): Glyph =>
  ({
    ch: '1',
    x0: 0,
    x1: 5,
    base: 10,
    y0: 3,
    y1: 12,
    size: 9,
    font,
    bold: false,
    color: '#000000',
    mode: 'fill',
    seq: 1,
    clipped: false,
    offPage: false,
    coveredBy: null,
  }) as Glyph;
const token = (page: number, row: number, text: string, font: string): InkToken => ({
  text,
  page,
  glyphs: [glyph(font)],
  box: [500, 100 + 12 * row, 540, 110 + 12 * row],
  base: 108 + 12 * row,
  size: 9,
  row,
  seq: row,
});
const txs: StatementTransaction[] = Array.from({ length: 6 }, (_, i) => ({
  date: `2025-01-0${i + 1}`,
  description: 'Payment',
  amount: 10 + i,
  balance: null,
  transactionType: 'credit',
}));
const bank: PageFont[] = [
  { key: 'F1', name: 'ArialMT', embedded: true },
  { key: 'F2', name: 'Arial-BoldMT', embedded: true },
];
const money = [
  token(1, 0, '10.00', 'ArialMT'),
  token(1, 1, '11.00', 'ArialMT'),
  token(2, 2, '12.00', 'ArialMT'),
  token(2, 3, '13.00', 'ArialMT'),
];

describe('font structure', () => {
  it('a document whose pages build their fonts alike gives nothing', () => {
    expect(
      fontFindings(
        new Map([
          [1, bank],
          [2, bank],
        ]),
        money,
        txs,
      ),
    ).toEqual([]);
  });

  it('a font one page adds, not embedded and under a name of its own, setting a row amount, is named', () => {
    const edited = [...money.slice(0, 3), token(2, 3, '93.00', 'Helvetica')];
    const fonts = new Map([
      [1, bank],
      [2, [...bank, { key: 'Helvetica-7021', name: 'Helvetica', embedded: false }]],
    ]);
    const f = fontFindings(fonts, edited, txs);
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ kind: 'font_pages', category: 'structure', page: 2, row: 3, boxes: [[500, 136, 540, 146]] });
    expect(f[0].message).toMatch(/93\.00 is set in Helvetica, a font only this page lists, and the only one of the document not embedded/);
  });

  it('a document of one page, or one whose fonts are all built alike, is not judged by page', () => {
    const std = (name: string, n: number): PageFont => ({ key: `${name}-${n}`, name, embedded: false });
    const one = new Map([[1, [std('Helvetica', 1095114838), std('Helvetica', 1134607662), std('Helvetica-Bold', 1275322832)]]]);
    expect(fontFindings(one, [token(1, 0, '10.00', 'Helvetica')], txs)).toEqual([]);
    const two = new Map([
      [1, [std('Helvetica-Bold', 12)]],
      [2, [std('Helvetica', 34), std('Helvetica-Bold', 56)]],
    ]);
    expect(fontFindings(two, [token(2, 2, '12.00', 'Helvetica')], txs)).toEqual([]);
  });

  it('a font embedded on one page and not on the others, setting amounts there', () => {
    const plain = bank.map((f) => ({ ...f, embedded: false }));
    const f = fontFindings(
      new Map([
        [1, plain],
        [2, plain],
        [3, bank],
      ]),
      [...money, token(3, 4, '14.00', 'ArialMT')],
      txs,
    );
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ page: 3, row: 4 });
    expect(f[0].message).toMatch(/ArialMT is embedded here but not embedded on pages 1, 2/);
    // a page of boilerplate (no amount in the font) is not named
    expect(
      fontFindings(
        new Map([
          [1, plain],
          [2, plain],
          [3, bank],
        ]),
        money,
        txs,
      ),
    ).toEqual([]);
  });

  it('reads a page font resources (standard fonts are not embedded)', async () => {
    const opened = await openDocument(await makePdf([[{ x: 40, y: 40, text: 'Balance 1.00' }]]));
    try {
      const fonts = pageFonts(opened, 0)!;
      expect(fonts.map((f) => f.name)).toContain('Helvetica');
      expect(fonts.every((f) => !f.embedded)).toBe(true);
    } finally {
      opened.close();
    }
  });
});
