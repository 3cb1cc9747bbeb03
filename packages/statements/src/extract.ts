import { loadMupdf } from './mupdf';
import { guardPageContent, OpenedDocument } from './open';
import { DEFAULT_LIMITS, Limits, Line, PageLayout, StatementError, Word } from './types';

interface StextLine {
  wmode: number;
  bbox: { x: number; y: number; w: number; h: number };
  font: { name: string; size: number };
  x: number;
  y: number;
  text: string;
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

/** Reads the text layer of one page: words with positions, grouped into lines. */
export function extractPageText(opened: OpenedDocument, index: number, limits: Partial<Limits> = {}): PageLayout {
  const lim = { ...DEFAULT_LIMITS, ...limits };
  let page: any;
  try {
    page = opened.doc.loadPage(index);
  } catch (e) {
    throw new StatementError('corrupt', `cannot load page ${index + 1}: ${(e as Error).message}`);
  }
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
    let st: any;
    try {
      st = page.toStructuredText(hasImages ? 'preserve-whitespace,preserve-spans,preserve-images' : 'preserve-whitespace,preserve-spans');
    } catch (e) {
      throw new StatementError('corrupt', `cannot read page ${index + 1}: ${(e as Error).message}`);
    }
    const words: Word[] = [];
    const imageRects: Array<[number, number, number, number]> = [];
    let json: string;
    try {
      json = st.asJSON();
    } finally {
      st.destroy?.();
    }
    if (json.length > lim.maxCharsPerPage * 8) throw new StatementError('too_large', `page ${index + 1} has too much text`);
    const data = JSON.parse(json) as {
      blocks: Array<{ type: string; bbox: { x: number; y: number; w: number; h: number }; lines?: StextLine[] }>;
    };
    let count = 0;
    for (const b of data.blocks ?? []) {
      if (b.type === 'image') {
        imageRects.push([b.bbox.x, b.bbox.y, b.bbox.x + b.bbox.w, b.bbox.y + b.bbox.h]);
        continue;
      }
      for (const l of b.lines ?? []) {
        count += l.text.length;
        if (count > lim.maxCharsPerPage)
          throw new StatementError('too_large', `page ${index + 1} has more than ${lim.maxCharsPerPage} characters`);
        lineWords(l, words);
      }
    }
    return {
      index,
      width,
      height,
      lines: groupLines(words),
      method: words.length ? 'text' : 'none',
      confidence: words.length ? 1 : 0,
      imageRects,
    };
  } finally {
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

/** Renders a page to grayscale pixels for OCR. `scale` converts pixels back to PDF points. */
export function renderPageGray(opened: OpenedDocument, index: number, dpi = 200): Promise<GrayRaster & { scale: number }> {
  return withPixmap(opened, index, dpi, true, (pix, scale) => ({ ...grayOf(pix), scale }));
}
