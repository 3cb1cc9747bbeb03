import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makePdf, Txt } from './__fixtures__/make-pdf';
import { PLOVER_ROWS, ploverPage } from './__fixtures__/plover';
import { woffToSfnt } from './font-files';
import { readPageInk } from './ink';
import { loadMupdf } from './mupdf';
import { openDocument, parseStatementFile } from './index';

// Every amount, date and balance of this statement is written without the digit 7, so the font
// subset the "bank" embeds has no glyph for it.
// (the cafe 18.40, the last deposit dated the 28th)
const ROWS = PLOVER_ROWS.map((r, i) =>
  i === 6 ? [r[0], r[1], '18.40', '', '1,366.15'] : i === 7 ? ['28/01/2025', r[1], '', '640.00', '2,006.15'] : r,
);

// amounts are left-aligned: the subset font's widths are not the ones make-pdf right-aligned them with
const page = (): Txt[] => ploverPage(ROWS, { x: [40, 110, 330, 400, 480], closing: '2,006.15' });

const PLEX = join(__dirname, '../../../apps/api/assets/fonts/IBMPlexSans-Regular.woff');

/** The statement with its fonts replaced by one embedded TrueType font, subset to the glyphs it prints (as a bank's generator writes it). */
async function bankPdf(): Promise<Uint8Array> {
  const mupdf = await loadMupdf();
  const doc = mupdf.Document.openDocument(await makePdf([page()]), 'application/pdf') as InstanceType<typeof mupdf.PDFDocument>;
  try {
    const font = doc.addSimpleFont(new mupdf.Font('IBMPlexSans', woffToSfnt(readFileSync(PLEX))), 'Latin');
    const fonts = doc.loadPage(0).getObject().get('Resources').get('Font');
    const names: string[] = [];
    fonts.forEach((_v: unknown, k: string | number) => names.push(String(k)));
    for (const k of names) fonts.put(k, font);
    doc.subsetFonts();
    return doc.saveToBuffer('garbage=1').asUint8Array().slice();
  } finally {
    doc.destroy?.();
  }
}

/** `from` replaced by `to` inside the page's content stream (pdf-lib writes text as hex strings of the codes). */
async function editStream(pdf: Uint8Array, from: string, to: string): Promise<Uint8Array> {
  const hex = (s: string) => Buffer.from(s, 'latin1').toString('hex').toUpperCase();
  const mupdf = await loadMupdf();
  const doc = mupdf.Document.openDocument(pdf, 'application/pdf') as InstanceType<typeof mupdf.PDFDocument>;
  try {
    const contents = doc.loadPage(0).getObject().get('Contents');
    const stream = contents.isArray() ? contents.get(0) : contents;
    const text = Buffer.from(stream.readStream().asUint8Array()).toString('latin1');
    expect(text.split(`<${hex(from)}>`)).toHaveLength(2);
    stream.writeStream(Buffer.from(text.replace(`<${hex(from)}>`, `<${hex(to)}>`), 'latin1'));
    return doc.saveToBuffer('garbage=1').asUint8Array().slice();
  } finally {
    doc.destroy?.();
  }
}

const read = (bytes: Uint8Array) => parseStatementFile(bytes, { ocr: false, receivedAt: new Date(Date.UTC(2025, 5, 1)) });

describe('a digit its subset font has no glyph for', () => {
  let bank: Uint8Array;
  beforeAll(async () => {
    bank = await bankPdf();
  });

  it('the bank-made statement has every digit it prints in its font subset, and no finding', async () => {
    const opened = await openDocument(bank);
    try {
      const ink = await readPageInk(opened, 0);
      expect(ink.glyphs.filter((g) => g.ch >= '0' && g.ch <= '9').length).toBeGreaterThan(100);
      expect(ink.glyphs.filter((g) => g.notdef)).toEqual([]);
      expect(new Set(ink.glyphs.map((g) => g.font))).toEqual(new Set(['IBMPlexSans']));
    } finally {
      opened.close();
    }
    const r = await read(bank);
    expect(r.transactions).toHaveLength(8);
    expect(r.tamperFindings).toEqual([]);
  });

  it('a deposit raised to 7,200.00 in the content stream, in the same font, is drawn with .notdef and named high', async () => {
    const r = await read(await editStream(bank, '1,200.00', '7,200.00'));
    const f = (r.tamperFindings ?? []).filter((x) => x.kind === 'glyph_style');
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ category: 'content', severity: 'high', page: 1, row: 1 });
    expect(f[0].message).toBe(
      "page 1: the amount 7,200.00 is drawn with a digit its font (IBMPlexSans) has no glyph for ('7', shown blank or as a box): a font subset holds the digits the bank printed, so the digit was written in after the file was made (row 2: 2025-01-05, Payroll deposit)",
    );
    expect(f[0].boxes[0][0]).toBeGreaterThan(390);
    expect(r.pdfRiskLevel).toBe('high');
  });

  it('the same edit to a digit the subset has leaves only the arithmetic to tell', async () => {
    const r = await read(await editStream(bank, '1,200.00', '4,200.00'));
    expect((r.tamperFindings ?? []).filter((x) => x.kind === 'glyph_style')).toEqual([]);
    expect((r.tamperFindings ?? []).map((x) => x.kind)).toContain('balance_chain');
  });
});
