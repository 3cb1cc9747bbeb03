import { makePdf } from './__fixtures__/make-pdf';
import { assessTamperRisk, parsePdfDate } from './tamper';
import { openDocument } from './open';
import { DocumentInfo } from './open';
import { reconcile } from './reconcile';

const info = (o: Partial<DocumentInfo> = {}): DocumentInfo => ({
  mimeType: 'application/pdf',
  pageCount: 1,
  isPdf: true,
  producer: 'Bank Core Statement Server',
  creator: null,
  creationDate: 'D:20250102000000Z',
  modDate: 'D:20250102000000Z',
  versions: 1,
  repaired: false,
  byteLength: 1000,
  ...o,
});
const base = { pages: [], amountCells: [], reconciliation: null };

describe('tamper signals', () => {
  it('a clean file is low risk', () => {
    expect(assessTamperRisk({ ...base, info: info() })).toMatchObject({ level: 'low', reasons: [] });
  });

  it('producer of a known editor', () => {
    const r = assessTamperRisk({ ...base, info: info({ producer: 'iLovePDF' }) });
    expect(r.level).toBe('medium');
    expect(r.reasons[0]).toMatch(/editing tool/);
  });

  it('modification after creation', () => {
    expect(parsePdfDate("D:20250105120000+02'00'")).toBe(Date.UTC(2025, 0, 5, 10));
    expect(assessTamperRisk({ ...base, info: info({ modDate: 'D:20250301000000Z' }) }).reasons).toEqual([
      'modification date is after the creation date',
    ]);
  });

  it('incremental updates, read from a real file', async () => {
    const mupdf = await import('mupdf');
    const doc = new mupdf.PDFDocument(await makePdf([[{ x: 40, y: 40, text: 'Balance 100.00' }]]));
    doc.setMetaData('info:Title', 'edited');
    const edited = doc.saveToBuffer('incremental').asUint8Array();
    const opened = await openDocument(edited);
    try {
      expect(opened.info.versions).toBeGreaterThan(1);
      expect(assessTamperRisk({ ...base, info: opened.info }).reasons.join()).toMatch(/incremental update/);
    } finally {
      opened.close();
    }
  });

  it('amount cells in a different font', () => {
    const cells = Array.from({ length: 10 }, (_, i) => ({
      page: 0,
      role: 'amount' as const,
      font: i === 4 ? 'Courier' : 'Helvetica',
      size: 9,
      row: i,
    }));
    const r = assessTamperRisk({ ...base, info: info(), amountCells: cells });
    expect(r.reasons.join()).toMatch(/inconsistent fonts/);
  });

  it('text drawn over an image', () => {
    const page = {
      index: 0,
      width: 612,
      height: 792,
      method: 'text' as const,
      confidence: 1,
      imageRects: [[100, 100, 200, 120]] as Array<[number, number, number, number]>,
      lines: [
        {
          y0: 105,
          y1: 115,
          base: 114,
          text: '9,999.00',
          words: [{ text: '9,999.00', x0: 150, x1: 190, y0: 105, y1: 115, base: 114, size: 9, font: 'Helvetica' }],
        },
      ],
    };
    expect(assessTamperRisk({ ...base, info: info(), pages: [page] }).reasons.join()).toMatch(/over images/);
  });

  it('failed reconciliation with an editor is high risk', () => {
    const rec = reconcile(100, 500, [{ date: '2025-01-01', description: 'x', amount: 10, balance: null, transactionType: 'credit' }]);
    const r = assessTamperRisk({ ...base, info: info({ producer: 'Sejda PDF Editor' }), reconciliation: rec });
    expect(r.level).toBe('high');
    expect(r.reasons.join()).toMatch(/do not reconcile/);
  });
});
