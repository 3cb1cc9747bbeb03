import { inkOf, PAGE_GLYPHS, PageInk } from './ink';
import { loadedMupdf, loadMupdf, mupdfWasm } from './mupdf';
import { guardPageContent, OpenedDocument } from './open';
import { jpegLumaTable } from './tamper-history';
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

/** An image drawn over part of a scanned page's own image, after it. */
export interface ImageOverlay {
  /** PDF points, origin top-left, as the page's words */
  box: [number, number, number, number];
  /** the image's own size in pixels */
  width: number;
  height: number;
  /** its resolution as drawn, pixels per inch across and down */
  dpi: [number, number];
  /** its stream's filter ("DCTDecode", "FlateDecode"...), when the page's resources name it; null for an image without one */
  filter?: string | null;
  /** drawn as a stencil mask (a colour painted through it) */
  mask: boolean;
}

/** The images a scanned page is drawn from: the page's own, and what is drawn over it. */
export interface PageImages {
  /** pixels per PDF point, across and down, of the one image drawn upright over at least half of the page; null when there is no such image, or more than one */
  scale: [number, number] | null;
  /** the page image's filter, when the page's resources name it */
  filter?: string | null;
  /** where the page image's top-left pixel lies (PDF points, origin top-left); null when it is drawn flipped */
  origin?: [number, number] | null;
  /** the page image's size in pixels */
  pixels?: [number, number];
  /** the luminance quantisation table (natural order) of the page image, where it is stored as JPEG (DCTDecode alone) */
  quant?: number[] | null;
  /** images drawn after the page image, each over at most a quarter of the page (empty when the page has no page image) */
  overlays: ImageOverlay[];
}

/**
 * The filters of a page's image XObjects (its own resources and its forms', one level down; the last of
 * a chain), by pixel size; and the luminance quantisation table of the images of size `quantOf` stored as JPEG alone.
 */
function imageFilters(page: any, quantOf?: string): Map<string, Array<string | null>> & { quant: Map<string, number[] | null> } {
  const out = Object.assign(new Map<string, Array<string | null>>(), { quant: new Map<string, number[] | null>() });
  const visit = (xobjects: any, depth: number) => {
    if (!xobjects || xobjects.isNull?.() || !xobjects.isDictionary?.()) return;
    xobjects.forEach((v: any) => {
      const o = v.resolve();
      const sub = o.get('Subtype');
      if (sub.isName() && sub.asName() === 'Image') {
        const f = o.get('Filter');
        const filter = f.isName() ? f.asName() : f.isArray() && f.length ? f.get(f.length - 1).asName() : null;
        const key = `${o.get('Width').asNumber()}x${o.get('Height').asNumber()}`;
        if (!out.has(key)) out.set(key, []);
        out.get(key)!.push(filter);
        if (key === quantOf && f.isName() && filter === 'DCTDecode' && !out.quant.has(key)) {
          try {
            // the stream as stored (the JPEG itself), read from the indirect object
            const raw = v.readRawStream();
            try {
              out.quant.set(key, jpegLumaTable(raw.asUint8Array()));
            } finally {
              raw.destroy?.();
            }
          } catch {
            out.quant.set(key, null);
          }
        }
      } else if (depth < 1 && sub.isName() && sub.asName() === 'Form') visit(o.get('Resources').get('XObject'), depth + 1);
    });
  };
  try {
    visit(page.getObject().getInheritable('Resources').get('XObject'), 0);
  } catch {
    // a damaged resource dictionary names no filters
  }
  return out;
}

/** An image's transform draws it upright over at least half of the page (`area`, square points): a scanned page's own image. */
const coversPage = ([a, b, c, d]: number[], area: number) =>
  Math.abs(b) <= 1e-3 * Math.abs(a) && Math.abs(c) <= 1e-3 * Math.abs(d) && Math.abs(a * d) >= 0.5 * area;

/**
 * Runs a PDF page through a mupdf device that hands each image it draws (and each stencil mask) to
 * `seen`, with its transform and the page's area, then answers `after(page)`; null for another kind
 * of document or a page that cannot be run.
 */
function runImages<T>(
  opened: OpenedDocument,
  index: number,
  seen: (img: any, ctm: number[], mask: boolean, area: number) => void,
  after: (page: any) => T,
): T | null {
  if (!opened.info.isPdf) return null;
  let page: any = null;
  try {
    const mupdf = loadedMupdf();
    page = opened.doc.loadPage(index);
    const b: number[] = Array.from(page.getBounds());
    const area = (b[2] - b[0]) * (b[3] - b[1]);
    const dev = new mupdf.Device({
      fillImage(img: any, ctm: number[]) {
        try {
          seen(img, ctm, false, area);
        } finally {
          img.destroy?.();
        }
      },
      fillImageMask(img: any, ctm: number[]) {
        try {
          seen(img, ctm, true, area);
        } finally {
          img.destroy?.();
        }
      },
    } as any);
    try {
      page.run(dev, mupdf.Matrix.identity);
      dev.close();
    } finally {
      dev.destroy?.();
    }
    return after(page);
  } catch {
    return null;
  } finally {
    page?.destroy?.();
  }
}

/**
 * The images of a scanned page: the pixels per PDF point of its own image (the one image drawn upright
 * over at least half of the page), and the smaller images drawn after it (a patch pasted onto the scan).
 * Reads no pixels (no image is decoded). A page that cannot be run has none.
 */
export function pageImages(opened: OpenedDocument, index: number): PageImages {
  const full: Array<{ scale: [number, number]; key: string; origin: [number, number] | null; pixels: [number, number] }> = [];
  const later: Array<ImageOverlay & { key: string }> = [];
  const seen = (img: any, ctm: number[], mask: boolean, area: number) => {
    const [a, bb, c, d, e, f] = ctm;
    const w = img.getWidth();
    const h = img.getHeight();
    const key = `${w}x${h}`;
    if (coversPage(ctm, area)) {
      full.push({ scale: [w / Math.abs(a), h / Math.abs(d)], key, origin: a > 0 && d > 0 ? [e, f] : null, pixels: [w, h] });
      later.length = 0; // what was drawn before the page image lies under it
      return;
    }
    if (!full.length) return;
    const xs = [e, e + a, e + c, e + a + c];
    const ys = [f, f + bb, f + d, f + bb + d];
    const box: [number, number, number, number] = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
    const bw = box[2] - box[0];
    const bh = box[3] - box[1];
    if (bw < 2 || bh < 2 || bw * bh > 0.25 * area) return;
    const sx = Math.hypot(a, bb);
    const sy = Math.hypot(c, d);
    later.push({ box, width: w, height: h, dpi: [Math.round((72 * w) / sx), Math.round((72 * h) / sy)], mask, key });
  };
  const found = runImages(opened, index, seen, (page): PageImages => {
    if (full.length !== 1) return { scale: null, overlays: [] };
    const filters = imageFilters(page, full[0].key);
    // an image's filter, when the images of its size agree on it
    const filterOf = (key: string): string | null | undefined => {
      const fs = filters.get(key) ?? [];
      return fs.length && fs.every((x) => x === fs[0]) ? fs[0] : undefined;
    };
    return {
      scale: full[0].scale,
      filter: filterOf(full[0].key),
      quant: filterOf(full[0].key) === 'DCTDecode' ? (filters.quant.get(full[0].key) ?? null) : null,
      origin: full[0].origin,
      pixels: full[0].pixels,
      overlays: later.map(({ key, ...o }) => ({ ...o, filter: filterOf(key) })),
    };
  });
  return found ?? { scale: null, overlays: [] };
}

/**
 * The pixels of a scanned page's own image (the one image drawn upright over at least half of the
 * page), decoded at its own resolution and made grey (the first component of a grey image, the luma
 * of a colour one). Null when the page has no such image, or more than one.
 */
export function pageImagePixels(opened: OpenedDocument, index: number): GrayRaster | null {
  let pages = 0;
  let found: GrayRaster | null = null;
  const seen = (img: any, ctm: number[], mask: boolean, area: number) => {
    if (!coversPage(ctm, area) || ++pages > 1 || mask) return;
    const pix = img.toPixmap();
    try {
      found = greyOfAny(pix);
    } finally {
      pix.destroy?.();
    }
  };
  return runImages(opened, index, seen, () => (pages === 1 ? found : null));
}

/** A pixmap of any colour space as grey: its one component, or the luma of three (BT.601), alpha left out. */
function greyOfAny(pix: Pixmap): GrayRaster {
  const n = pix.getNumberOfComponents();
  if (n === 1 && !pix.getAlpha()) return grayOf(pix);
  const width = pix.getWidth();
  const height = pix.getHeight();
  const stride = pix.getStride();
  const step = n + (pix.getAlpha() ? 1 : 0);
  const src = pix.getPixels();
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * stride + x * step;
      data[y * width + x] = n >= 3 ? (299 * src[i] + 587 * src[i + 1] + 114 * src[i + 2] + 500) / 1000 : src[i];
    }
  return { data, width, height };
}

/** Renders a page to grayscale pixels for OCR. `scale` converts pixels back to PDF points. */
export function renderPageGray(opened: OpenedDocument, index: number, dpi = 200): Promise<GrayRaster & { scale: number }> {
  return withPixmap(opened, index, dpi, true, (pix, scale) => ({ ...grayOf(pix), scale }));
}
