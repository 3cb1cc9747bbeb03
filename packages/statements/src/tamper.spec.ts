import { makePdf } from './__fixtures__/make-pdf';
import { assessTamperRisk, pagesSavedLater, parsePdfDate } from './tamper';
import { pageModDates } from './tamper-structure';
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

  it("a page an editor saved again: its own modification date, later than the file's and the other pages'", async () => {
    // pdf-lib writes no /LastModified; one page stamped as an editor (Acrobat) stamps the pages it changes
    const { PDFDocument, PDFString } = await import('pdf-lib');
    const pdf = await PDFDocument.load(
      await makePdf([
        [{ x: 40, y: 40, text: 'Page one 100.00' }],
        [{ x: 40, y: 40, text: 'Page two 200.00' }],
        [{ x: 40, y: 40, text: 'Page three' }],
      ]),
    );
    pdf.setCreationDate(new Date(Date.UTC(2025, 0, 10, 12)));
    pdf.getPage(1).node.set(pdf.context.obj('LastModified'), PDFString.of("D:20250401175402+00'00'"));
    const opened = await openDocument(await pdf.save());
    try {
      const dates = pageModDates(opened);
      expect(dates).toEqual([null, "D:20250401175402+00'00'", null]);
      const r = assessTamperRisk({ ...base, info: opened.info, pageModDates: dates });
      expect(r.reasons).toContain(
        'page 2 was saved again by an editor on 2025-04-01, after the file was made (2025-01-10), and the other pages were not (their own modification dates)',
      );
      expect(r.level).toBe('medium');
    } finally {
      opened.close();
    }
  });

  it('pages stamped alike, or an editor that stamped most pages, name no page', () => {
    const made = "D:20240718184929+02'00'";
    // every page saved in one session (a bank's own file, or an editor that saved all of them)
    expect(pagesSavedLater([made, made, made], made)).toBeNull();
    // no creation date: the pages' own dates are compared with each other
    expect(pagesSavedLater(['D:20180928173057', 'D:20181002131135', 'D:20180928173137'], null)).toMatch(
      /^page 2 was saved again by an editor on 2018-10-02/,
    );
    // the late pages are the more: the odd one is the page without, which is no evidence
    expect(pagesSavedLater(['D:20250401', 'D:20250401', null], 'D:20250110')).toBeNull();
    // within a day of the others: one session
    expect(pagesSavedLater(['D:20250110120000Z', 'D:20250110180000Z', null], 'D:20250110100000Z')).toBeNull();
    // a single page: nothing to compare with
    expect(pagesSavedLater(['D:20250401'], 'D:20250110')).toBeNull();
  });
});
