/**
 * The ink of a text page in drawing order: every glyph (its font, size, colour, render mode,
 * position and whether a later shape, a clip or the page edge hides it) and every opaque shape or
 * image that could cover text. Read with a mupdf device, so the order is the content stream's.
 * Used by the content tamper checks (tamper-content.ts); see docs/tamper.md.
 */
import { loadMupdf } from './mupdf';
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

/** Band height (points) of the focus index. */
const BAND = 12;

/** Boxes bucketed by horizontal bands, to ask "does this box touch any of them" without a scan of all. */
function focusIndex(boxes: Box[]): (b: ArrayLike<number>) => boolean {
  const bands = new Map<number, Box[]>();
  for (const f of boxes)
    for (let k = Math.floor(f[1] / BAND); k <= Math.floor(f[3] / BAND); k++) {
      const l = bands.get(k);
      if (l) l.push(f);
      else bands.set(k, [f]);
    }
  return (b) => {
    for (let k = Math.floor(b[1] / BAND); k <= Math.floor(b[3] / BAND); k++)
      for (const f of bands.get(k) ?? []) if (f[0] <= b[2] && b[0] <= f[2] && f[1] <= b[3] && b[1] <= f[3]) return true;
    return false;
  };
}

/**
 * Reads the glyphs and covering shapes of one page (0-based). `maxGlyphs` bounds the work on a
 * hostile page. With `focus`, only text objects that touch one of its boxes are read glyph by glyph
 * (the others cost one bounds query): the callers pass the boxes of the words holding a digit.
 */
export async function readPageInk(opened: OpenedDocument, index: number, maxGlyphs = 60_000, focus?: Box[]): Promise<PageInk> {
  const near = focus ? focusIndex(focus) : null;
  const mupdf = await loadMupdf();
  const page = opened.doc.loadPage(index);
  try {
    const b = page.getBounds() as number[];
    const pageBox: Box = [b[0], b[1], b[2], b[3]];
    const glyphs: Glyph[] = [];
    const covers: Cover[] = [];
    const clips: Array<Box | null> = [];
    const fonts = new Map<unknown, { name: string; bold: boolean; adv: Map<number, number> }>();
    let seq = 0;
    let truncated = false;
    const clipBox = (): Box | null => {
      let c: Box | null = null;
      for (const k of clips) if (k) c = c ? intersection(c, k) : k;
      return c;
    };
    const fontOf = (font: any) => {
      const key = font.pointer ?? font;
      let f = fonts.get(key);
      if (!f) {
        const name = String(font.getName()).replace(/^[A-Z]{6}\+/, '');
        f = { name, bold: !!font.isBold() || /bold|black|heavy|semibold/i.test(name), adv: new Map() };
        fonts.set(key, f);
      }
      return f;
    };
    const [px0, py0, px1, py1] = pageBox;
    const rX0 = new Float64Array(RUN_MAX);
    const rX1 = new Float64Array(RUN_MAX);
    const rBase = new Float64Array(RUN_MAX);
    const rSize = new Float64Array(RUN_MAX);
    const rUni = new Int32Array(RUN_MAX);
    const rSeq = new Int32Array(RUN_MAX);
    const rFont: Array<{ name: string; bold: boolean }> = new Array(RUN_MAX);
    // the hot path (every glyph of the page): advances cached per font
    const readText = (text: any, ctm: M, mode: Glyph['mode'], color: string) => {
      if (near && !near(text.getBounds(null, ctm))) return;
      const clip = clipBox();
      const [A, B, C, D, E, F] = ctm;
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
            glyphs.push({
              ch: uni > 0 ? String.fromCodePoint(uni) : '\uFFFD',
              x0,
              x1,
              base,
              y0,
              y1,
              size,
              font: f.name,
              bold: f.bold,
              color,
              mode,
              seq: rSeq[i],
              clipped: !!clip && (cx < clip[0] || cx > clip[2] || cy < clip[1] || cy > clip[3]),
              offPage: cx < px0 || cx > px1 || cy < py0 || cy > py1,
              coveredBy: null,
            });
          }
        n = 0;
        digit = false;
      };
      text.walk({
        showGlyph(font: any, trm: number[], gid: number, uni: number) {
          if (uni === 32 || uni === 160 || uni === 9) {
            endRun(); // spaces: the gaps split the tokens
            return;
          }
          if (glyphs.length >= maxGlyphs) {
            truncated = true;
            return;
          }
          const a = trm[0] * A + trm[1] * C;
          const b = trm[0] * B + trm[1] * D;
          const c = trm[2] * A + trm[3] * C;
          const d = trm[2] * B + trm[3] * D;
          const size = Math.sqrt(c * c + d * d);
          // horizontal text only: rotated glyphs (watermarks, vertical footers) are not table cells
          if (!(size > 0.5) || Math.abs(b) > 0.05 * Math.abs(a) || a <= 0) return;
          const f = fontOf(font);
          let adv = f.adv.get(gid);
          if (adv === undefined) {
            try {
              adv = font.advanceGlyph(gid) as number;
            } catch {
              adv = 0.5; // no metrics: half an em
            }
            f.adv.set(gid, adv);
          }
          const x0 = trm[4] * A + trm[5] * C + E;
          const base = trm[4] * B + trm[5] * D + F;
          if (n > 0) {
            const em = Math.max(size, rSize[n - 1]);
            const gap = x0 - rX1[n - 1];
            if (Math.abs(base - rBase[n - 1]) > 0.25 * em || gap > 0.2 * em || gap < -0.3 * em || n >= RUN_MAX) endRun();
          }
          if (uni >= 48 && uni <= 57) digit = true;
          rX0[n] = x0;
          rX1[n] = x0 + adv * a;
          rBase[n] = base;
          rSize[n] = size;
          rUni[n] = uni;
          rSeq[n] = ++seq;
          rFont[n] = f;
          n++;
        },
      });
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
      page.run(dev, mupdf.Matrix.identity);
      dev.close();
    } finally {
      dev.destroy?.();
    }
    markCovered(glyphs, covers);
    return { index, width: b[2] - b[0], height: b[3] - b[1], glyphs, covers, truncated };
  } finally {
    page.destroy?.();
  }
}

/** A glyph is covered when an opaque shape or image drawn after it holds most of its box. */
function markCovered(glyphs: Glyph[], covers: Cover[]): void {
  if (!covers.length) return;
  // a cover of the whole page drawn after the text is a scan's image under an OCR layer's ordering quirk: ignore
  for (const g of glyphs) {
    if (g.mode === 'clip') continue;
    const gb: Box = [g.x0, g.y0, g.x1, g.y1];
    for (const c of covers) {
      if (c.seq <= g.seq) continue;
      if (c.box[0] > g.x1 || c.box[2] < g.x0 || c.box[1] > g.y1 || c.box[3] < g.y0) continue;
      if (shareInside(gb, c.box) >= 0.7) {
        g.coveredBy = c.seq;
        break;
      }
    }
  }
}
