import { inkOf, PAGE_GLYPHS, PageInk } from './ink';
import { loadedMupdf, loadMupdf, mupdfWasm } from './mupdf';
import { guardPageContent, OpenedDocument } from './open';
import { DEFAULT_LIMITS, Limits, Line, PageLayout, StatementError, Word } from './types';

export interface StextLine {
  bbox: { x: number; y: number; w: number; h: number };
  font: { name: string; size: number };
  x: number;
  y: number;
  text: string;
}

type Rect = [number, number, number, number];

/**
 * The text lines and image boxes of a structured-text page, as mupdf's JSON output gives them:
 * coordinates truncated to whole points, the font and origin of each line's first character.
 * With the wasm accessors (mupdf.ts) the page is walked in place, without printing and parsing
 * the JSON (`viaJson` prints and parses it, as without them); `budget` bounds the characters read
 * (too_large past it).
 */
export function stextContent(st: any, budget: number, index: number, viaJson = false): { lines: StextLine[]; images: Rect[] } {
  const w = viaJson ? null : mupdfWasm();
  const lines: StextLine[] = [];
  const images: Rect[] = [];
  let count = 0;
  const tooMuch = () => new StatementError('too_large', `page ${index + 1} has more than ${budget} characters`);
  if (!w) {
    const json = st.asJSON() as string;
    if (json.length > budget * 8) throw new StatementError('too_large', `page ${index + 1} has too much text`);
    const data = JSON.parse(json) as { blocks?: Array<{ type: string; bbox: StextLine['bbox']; lines?: StextLine[] }> };
    for (const b of data.blocks ?? []) {
      if (b.type === 'image') images.push([b.bbox.x, b.bbox.y, b.bbox.x + b.bbox.w, b.bbox.y + b.bbox.h]);
      else
        for (const l of b.lines ?? []) {
          if ((count += l.text.length) > budget) throw tooMuch();
          const { x, y, w: bw, h } = l.bbox;
          lines.push({ bbox: { x, y, w: bw, h }, font: { name: l.font.name, size: l.font.size }, x: l.x, y: l.y, text: l.text });
        }
    }
    return { lines, images };
  }
  const fonts = new Map<number, string>();
  // mupdf prints (int)(v): truncation of a float32, and widths subtracted in float32
  const box = (ptr: number): StextLine['bbox'] => {
    const f = w.HEAPF32;
    const a = ptr >> 2;
    const x0 = f[a];
    const y0 = f[a + 1];
    return { x: Math.trunc(x0), y: Math.trunc(y0), w: Math.trunc(Math.fround(f[a + 2] - x0)), h: Math.trunc(Math.fround(f[a + 3] - y0)) };
  };
  const codes: number[] = [];
  for (let block = w._wasm_stext_page_get_first_block(st.pointer); block; block = w._wasm_stext_block_get_next(block)) {
    const type = w._wasm_stext_block_get_type(block);
    if (type === 1) {
      const b = box(w._wasm_stext_block_get_bbox(block));
      images.push([b.x, b.y, b.x + b.w, b.y + b.h]);
      continue;
    }
    if (type !== 0) continue;
    for (let line = w._wasm_stext_block_get_first_line(block); line; line = w._wasm_stext_line_get_next(line)) {
      const bbox = box(w._wasm_stext_line_get_bbox(line));
      const first = w._wasm_stext_line_get_first_char(line);
      let name = '';
      let size = 0;
      let x = 0;
      let y = 0;
      if (first) {
        const font = w._wasm_stext_char_get_font(first);
        name = fonts.get(font) ?? w.UTF8ToString(w._wasm_font_get_name(font));
        fonts.set(font, name);
        size = Math.trunc(w._wasm_stext_char_get_size(first));
        const o = w._wasm_stext_char_get_origin(first) >> 2;
        x = Math.trunc(w.HEAPF32[o]);
        y = Math.trunc(w.HEAPF32[o + 1]);
      }
      codes.length = 0;
      for (let ch = first; ch; ch = w._wasm_stext_char_get_next(ch)) {
        if (count + codes.length >= budget) throw tooMuch(); // within a line too: one line can be the whole page
        const c = w._wasm_stext_char_get_c(ch);
        // what the UTF-8 printing of an invalid rune (a surrogate, past U+10FFFF) reads back as
        codes.push(c < 0 || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff) ? 0xfffd : c);
      }
      count += codes.length;
      lines.push({ bbox, font: { name, size }, x, y, text: codesToString(codes) });
    }
  }
  return { lines, images };
}

/** A string of code points (in chunks: the argument count of one call is bounded). */
function codesToString(codes: number[]): string {
  if (codes.length <= 4096) return String.fromCodePoint(...codes);
  let s = '';
  for (let i = 0; i < codes.length; i += 4096) s += String.fromCodePoint(...codes.slice(i, i + 4096));
  return s;
}

/** Splits a mupdf line into words; x positions are interpolated along the line box. */
function lineWords(l: StextLine, out: Word[]): void {
  const text = l.text;
  const n = text.length;
  if (!n) return;
  const cw = l.bbox.w / n;
  const re = /\S+/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    out.push({
      text: m[0],
      x0: l.bbox.x + m.index * cw,
      x1: l.bbox.x + (m.index + m[0].length) * cw,
      y0: l.bbox.y,
      y1: l.bbox.y + l.bbox.h,
      base: l.y,
      size: l.font.size,
      font: l.font.name,
    });
  }
}

/**
 * Joins pieces of one word that the text layer emits as separate objects with no space between them
 * ("J" "an", "Gravy To" "ast"): a gap under an eighth of the font size is not a word space.
 * OCR words are left alone (the engine already segments words).
 */
function glueFragments(ws: Word[]): Word[] {
  const out: Word[] = [];
  for (const w of ws) {
    const prev = out[out.length - 1];
    const gap = prev ? w.x0 - prev.x1 : Infinity;
    if (
      prev &&
      w.font !== 'ocr' &&
      prev.font !== 'ocr' &&
      gap <= Math.max(prev.size, w.size) * 0.12 &&
      gap >= -Math.min(prev.size, w.size) * 0.3 &&
      Math.abs(prev.size - w.size) < 0.5
    ) {
      out[out.length - 1] = {
        ...prev,
        text: prev.text + w.text,
        x1: Math.max(prev.x1, w.x1),
        y0: Math.min(prev.y0, w.y0),
        y1: Math.max(prev.y1, w.y1),
      };
    } else out.push(w);
  }
  return out;
}

/** Groups positioned words into lines by baseline, sorted top to bottom, left to right. */
export function groupLines(words: Word[]): Line[] {
  const sorted = [...words].sort((a, b) => a.base - b.base || a.x0 - b.x0);
  const lines: Line[] = [];
  let cur: Word[] = [];
  let curBase = 0;
  const flush = () => {
    if (!cur.length) return;
    cur.sort((a, b) => a.x0 - b.x0);
    cur = glueFragments(cur);
    lines.push({
      words: cur,
      y0: Math.min(...cur.map((w) => w.y0)),
      y1: Math.max(...cur.map((w) => w.y1)),
      base: curBase,
      text: cur.map((w) => w.text).join(' '),
    });
    cur = [];
  };
  for (const w of sorted) {
    const tol = Math.max(2, w.size * 0.35);
    if (cur.length && Math.abs(w.base - curBase) > tol) flush();
    if (!cur.length) curBase = w.base;
    cur.push(w);
  }
  flush();
  return lines;
}

/**
 * The glyphs the content tamper checks read (tamper-content.ts), gathered while the text is
 * extracted: the page's content is interpreted once into a display list that both read.
 */
export interface InkCollector {
  /** glyphs read so far over the document, and the most to read */
  used: number;
  max: number;
  /** the ink of each text page read, by 0-based page index */
  pages: Map<number, PageInk>;
}

/**
 * Reads the text layer of one page: words with positions, grouped into lines. With `ink`, the
 * glyphs of its words that hold a digit are read too (readPageInk) into `ink.pages`.
 */
export function extractPageText(opened: OpenedDocument, index: number, limits: Partial<Limits> = {}, ink?: InkCollector): PageLayout {
  const lim = { ...DEFAULT_LIMITS, ...limits };
  let page: any;
  try {
    page = opened.doc.loadPage(index);
  } catch (e) {
    throw new StatementError('corrupt', `cannot load page ${index + 1}: ${(e as Error).message}`);
  }
  let list: any = null;
  try {
    let hasImages = true;
    try {
      hasImages = guardPageContent(page, index, lim).hasImages;
    } catch (e) {
      if (e instanceof StatementError) throw e;
      throw new StatementError('corrupt', `page ${index + 1} is unreadable: ${(e as Error).message}`);
    }
    const b = page.getBounds();
    const width = b[2] - b[0];
    const height = b[3] - b[1];
    const options = hasImages ? 'preserve-whitespace,preserve-spans,preserve-images' : 'preserve-whitespace,preserve-spans';
    let st: any;
    try {
      if (ink && opened.info.isPdf && ink.used < ink.max) list = page.toDisplayList();
      st = (list ?? page).toStructuredText(options);
    } catch (e) {
      throw new StatementError('corrupt', `cannot read page ${index + 1}: ${(e as Error).message}`);
    }
    const words: Word[] = [];
    let content: { lines: StextLine[]; images: Rect[] };
    try {
      content = stextContent(st, lim.maxCharsPerPage, index);
    } finally {
      st.destroy?.();
    }
    const imageRects = content.images;
    for (const l of content.lines) lineWords(l, words);
    const lines = groupLines(words);
    if (ink && list && words.length) {
      const read = inkOf(loadedMupdf(), list, index, b, Math.min(PAGE_GLYPHS, ink.max - ink.used));
      ink.used += read.glyphs.length;
      ink.pages.set(index, read);
    }
    return {
      index,
      width,
      height,
      lines,
      method: words.length ? 'text' : 'none',
      confidence: words.length ? 1 : 0,
      imageRects,
    };
  } finally {
    list?.destroy?.();
    page.destroy?.();
  }
}

type Pixmap = InstanceType<Awaited<ReturnType<typeof loadMupdf>>['Pixmap']>;

/** Renders a page at `dpi` (bounded to ~12 MP of raster: memory) and hands the pixmap to `use`. */
async function withPixmap<T>(
  opened: OpenedDocument,
  index: number,
  dpi: number,
  gray: boolean,
  use: (pix: Pixmap, scale: number, bounds: number[]) => T,
): Promise<T> {
  const mupdf = await loadMupdf();
  const page = opened.doc.loadPage(index);
  try {
    const b = page.getBounds();
    let scale = dpi / 72;
    const maxPx = 12_000_000;
    const px = (b[2] - b[0]) * (b[3] - b[1]) * scale * scale;
    if (px > maxPx) scale *= Math.sqrt(maxPx / px);
    const cs = gray ? mupdf.ColorSpace.DeviceGray : mupdf.ColorSpace.DeviceRGB;
    const pix = page.toPixmap(mupdf.Matrix.scale(scale, scale), cs, false, true);
    try {
      return use(pix, scale, b);
    } finally {
      pix.destroy?.();
    }
  } finally {
    page.destroy?.();
  }
}

/** Renders a page to PNG for OCR. */
export function renderPagePng(
  opened: OpenedDocument,
  index: number,
  dpi = 200,
): Promise<{ png: Uint8Array; scale: number; width: number; height: number }> {
  return withPixmap(opened, index, dpi, false, (pix, scale, b) => ({ png: pix.asPNG(), scale, width: b[2] - b[0], height: b[3] - b[1] }));
}

/** An 8-bit grayscale raster (one byte per pixel, rows top to bottom). */
export interface GrayRaster {
  data: Uint8Array;
  width: number;
  height: number;
}

/** Copies a one-component pixmap out of mupdf's memory, row by row (its stride may pad rows). */
export function grayOf(pix: Pixmap): GrayRaster {
  const width = pix.getWidth();
  const height = pix.getHeight();
  const stride = pix.getStride();
  const src = pix.getPixels();
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) data.set(src.subarray(y * stride, y * stride + width), y * width);
  return { data, width, height };
}

/**
 * Pixels per PDF point, across and down, of the image a scanned page is drawn from: the one image
 * drawn upright over at least half of the page. Null when there is no such image, or more than one,
 * or the page cannot be run. Reads no pixels (the image is not decoded).
 */
export function pageImageScale(opened: OpenedDocument, index: number): [number, number] | null {
  if (!opened.info.isPdf) return null;
  let page: any = null;
  try {
    const mupdf = loadedMupdf();
    page = opened.doc.loadPage(index);
    const b: number[] = Array.from(page.getBounds());
    const area = (b[2] - b[0]) * (b[3] - b[1]);
    const found: Array<[number, number]> = [];
    const dev = new mupdf.Device({
      fillImage(img: any, ctm: number[]) {
        const [a, bb, c, d] = ctm;
        if (Math.abs(bb) <= 1e-3 * Math.abs(a) && Math.abs(c) <= 1e-3 * Math.abs(d) && Math.abs(a * d) >= 0.5 * area)
          found.push([img.getWidth() / Math.abs(a), img.getHeight() / Math.abs(d)]);
        img.destroy?.();
      },
    } as any);
    try {
      page.run(dev, mupdf.Matrix.identity);
      dev.close();
    } finally {
      dev.destroy?.();
    }
    return found.length === 1 ? found[0] : null;
  } catch {
    return null;
  } finally {
    page?.destroy?.();
  }
}

/** Renders a page to grayscale pixels for OCR. `scale` converts pixels back to PDF points. */
export function renderPageGray(opened: OpenedDocument, index: number, dpi = 200): Promise<GrayRaster & { scale: number }> {
  return withPixmap(opened, index, dpi, true, (pix, scale) => ({ ...grayOf(pix), scale }));
}
