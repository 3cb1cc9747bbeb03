import {
  PDFDocument,
  rgb,
  StandardFonts,
  TextRenderingMode,
  beginText,
  endText,
  moveText,
  setFontAndSize,
  setTextRenderingMode,
  showText,
} from 'pdf-lib';
import { makePdf, Txt } from './__fixtures__/make-pdf';
import { PLOVER_ROWS, ploverPage } from './__fixtures__/plover';
import { readPageInk } from './ink';
import { loadMupdf } from './mupdf';
import { extractLayout, openDocument, parseStatementFile } from './index';
import { combineRisk } from './tamper-risk';

const H = 792;
const ROWS = PLOVER_ROWS;
const Y0 = 125;
const LH = 12;

const page = (rowsIn: string[][] = ROWS): Txt[] => ploverPage(rowsIn, { y0: Y0, lh: LH });

/** The statement with one cell changed where the generator put it (same font, same place: an edit of the content stream). */
const withCell = (row: number, col: number, text: string) =>
  makePdf([page(ROWS.map((r, i) => (i === row ? r.map((c, k) => (k === col ? text : c)) : r)))]);

/** Top-left y of row i's baseline, as make-pdf draws it. */
const baseOf = (i: number) => Y0 + i * LH;

async function edited(edit: (p: ReturnType<PDFDocument['getPage']>, doc: PDFDocument) => Promise<void>): Promise<Uint8Array> {
  const doc = await PDFDocument.load(await makePdf([page()]), { updateMetadata: false });
  await edit(doc.getPage(0), doc);
  return doc.save();
}

const read = (bytes: Uint8Array) => parseStatementFile(bytes, { ocr: false, receivedAt: new Date(Date.UTC(2025, 5, 1)) });

describe('content tamper findings', () => {
  it('an unedited statement has none and stays low', async () => {
    const r = await read(await makePdf([page()]));
    expect(r.transactions).toHaveLength(8);
    expect(r.reconciliation.reconciled).toBe(true);
    expect(r.tamperFindings).toEqual([]);
    expect(r.pdfRiskLevel).toBe('low');
  });

  it('an image pasted over a deposit is named as an image, not as a box (a searchable scan edited in a PDF editor)', async () => {
    const mupdf = await loadMupdf();
    const pix = new mupdf.Pixmap(mupdf.ColorSpace.DeviceGray, [0, 0, 60, 16], false);
    pix.getPixels().fill(255);
    const png = pix.asPNG();
    pix.destroy?.();
    const bytes = await edited(async (p, doc) => {
      const img = await doc.embedPng(png);
      p.drawImage(img, { x: 420, y: H - baseOf(1) - 3, width: 42, height: 11 });
    });
    const r = await read(bytes);
    const f = r.tamperFindings!.find((x) => x.kind === 'covered_text');
    expect(f).toMatchObject({ severity: 'medium', page: 1, row: 1 });
    expect(f!.message).toBe('page 1: the amount 1,200.00 is hidden under an image drawn after it (row 2: 2025-01-05, Payroll deposit)');
  });

  it('a white box over a deposit with a new amount drawn on it names the row', async () => {
    const bytes = await edited(async (p, doc) => {
      const font = await doc.embedFont(StandardFonts.Helvetica);
      const w = font.widthOfTextAtSize('1,200.00', 9);
      p.drawRectangle({ x: 460 - w - 1, y: H - baseOf(1) - 3, width: w + 2, height: 11, color: rgb(1, 1, 1) });
      p.drawText('4,200.00', { x: 460 - font.widthOfTextAtSize('4,200.00', 9), y: H - baseOf(1), size: 9, font });
    });
    const r = await read(bytes);
    const f = r.tamperFindings!.find((x) => x.kind === 'covered_text');
    expect(f).toMatchObject({ severity: 'high', page: 1, row: 1 });
    expect(f!.message).toMatch(/4,200\.00 is printed over another amount, 1,200\.00/);
    expect(f!.boxes[0][0]).toBeGreaterThan(400);
    expect(r.pdfRiskLevel).toBe('high');
    expect(r.riskReasons.join('\n')).toContain(f!.message);
    // pdf-lib drew it in a content stream of its own, numbered after everything the generator wrote
    const appended = r.tamperFindings!.filter(
      (x) => x.kind === 'draw_order' && x.category === 'structure' && /content stream added/.test(x.message),
    );
    expect(appended).toHaveLength(1);
    expect(appended[0]).toMatchObject({ severity: 'medium', page: 1, row: 1 });
    expect(appended[0].message).toMatch(
      /^page 1: the amount 4,200\.00 is drawn by a content stream added to the page after the file's pages were written \(object \d+; the page's own content is object \d+, and the pages and their own content end at object \d+\): as an editor draws on a finished page \(row 2: 2025-01-05, Payroll deposit\)$/,
    );
  });

  it('a stream added after the file was written that draws no amount of a row (a page number) is not reported', async () => {
    const doc = await PDFDocument.load(await makePdf([page()]), { updateMetadata: false });
    const font = await doc.embedFont(StandardFonts.Helvetica);
    doc.getPage(0).drawText('Page 1 of 1', { x: 500, y: 40, size: 8, font });
    const r = await read(await doc.save());
    expect((r.tamperFindings ?? []).filter((x) => /content stream added/.test(x.message))).toEqual([]);
  });

  it('a page whose content the generator wrote as two streams together is not taken for an appended one', async () => {
    const mupdf = await loadMupdf();
    const doc = mupdf.Document.openDocument(await makePdf([page()]), 'application/pdf') as InstanceType<typeof mupdf.PDFDocument>;
    try {
      const po = doc.findPage(0);
      const own = po.get('Contents');
      const parts = own.isArray() ? Array.from({ length: own.length }, (_, k) => own.get(k)) : [own];
      const text = parts.map((x) => Buffer.from(x.readStream().asUint8Array()).toString('latin1')).join('\n');
      // split between two text objects, half way: the second half draws the rows' amounts
      const cut = text.indexOf('ET', text.length >> 1) + 2;
      const first = doc.addStream(text.slice(0, cut), {});
      const second = doc.addStream(text.slice(cut), {});
      expect(second.asIndirect()).toBe(first.asIndirect() + 1);
      const contents = doc.newArray();
      contents.push(first);
      contents.push(second);
      po.put('Contents', contents);
      const r = await read(doc.saveToBuffer('').asUint8Array().slice());
      expect(r.transactions).toHaveLength(8);
      expect(r.tamperFindings).toEqual([]);
    } finally {
      doc.destroy?.();
    }
  });

  it('an amount set in another font is named, with both fonts', async () => {
    const bytes = await edited(async (p, doc) => {
      const courier = await doc.embedFont(StandardFonts.Courier);
      const font = await doc.embedFont(StandardFonts.Helvetica);
      // an added row whose amount is in another font: nothing covered, only the font gives it away
      p.drawText('03/02/2025', { x: 40, y: H - baseOf(9), size: 9, font });
      p.drawText('Bank fee', { x: 110, y: H - baseOf(9), size: 9, font });
      p.drawText('9.99', { x: 380 - courier.widthOfTextAtSize('9.99', 9), y: H - baseOf(9), size: 9, font: courier });
    });
    const r = await read(bytes);
    const f = r.tamperFindings!.find((x) => x.kind === 'glyph_style');
    expect(f?.message).toMatch(/Courier 9\.0 pt, the other \d+ amounts of its column in Helvetica 9\.0 pt/);
    expect(f?.severity).toBe('high');
  });

  it('an amount nudged off its column edge or its row baseline', async () => {
    const shifted = await edited(async (p, doc) => {
      const font = await doc.embedFont(StandardFonts.Helvetica);
      p.drawText('2,222.22', { x: 560 - font.widthOfTextAtSize('2,222.22', 9) + 1.4, y: H - baseOf(9), size: 9, font });
      p.drawText('03/02/2025', { x: 40, y: H - baseOf(9), size: 9, font });
      p.drawText('Late fee', { x: 110, y: H - baseOf(9), size: 9, font });
      p.drawText('5.00', { x: 380 - font.widthOfTextAtSize('5.00', 9), y: H - baseOf(9) - 0.8, size: 9, font });
    });
    const r = await read(shifted);
    const kinds = r.tamperFindings!.map((f) => f.kind);
    expect(kinds).toContain('alignment');
    expect(kinds).toContain('baseline');
    const base = r.tamperFindings!.find((f) => f.kind === 'baseline')!;
    expect(base.message).toMatch(/5\.00 sits 0\.8 pt (above|below) the baseline/);
  });

  it('invisible text with another amount under a visible one', async () => {
    const bytes = await edited(async (p, doc) => {
      const font = await doc.embedFont(StandardFonts.Helvetica);
      const key = p.node.newFontDictionary(font.name, font.ref);
      const x = 460 - font.widthOfTextAtSize('300.00', 9);
      p.pushOperators(
        beginText(),
        setFontAndSize(key, 9),
        setTextRenderingMode(TextRenderingMode.Invisible),
        moveText(x, H - baseOf(4)),
        showText(font.encodeText('900.00')),
        endText(),
      );
    });
    const r = await read(bytes);
    const f = r.tamperFindings!.find((x) => x.kind === 'hidden_text');
    expect(f).toMatchObject({ severity: 'high', row: 4 });
    expect(f!.message).toMatch(/visible amount 300\.00 has a different amount, 900\.00, in invisible text/);
  });

  it('a changed amount breaks the chain at its row (arithmetic finding with the row boxes)', async () => {
    const bytes = await edited(async (p, doc) => {
      const font = await doc.embedFont(StandardFonts.Helvetica);
      // covered and redrawn (also a covered_text finding); the balances left as printed
      const w = font.widthOfTextAtSize('300.00', 9);
      p.drawRectangle({ x: 460 - w - 1, y: H - baseOf(4) - 3, width: w + 2, height: 11, color: rgb(1, 1, 1) });
      p.drawText('900.00', { x: 460 - font.widthOfTextAtSize('900.00', 9), y: H - baseOf(4), size: 9, font });
    });
    const r = await read(bytes);
    const chain = r.tamperFindings!.find((x) => x.kind === 'balance_chain');
    expect(chain).toMatchObject({ category: 'arithmetic', page: 1, row: 4 });
    expect(chain!.boxes.length).toBeGreaterThan(0);
  });
});

describe('edits the glyphs do not show', () => {
  it("the summary's closing balance changed in place: printed twice with different values, both boxed", async () => {
    const r = await read(await makePdf([ploverPage(ROWS, { y0: Y0, lh: LH, closing: '2,716.15' })]));
    expect(r.closingBalance).toBe(2716.15);
    expect(r.transactions).toHaveLength(8);
    const twice = (r.tamperFindings ?? []).filter((x) => /printed twice/.test(x.message));
    expect(twice).toHaveLength(1);
    expect(twice[0]).toMatchObject({ kind: 'totals', category: 'arithmetic', severity: 'medium', page: 1, row: 7 });
    expect(twice[0].message).toMatch(
      /^the closing balance is printed twice with different values: 2716\.15 on page 1 \(.+\) and 2016\.15 as the running balance of the last row \(row 8, 2025-01-27, page 1\); the rows add up to 2016\.15$/,
    );
    // the summary's line (top of the page) and the last row
    expect(twice[0].boxes).toHaveLength(1 + r.transactions[7].source!.boxes.length);
    expect(twice[0].boxes[0][1]).toBeLessThan(100);
    // with the summary as printed, nothing
    const plain = await read(await makePdf([page()]));
    expect((plain.tamperFindings ?? []).filter((x) => /printed twice/.test(x.message))).toEqual([]);
  });

  it('a digit changed in place (same font, same place): the row that one digit explains is named', async () => {
    // Helvetica's digits are all one width: the page looks as the generator made it
    const r = await read(await withCell(4, 3, '500.00'));
    const named = r.tamperFindings!.filter((x) => x.kind === 'balance_chain' && /one digit changed/.test(x.message));
    expect(named).toHaveLength(1);
    expect(named[0]).toMatchObject({ page: 1, row: 4, category: 'arithmetic' });
    expect(named[0].message).toMatch(/prints 500\.00, where 300\.00 would fit/);
    expect(r.pdfRiskLevel).not.toBe('low');
  });

  it('without running balances, a printed section total narrows a changed digit to its rows', async () => {
    // no balance column; a "Total deposits" line under the rows; the 300.00 deposit printed as 800.00
    const noBal = (r: string[][]) => r.map((row) => row.slice(0, 4));
    const statement = (r: string[][]) =>
      makePdf([
        [
          ...page(noBal(r)),
          { x: 40, y: baseOf(8) + 4, text: 'Total deposits' },
          { x: 460, y: baseOf(8) + 4, text: '2,140.00', right: true },
        ],
      ]);
    const clean = await read(await statement(ROWS));
    expect(clean.tamperFindings).toEqual([]);
    const r = await read(await statement(ROWS.map((row, i) => (i === 4 ? row.map((c, k) => (k === 3 ? '800.00' : c)) : row))));
    expect(r.transactions[4].amount).toBe(800);
    const named = r.tamperFindings!.filter((x) => x.kind === 'totals' && x.row !== null);
    expect(named.map((x) => x.row)).toContain(4);
    expect(named.length).toBeLessThanOrEqual(2);
    expect(named.find((x) => x.row === 4)!.message).toMatch(/printed total of the section .*row 5 prints 800\.00, where 300\.00 would fit/);
  });

  it('a row dated outside the printed period is named', async () => {
    const r = await read(await withCell(6, 0, '22/03/2025'));
    const f = r.tamperFindings!.find((x) => x.kind === 'period_dates');
    expect(f).toMatchObject({ page: 1, row: 6 });
    expect(f!.message).toMatch(/row 7 on 2025-03-22/);
    expect(r.pdfRiskLevel).not.toBe('low');
    expect(r.riskReasons).toContain(f!.message);
  });

  it('a digit whose spacing to its neighbours differs from every other time the amounts print that pair', async () => {
    const font = await (await PDFDocument.create()).embedFont(StandardFonts.Helvetica);
    // row 3's withdrawal drawn in pieces where the generator put them, its third digit 0.7 pt to the
    // right (the kerning written for the digit that was there before); its right edge stays
    const text = ROWS[2][2];
    const cells: Txt[] = [
      { x: 380 - font.widthOfTextAtSize(text, 9), y: baseOf(2), text: text.slice(0, 2) },
      { x: 380 - font.widthOfTextAtSize(text.slice(2), 9) + 0.7, y: baseOf(2), text: text.slice(2, 3) },
      { x: 380 - font.widthOfTextAtSize(text.slice(3), 9), y: baseOf(2), text: text.slice(3) },
    ];
    const r = await read(
      await makePdf([[...page(ROWS.map((row, i) => (i === 2 ? row.map((c, k) => (k === 2 ? '' : c)) : row))), ...cells]]),
    );
    expect(r.transactions[2].amount).toBe(-900);
    const f = r.tamperFindings!.find((x) => x.kind === 'alignment');
    expect(f).toMatchObject({ page: 1, row: 2, severity: 'medium' });
    expect(f!.message).toMatch(/in the amount 900\.00, "\d\d" is spaced 0\.7 pt (wider|narrower)/);
  });

  it('an unedited statement gives neither', async () => {
    const r = await read(await makePdf([page()]));
    expect(r.tamperFindings!.filter((x) => x.kind === 'period_dates' || x.kind === 'balance_chain')).toEqual([]);
  });
});

describe('glyphs read with the text', () => {
  it('are the glyphs a read of their own gives (one interpretation of the page serves both), within the document limit', async () => {
    const bytes = await edited(async (p, doc) => {
      const font = await doc.embedFont(StandardFonts.Courier);
      p.drawRectangle({ x: 400, y: H - baseOf(1) - 3, width: 62, height: 11, color: rgb(1, 1, 1) });
      p.drawText('4,200.00', { x: 402, y: H - baseOf(1), size: 9, font });
    });
    const opened = await openDocument(bytes);
    try {
      const layout = await extractLayout(opened, { ocr: false, inkGlyphs: 400_000 });
      const early = layout.inks.get(0)!;
      const own = await readPageInk(opened, 0, early.cap);
      expect(early.glyphs.length).toBeGreaterThan(100);
      expect(early.covers.length).toBeGreaterThan(0);
      expect(early).toEqual(own);
      // a document limit smaller than the page stops the read early, as a read of its own does
      const small = await extractLayout(opened, { ocr: false, inkGlyphs: 40 });
      const cut = small.inks.get(0)!;
      expect(cut.truncated).toBe(true);
      expect(cut).toEqual(await readPageInk(opened, 0, 40));
      expect((await extractLayout(opened, { ocr: false })).inks.size).toBe(0);
    } finally {
      opened.close();
    }
  });
});

describe('combined risk', () => {
  const meta = { level: 'low' as const, reasons: [], score: 0 };
  const f = (kind: 'alignment' | 'baseline', severity: 'medium' | 'high') => ({
    kind,
    category: 'content' as const,
    severity,
    page: 1,
    boxes: [],
    row: 0,
    message: `${kind} finding`,
  });

  it('takes the strongest finding and names every one', () => {
    expect(combineRisk(meta, [])).toEqual({ level: 'low', reasons: [] });
    expect(combineRisk(meta, [f('alignment', 'medium')])).toEqual({ level: 'medium', reasons: ['alignment finding'] });
    expect(combineRisk(meta, [f('alignment', 'high')]).level).toBe('high');
  });

  it('two kinds of evidence, or content with metadata at medium, make it high', () => {
    expect(combineRisk(meta, [f('alignment', 'medium'), f('baseline', 'medium')]).level).toBe('high');
    expect(
      combineRisk({ level: 'medium', reasons: ['modification date is after the creation date'], score: 1 }, [f('alignment', 'medium')]),
    ).toEqual({
      level: 'high',
      reasons: ['modification date is after the creation date', 'alignment finding'],
    });
  });
});
