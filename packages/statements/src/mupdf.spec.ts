/**
 * The fast paths into mupdf's wasm module (mupdf.ts) read what the class API reads: the structured
 * text without its JSON, the glyphs of a text object without Text.walk, a page's font dictionary
 * without an object wrapper per entry. Each is compared with the slow path on the same pages.
 */
import { degrees, PDFDocument, rgb, StandardFonts } from 'pdf-lib';
import { stextContent } from './extract';
import { GlyphBuffer, heapGlyphs, loadMupdf, mupdfTextLayout, mupdfWasm, walkedGlyphs } from './mupdf';
import { openDocument } from './open';
import { pageFonts } from './tamper-structure';

/** Two pages in four fonts: rows of amounts, rotated and coloured text, accents, a 1x1 image. */
async function varied(): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const fonts = await Promise.all(
    [StandardFonts.Helvetica, StandardFonts.HelveticaBold, StandardFonts.Courier, StandardFonts.TimesRoman].map((f) => pdf.embedFont(f)),
  );
  const png = await pdf.embedPng(
    Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64'),
  );
  for (let p = 0; p < 2; p++) {
    const page = pdf.addPage([612, 792]);
    page.drawText('Café Crème — Statement of Account €', { x: 40, y: 750, size: 14.5, font: fonts[1] });
    for (let r = 0; r < 40; r++) {
      const y = 700 - r * 15;
      const f = fonts[(r + p) % fonts.length];
      page.drawText(`0${(r % 9) + 1}/1${r % 3}`, { x: 40, y, size: 9, font: f });
      page.drawText(`PAYMENT "REF" \\ ${1000 + r * 37} ÀÉÎ`, { x: 100, y, size: 8.25, font: f, color: rgb(0.2, 0.3, 0.6) });
      page.drawText(`${(r * 123.45).toFixed(2)}`, { x: 400, y, size: 9.75, font: f });
    }
    page.drawText('COPY 12345', { x: 200, y: 300, size: 40, font: fonts[0], rotate: degrees(35), opacity: 0.2 });
    page.drawImage(png, { x: 500, y: 40, width: 60, height: 30 });
  }
  return pdf.save();
}

beforeAll(async () => {
  await loadMupdf();
});

describe('mupdf fast paths', () => {
  it('has the wasm accessors and knows the text layout of the pinned mupdf', () => {
    expect(mupdfWasm()).not.toBeNull();
    expect(mupdfTextLayout()).not.toBeNull();
  });

  it('reads the structured text in place as its JSON output gives it', async () => {
    const opened = await openDocument(await varied());
    try {
      for (let i = 0; i < opened.info.pageCount; i++) {
        const page = opened.doc.loadPage(i);
        const st = page.toStructuredText('preserve-whitespace,preserve-spans,preserve-images');
        try {
          const fast = stextContent(st, 100_000, i);
          expect(fast.lines.length).toBeGreaterThan(100);
          expect(fast.images).toHaveLength(1);
          expect(fast.lines.some((l) => l.text.includes('Café Crème'))).toBe(true);
          expect(fast).toEqual(stextContent(st, 100_000, i, true));
          // the character budget holds on both paths
          expect(() => stextContent(st, 50, i)).toThrow(/more than 50 characters/);
        } finally {
          st.destroy();
          page.destroy();
        }
      }
    } finally {
      opened.close();
    }
  });

  it('reads the glyphs of every text object from the heap as Text.walk reports them', async () => {
    const mupdf = await loadMupdf();
    const w = mupdfWasm()!;
    const layout = mupdfTextLayout()!;
    const opened = await openDocument(await varied());
    const heap = new GlyphBuffer();
    const walked = new GlyphBuffer();
    let objects = 0;
    let glyphs = 0;
    const mismatches: number[] = [];
    const compare = (text: any) => {
      heapGlyphs(w, layout, text.pointer, heap, 100_000);
      walkedGlyphs(text, walked, 100_000);
      objects++;
      glyphs += walked.n;
      const same =
        heap.n === walked.n &&
        heap.font
          .subarray(0, heap.n)
          .every((v, i) => v === walked.font[i] && heap.gid[i] === walked.gid[i] && heap.ucs[i] === walked.ucs[i]) &&
        heap.trm.subarray(0, heap.n * 6).every((v, i) => v === walked.trm[i]);
      if (!same) mismatches.push(objects);
      text.destroy();
    };
    try {
      for (let i = 0; i < opened.info.pageCount; i++) {
        const page = opened.doc.loadPage(i);
        const dev = new mupdf.Device({
          fillText: compare,
          strokeText: compare,
          clipText: compare,
          ignoreText: compare,
          clipStrokeText: compare,
        } as any);
        page.run(dev, mupdf.Matrix.identity);
        dev.close();
        dev.destroy();
        page.destroy();
      }
    } finally {
      opened.close();
    }
    expect(objects).toBeGreaterThan(200);
    expect(glyphs).toBeGreaterThan(2500);
    expect(mismatches).toEqual([]);
  });

  it('reads at most the glyphs it is given room for, on both paths, and says when it stopped short', async () => {
    const mupdf = await loadMupdf();
    const font = new mupdf.Font('Helvetica');
    const text = new mupdf.Text();
    try {
      for (let i = 0; i < 7; i++) text.showGlyph(font, [9, 0, 0, 9, 10 + 6 * i, 20], 20 + i, 48 + i);
      const heap = new GlyphBuffer();
      const walked = new GlyphBuffer();
      expect(heapGlyphs(mupdfWasm()!, mupdfTextLayout()!, text.pointer, heap, 5)).toBe(true);
      expect(walkedGlyphs(text, walked, 5)).toBe(true);
      expect([heap.n, walked.n]).toEqual([5, 5]);
      expect(Array.from(heap.ucs.subarray(0, 5))).toEqual([48, 49, 50, 51, 52]);
      expect(Array.from(walked.trm.subarray(0, 30))).toEqual(Array.from(heap.trm.subarray(0, 30)));
      expect(heapGlyphs(mupdfWasm()!, mupdfTextLayout()!, text.pointer, heap, 7)).toBe(false);
      expect(walkedGlyphs(text, walked, 7)).toBe(false);
      expect([heap.n, walked.n]).toEqual([7, 7]);
    } finally {
      text.destroy();
      font.destroy();
    }
  });

  it('reads a page font dictionary as the object wrappers do', async () => {
    const bytes = await varied();
    const a = await openDocument(bytes);
    const b = await openDocument(bytes);
    try {
      for (let i = 0; i < a.info.pageCount; i++) {
        const fast = pageFonts(a, i);
        expect(fast?.length).toBeGreaterThanOrEqual(4);
        expect(fast).toEqual(pageFonts(b, i, true));
      }
    } finally {
      a.close();
      b.close();
    }
  });
});
