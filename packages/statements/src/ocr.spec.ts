import { makePdf, rows } from './__fixtures__/make-pdf';
import { cleanOcrWord } from './ocr';
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

  it('drops scanner specks read as punctuation', () => {
    expect(cleanOcrWord('’')).toBe('');
    expect(cleanOcrWord('~~')).toBe('');
    expect(cleanOcrWord('‘Total')).toBe('Total');
    expect(cleanOcrWord('&')).toBe('&');
    expect(cleanOcrWord('(250.00)')).toBe('(250.00)');
  });
});
