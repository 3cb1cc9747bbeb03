/**
 * The ink of a text page in drawing order: every glyph (its font, size, colour, render mode,
 * position and whether a later shape, a clip or the page edge hides it) and every opaque shape or
 * image that could cover text. Read with a mupdf device, so the order is the content stream's.
 * Used by the content tamper checks (tamper-content.ts); see docs/tamper.md.
 */
import { GlyphBuffer, heapGlyphs, loadMupdf, Mupdf, mupdfTextLayout, mupdfWasm, walkedGlyphs } from './mupdf';
import type { OpenedDocument } from './open';

export type Box = [number, number, number, number];

export interface Glyph {
  ch: string;
  x0: number;
  x1: number;
  /** baseline */
  base: number;
  y0: number;
  y1: number;
  size: number;
  /** font name without the subset prefix (ABCDEF+) */
  font: string;
  bold: boolean;
  /** approximate sRGB hex of the fill colour */
  color: string;
  /** fill or stroke: painted; invisible: render mode 3 (ignored by a renderer); clip: only a clip */
  mode: 'fill' | 'stroke' | 'invisible' | 'clip';
  /** draw order on the page (each glyph, shape and image has its own) */
  seq: number;
  /** outside the clip in force, or outside the page */
  clipped: boolean;
  offPage: boolean;
  /** the seq of the opaque shape or image drawn later that hides it; null when none does */
  coveredBy: number | null;
  /** a digit drawn with glyph 0 (.notdef): its font has no glyph for it (a subset made without that digit) */
  notdef: boolean;
}

/**
 * The positions of a page's glyphs, four numbers each (left, right, baseline, size), in one typed
 * array: a number kept in an object field is a heap object of its own, and a page holds thousands.
 */
class GlyphPlaces {
  v = new Float64Array(4 * 256);
  n = 0;

  add(x0: number, x1: number, base: number, size: number): number {
    const i = this.n++;
    if (4 * this.n > this.v.length) {
      const v = new Float64Array(this.v.length * 2);
      v.set(this.v);
      this.v = v;
    }
    this.v[4 * i] = x0;
    this.v[4 * i + 1] = x1;
    this.v[4 * i + 2] = base;
    this.v[4 * i + 3] = size;
    return i;
  }
}

/** A glyph as read: its position is in its page's GlyphPlaces; the top and bottom follow from the baseline and size. */
class InkGlyph implements Glyph {
  coveredBy: number | null = null;
  constructor(
    readonly ch: string,
    private readonly places: GlyphPlaces,
    private readonly at: number,
    readonly font: string,
    readonly bold: boolean,
    readonly color: string,
    readonly mode: Glyph['mode'],
    readonly seq: number,
    readonly clipped: boolean,
    readonly offPage: boolean,
    readonly notdef: boolean,
  ) {}
  get x0(): number {
    return this.places.v[4 * this.at];
  }
  get x1(): number {
    return this.places.v[4 * this.at + 1];
  }
  get base(): number {
    return this.places.v[4 * this.at + 2];
  }
  get size(): number {
    return this.places.v[4 * this.at + 3];
  }
  get y0(): number {
    return this.base - 0.75 * this.size;
  }
  get y1(): number {
    return this.base + 0.2 * this.size;
  }
}

export interface Cover {
  box: Box;
  seq: number;
  kind: 'shape' | 'image';
  color: string | null;
}

export interface PageInk {
  /** 0-based */
  index: number;
  width: number;
  height: number;
  glyphs: Glyph[];
  covers: Cover[];
  /** true when the page held more glyphs than read (the rest ignored) */
  truncated: boolean;
  /** the glyph limit it was read with */
  cap: number;
}

/** Most glyphs read on one page, and over a document (the rest are not checked). */
export const PAGE_GLYPHS = 60_000;
export const DOCUMENT_GLYPHS = 400_000;

/** Something mupdf can run through a device: a page, or a page's display list. */
export interface InkSource {
  run(device: unknown, matrix: unknown): void;
}

type M = [number, number, number, number, number, number];

const hex = (v: number) =>
  Math.round(Math.max(0, Math.min(1, v)) * 255)
    .toString(16)
    .padStart(2, '0');

function rgbOf(color: ArrayLike<number> | null | undefined): string {
  if (!color || !color.length) return '#000000';
  const c = Array.from(color);
  if (c.length === 1) return `#${hex(c[0])}${hex(c[0])}${hex(c[0])}`;
  if (c.length === 3) return `#${hex(c[0])}${hex(c[1])}${hex(c[2])}`;
  if (c.length === 4) {
    const k = c[3];
    return `#${hex((1 - c[0]) * (1 - k))}${hex((1 - c[1]) * (1 - k))}${hex((1 - c[2]) * (1 - k))}`;
  }
  return '#000000';
}

export const area = (b: Box) => Math.max(0, b[2] - b[0]) * Math.max(0, b[3] - b[1]);
export const intersection = (a: Box, b: Box): Box => [
  Math.max(a[0], b[0]),
  Math.max(a[1], b[1]),
  Math.min(a[2], b[2]),
  Math.min(a[3], b[3]),
];
/** Share of `a` that lies inside `b`. */
export const shareInside = (a: Box, b: Box) => {
  const ar = area(a);
  return ar > 0 ? area(intersection(a, b)) / ar : 0;
};

const boxOf = (r: ArrayLike<number>): Box => [r[0], r[1], r[2], r[3]];

/** Glyphs of one run held before it is known to hold a digit (a longer run is cut). */
const RUN_MAX = 256;

/** Most glyphs read from one text object (a page of more characters is refused before this pass). */
const TEXT_GLYPHS = 250_000;

/** The glyphs of the text object being read (reused: the pass is synchronous). */
const glyphBuffer = new GlyphBuffer();

/**
 * Reads the glyphs and covering shapes of one page (0-based). `maxGlyphs` bounds the work on a
 * hostile page. Every text object is read glyph by glyph (from the wasm heap: cheaper than asking
 * mupdf for its bounds to skip it), and only runs of glyphs that hold a digit are kept.
 */
export async function readPageInk(opened: OpenedDocument, index: number, maxGlyphs = PAGE_GLYPHS): Promise<PageInk> {
  const mupdf = await loadMupdf();
  const page = opened.doc.loadPage(index);
  try {
    return inkOf(mupdf, page, index, page.getBounds() as number[], maxGlyphs);
  } finally {
    page.destroy?.();
  }
}

/**
 * The ink of one page run from `source` (the page itself, or its display list when the text
 * extraction has built one: the content stream is then interpreted once for both).
 */
export function inkOf(mupdf: Mupdf, source: InkSource, index: number, b: number[], maxGlyphs = PAGE_GLYPHS): PageInk {
  const pageBox: Box = [b[0], b[1], b[2], b[3]];
  const glyphs: Glyph[] = [];
  const places = new GlyphPlaces();
  const covers: Cover[] = [];
  const clips: Array<Box | null> = [];
  let seq = 0;
  let truncated = false;
  const clipBox = (): Box | null => {
    let c: Box | null = null;
    for (let i = 0; i < clips.length; i++) {
      const k = clips[i];
      if (k) c = c ? intersection(c, k) : k;
    }
    return c;
  };
  // fonts by pointer: name, weight and the advances read so far (mupdf's font calls cost a round trip)
  const w = mupdfWasm();
  const layout = w ? mupdfTextLayout() : null;
  const fonts = new Map<number, { name: string; bold: boolean; adv: Map<number, number>; font: any }>();
  const fontOf = (ptr: number) => {
    let f = fonts.get(ptr);
    if (!f) {
      // without the wasm accessors, a wrapper of our own (one reference, dropped when the page is read)
      const font: any = w ? null : new mupdf.Font(ptr as any);
      const raw = w ? w.UTF8ToString(w._wasm_font_get_name(ptr)) : String(font.getName());
      const name = raw.replace(/^[A-Z]{6}\+/, '');
      const bold = w ? !!w._wasm_font_is_bold(ptr) : !!font.isBold();
      f = { name, bold: bold || /bold|black|heavy|semibold/i.test(name), adv: new Map(), font };
      fonts.set(ptr, f);
    }
    return f;
  };
  const advanceOf = (f: { adv: Map<number, number>; font: any }, ptr: number, gid: number): number => {
    let adv = f.adv.get(gid);
    if (adv === undefined) {
      try {
        adv = (w ? w._wasm_advance_glyph(ptr, gid, 0) : f.font.advanceGlyph(gid)) as number;
      } catch {
        adv = 0.5; // no metrics: half an em
      }
      f.adv.set(gid, adv);
    }
    return adv;
  };
  const buf = glyphBuffer;
  const [px0, py0, px1, py1] = pageBox;
  const rX0 = new Float64Array(RUN_MAX);
  const rX1 = new Float64Array(RUN_MAX);
  const rBase = new Float64Array(RUN_MAX);
  const rSize = new Float64Array(RUN_MAX);
  const rUni = new Int32Array(RUN_MAX);
  const rSeq = new Int32Array(RUN_MAX);
  const rFont: Array<{ name: string; bold: boolean }> = new Array(RUN_MAX);
  const rNotdef = new Uint8Array(RUN_MAX);
  // the hot path (every glyph of the page): advances cached per font
  const readText = (text: any, ctm: M, mode: Glyph['mode'], color: string) => {
    const clip = clipBox();
    const A = ctm[0];
    const B = ctm[1];
    const C = ctm[2];
    const D = ctm[3];
    const E = ctm[4];
    const F = ctm[5];
    // glyphs are kept by runs (no space, no jump): only the runs holding a digit (amounts, dates,
    // balances) become Glyph objects, the words of descriptions and headings are dropped at once
    // (their numbers are held in reused arrays: no garbage for the collector)
    let n = 0;
    let digit = false;
    const endRun = () => {
      if (digit)
        for (let i = 0; i < n; i++) {
          const size = rSize[i];
          const x0 = rX0[i];
          const x1 = rX1[i];
          const base = rBase[i];
          const y0 = base - 0.75 * size;
          const y1 = base + 0.2 * size;
          const cx = (x0 + x1) / 2;
          const cy = (y0 + y1) / 2;
          const uni = rUni[i];
          const f = rFont[i];
          glyphs.push(
            new InkGlyph(
              uni > 0 ? String.fromCodePoint(uni) : '\uFFFD',
              places,
              places.add(x0, x1, base, size),
              f.name,
              f.bold,
              color,
              mode,
              rSeq[i],
              !!clip && (cx < clip[0] || cx > clip[2] || cy < clip[1] || cy > clip[3]),
              cx < px0 || cx > px1 || cy < py0 || cy > py1,
              rNotdef[i] === 1,
            ),
          );
        }
      n = 0;
      digit = false;
    };
    // a text object longer than any page the reader accepts is read up to that length
    const cut = layout && w ? heapGlyphs(w, layout, text.pointer, buf, TEXT_GLYPHS) : walkedGlyphs(text, buf, TEXT_GLYPHS);
    if (cut) truncated = true;
    const trm = buf.trm;
    for (let i = 0; i < buf.n; i++) {
      const uni = buf.ucs[i];
      if (uni === 32 || uni === 160 || uni === 9) {
        endRun(); // spaces: the gaps split the tokens
        continue;
      }
      if (glyphs.length >= maxGlyphs) {
        truncated = true;
        continue;
      }
      const t = i * 6;
      const a = trm[t] * A + trm[t + 1] * C;
      const b = trm[t] * B + trm[t + 1] * D;
      const c = trm[t + 2] * A + trm[t + 3] * C;
      const d = trm[t + 2] * B + trm[t + 3] * D;
      const size = Math.sqrt(c * c + d * d);
      // horizontal text only: rotated glyphs (watermarks, vertical footers) are not table cells
      if (!(size > 0.5) || Math.abs(b) > 0.05 * Math.abs(a) || a <= 0) continue;
      const ptr = buf.font[i];
      const f = fontOf(ptr);
      const adv = advanceOf(f, ptr, buf.gid[i]);
      const x0 = trm[t + 4] * A + trm[t + 5] * C + E;
      const base = trm[t + 4] * B + trm[t + 5] * D + F;
      if (n > 0) {
        const em = Math.max(size, rSize[n - 1]);
        const gap = x0 - rX1[n - 1];
        if (Math.abs(base - rBase[n - 1]) > 0.25 * em || gap > 0.2 * em || gap < -0.3 * em || n >= RUN_MAX) endRun();
      }
      const isDigit = uni >= 48 && uni <= 57;
      if (isDigit) digit = true;
      rX0[n] = x0;
      rX1[n] = x0 + adv * a;
      rBase[n] = base;
      rSize[n] = size;
      rUni[n] = uni;
      rSeq[n] = ++seq;
      rFont[n] = f;
      rNotdef[n] = isDigit && buf.gid[i] === 0 ? 1 : 0;
      n++;
    }
    endRun();
  };
  const pushClip = (bounds: ArrayLike<number> | null) => clips.push(bounds ? boxOf(bounds) : null);
  // every callback gets fresh wrappers of mupdf objects: dropped at once, not left to the finalizers
  const drop = (...objs: any[]) => {
    for (const o of objs) o?.destroy?.();
  };
  const dev = new mupdf.Device({
    fillText(text: any, ctm: any, cs: any, color: number[], alpha: number) {
      readText(text, ctm as M, alpha < 0.05 ? 'invisible' : 'fill', rgbOf(color));
      drop(text, cs);
    },
    strokeText(text: any, st: any, ctm: any, cs: any, color: number[]) {
      readText(text, ctm as M, 'stroke', rgbOf(color));
      drop(text, st, cs);
    },
    ignoreText(text: any, ctm: any) {
      readText(text, ctm as M, 'invisible', '#000000');
      drop(text);
    },
    clipText(text: any, ctm: any) {
      readText(text, ctm as M, 'clip', '#000000');
      pushClip(text.getBounds(null, ctm));
      drop(text);
    },
    clipStrokeText(text: any, st: any, ctm: any) {
      pushClip(text.getBounds(null, ctm));
      drop(text, st);
    },
    fillPath(path: any, _eo: boolean, ctm: any, cs: any, color: number[], alpha: number) {
      seq++;
      if (alpha >= 0.95) {
        const box = boxOf(path.getBounds(null, ctm));
        if (box[2] - box[0] >= 2 && box[3] - box[1] >= 2) covers.push({ box, seq, kind: 'shape', color: rgbOf(color) });
      }
      drop(path, cs);
    },
    strokePath(path: any, st: any, _ctm: any, cs: any) {
      drop(path, st, cs);
    },
    fillImage(img: any, ctm: any, alpha: number) {
      seq++;
      drop(img);
      if (alpha < 0.95) return;
      const m = ctm as M;
      const xs = [m[4], m[4] + m[0], m[4] + m[2], m[4] + m[0] + m[2]];
      const ys = [m[5], m[5] + m[1], m[5] + m[3], m[5] + m[1] + m[3]];
      const box: Box = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
      if (box[2] - box[0] < 2 || box[3] - box[1] < 2) return;
      covers.push({ box, seq, kind: 'image', color: null });
    },
    fillImageMask(img: any, _ctm: any, cs: any) {
      drop(img, cs);
    },
    fillShade(shade: any) {
      drop(shade);
    },
    clipPath(path: any, _eo: boolean, ctm: any) {
      pushClip(path.getBounds(null, ctm));
      drop(path);
    },
    clipStrokePath(path: any, st: any, ctm: any) {
      pushClip(path.getBounds(null, ctm));
      drop(path, st);
    },
    clipImageMask(img: any, ctm: any) {
      const m = ctm as M;
      const xs = [m[4], m[4] + m[0], m[4] + m[2], m[4] + m[0] + m[2]];
      const ys = [m[5], m[5] + m[1], m[5] + m[3], m[5] + m[1] + m[3]];
      clips.push([Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)]);
      drop(img);
    },
    beginMask(_area: any, _lum: boolean, cs: any) {
      clips.push(null);
      drop(cs);
    },
    beginGroup(_area: any, cs: any) {
      drop(cs);
    },
    popClip() {
      clips.pop();
    },
  } as any);
  try {
    source.run(dev, mupdf.Matrix.identity);
    dev.close();
  } finally {
    dev.destroy?.();
    for (const f of fonts.values()) f.font?.destroy?.();
  }
  markCovered(glyphs, covers);
  return { index, width: b[2] - b[0], height: b[3] - b[1], glyphs, covers, truncated, cap: maxGlyphs };
}

/** A glyph is covered when an opaque shape or image drawn after it holds most of its box. */
function markCovered(glyphs: Glyph[], covers: Cover[]): void {
  if (!covers.length) return;
  // a cover of the whole page drawn after the text is a scan's image under an OCR layer's ordering quirk: ignore
  for (const g of glyphs) {
    if (g.mode === 'clip') continue;
    const x0 = g.x0;
    const y0 = g.y0;
    const x1 = g.x1;
    const y1 = g.y1;
    const own = Math.max(0, x1 - x0) * Math.max(0, y1 - y0);
    for (const c of covers) {
      if (c.seq <= g.seq) continue;
      const b = c.box;
      if (b[0] > x1 || b[2] < x0 || b[1] > y1 || b[3] < y0) continue;
      // the share of the glyph's box inside the cover (shareInside without a box per glyph)
      const inside = Math.max(0, Math.min(x1, b[2]) - Math.max(x0, b[0])) * Math.max(0, Math.min(y1, b[3]) - Math.max(y0, b[1]));
      if (own > 0 && inside / own >= 0.7) {
        g.coveredBy = c.seq;
        break;
      }
    }
  }
}
