import { makePdf, rows } from './__fixtures__/make-pdf';
import { grayOf } from './extract';
import { cleanOcrWord } from './ocr';
import { splitRow } from './page-split';
import { parseStatementFile, shutdownOcr } from './index';

afterAll(() => shutdownOcr());

describe('OCR of scanned pages (local tesseract data, no download)', () => {
  it('reads a statement uploaded as a PNG image', async () => {
    const cols = [40, 110, -470, -560];
    const pdf = await makePdf(
      [
        [
          { x: 40, y: 40, text: 'Maple Leaf Bank', size: 16, bold: true },
          { x: 40, y: 62, text: 'Statement Period: 09/01/2025 - 09/30/2025', size: 11 },
          { x: 40, y: 78, text: 'Beginning Balance 1,000.00', size: 11 },
          { x: 40, y: 94, text: 'Ending Balance 1,450.00', size: 11 },
          ...rows([['Date', 'Description', 'Amount', 'Balance']], cols, 125, 16, 11),
          ...rows(
            [
              ['09/03', 'Deposit Branch 12', '700.00', '1,700.00'],
              ['09/18', 'Card Purchase Office Depot', '-250.00', '1,450.00'],
            ],
            cols,
            143,
            16,
            11,
          ),
        ],
      ],
      { size: [612, 260] },
    );
    const mupdf = await import('mupdf');
    const png = mupdf.Document.openDocument(pdf, 'application/pdf')
      .loadPage(0)
      .toPixmap(mupdf.Matrix.scale(2, 2), mupdf.ColorSpace.DeviceGray, false, true)
      .asPNG();
    const steps: string[] = [];
    const r = await parseStatementFile(png, { onStep: (s) => steps.push(s) });
    expect(r.mimeType).toBe('image/png');
    expect(r.extractionMethod).toBe('ocr');
    expect(r.rawTextPages).toBe(0);
    expect(r.extractionConfidence).toBeGreaterThan(0.6);
    expect(steps).toContain('running_ocr');
    expect(r.transactions.map((t) => [t.date, t.amount, t.balance])).toEqual([
      ['2025-09-03', 700, 1700],
      ['2025-09-18', -250, 1450],
    ]);
    expect(r.reconciliation.reconciled).toBe(true);
  });

  it('reads a full scanned page cut in two for the two workers, rows of both halves in place', async () => {
    const cols = [40, 110, -470, -560];
    const data: string[][] = [];
    let balance = 5000;
    for (let i = 0; i < 24; i++) {
      const amount = i % 3 === 0 ? 1200 + i * 10 : -(85 + i * 7);
      balance += amount;
      const money = (v: number) => v.toLocaleString('en-US', { minimumFractionDigits: 2 });
      data.push([
        `10/${String(i + 1).padStart(2, '0')}`,
        `${amount > 0 ? 'Deposit' : 'Card Purchase'} Ref ${1000 + i}`,
        money(amount),
        money(balance),
      ]);
    }
    const pdf = await makePdf([
      [
        { x: 40, y: 40, text: 'Harbour Savings Bank', size: 16, bold: true },
        { x: 40, y: 62, text: 'Statement Period: 10/01/2025 - 10/31/2025', size: 11 },
        { x: 40, y: 78, text: 'Beginning Balance 5,000.00', size: 11 },
        { x: 40, y: 94, text: `Ending Balance ${data[data.length - 1][3]}`, size: 11 },
        ...rows([['Date', 'Description', 'Amount', 'Balance']], cols, 130, 26, 11),
        ...rows(data, cols, 156, 26, 11),
      ],
    ]);
    const mupdf = await import('mupdf');
    const pix = mupdf.Document.openDocument(pdf, 'application/pdf')
      .loadPage(0)
      .toPixmap(mupdf.Matrix.scale(200 / 72, 200 / 72), mupdf.ColorSpace.DeviceGray, false, true);
    // the page has a blank band between two rows that halves its ink: it is read as two images
    const raster = grayOf(pix);
    const cut = splitRow(raster);
    expect(cut).toBeGreaterThan(raster.height * 0.3);
    expect(cut).toBeLessThan(raster.height * 0.8);
    const r = await parseStatementFile(pix.asPNG());
    expect(r.extractionMethod).toBe('ocr');
    expect(r.transactions.map((t) => [t.date, t.amount, t.balance])).toEqual(
      data.map((d) => [`2025-${d[0].replace('/', '-')}`, Number(d[2].replace(/,/g, '')), Number(d[3].replace(/,/g, ''))]),
    );
    expect(r.reconciliation.reconciled).toBe(true);
  });

  it('drops scanner specks read as punctuation', () => {
    expect(cleanOcrWord('’')).toBe('');
    expect(cleanOcrWord('~~')).toBe('');
    expect(cleanOcrWord('‘Total')).toBe('Total');
    expect(cleanOcrWord('&')).toBe('&');
    expect(cleanOcrWord('(250.00)')).toBe('(250.00)');
  });

  it('reads a decimal point OCR took for a "1" after thousands groups, and nothing else so', () => {
    const read: Record<string, string> = { '2,760115': '2,760.15', '$12,345,678115-': '$12,345,678.15-' };
    // valid numbers, and digits that are not a misread point, stay as read
    const kept = ['2,760,115', '2,760.15', '760115', '2,760415'];
    expect(Object.keys(read).map(cleanOcrWord)).toEqual(Object.values(read));
    expect(kept.map(cleanOcrWord)).toEqual(kept);
  });
});
