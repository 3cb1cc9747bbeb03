/**
 * Content check of scanned pages (issue 32): an amount copied within the scan. The quickest edit of a
 * scanned statement is a clone: select an amount printed elsewhere on the page and paste it over the
 * one to change. The copy brings the scanner's noise, blur and tone with it, so the patch checks
 * (tamper-scan.ts) see nothing; but a scanner never puts the same noise on two places of the paper,
 * and a copy carries its source's noise pixel for pixel. For each amount and each other word with a
 * digit on the lines that hold an amount, every translation that lays two or more of the amount's
 * glyphs on glyphs of the same size is tried: the correlation of the paper pixels around the
 * amount's glyphs (2 px or more from any ink) with those at that translation. Two prints of the same
 * digits share their shape, not their noise, and correlate near 0; a copy near 1, and still about 0.5
 * after the page is saved again as JPEG at quality 85. The mean correlation of single like glyphs
 * tells a page whose paper is shaped by its glyphs (no noise to tell a copy by) (docs/tamper.md,
 * "Amounts copied within the scan").
 */
import type { GrayRaster } from './extract';

type Box = [number, number, number, number];

/** One glyph (a connected run of ink) inside a word: its ink's bounding box in raster pixels. */
interface Glyph {
  x: number;
  y: number;
  w: number;
  h: number;
  /** ink pixels */
  area: number;
  /** the ink's centre (raster pixels) */
  cx: number;
  cy: number;
}

/** The amount whose paper matches another word's best, at one translation. */
export interface WordCopy {
  /** index of the amount (in the words given) and of the other word */
  word: number;
  other: number;
  /** correlation of the paper pixels around the amount's glyphs with those at the same place around the other word's */
  corr: number;
  /** paper pixels compared */
  pixels: number;
  /** the other word's glyphs that lie at that translation from the amount's (a whole copied amount: all of them) */
  glyphs: number;
  /** the amount's best correlation with any third word: like glyphs whose paper correlates by their shape correlate with many */
  alt: number;
}

/** The amount's one glyph whose pixels are nearest another glyph's (of another word, or of its own): a digit copied over a digit. */
export interface GlyphCopy {
  word: number;
  other: number;
  /** the two glyphs' boxes (PDF points, in the frame of the words' boxes): the amount's, and the other's */
  glyph: Box;
  source: Box;
  /** the mean absolute difference (grey levels) of the pixels of the glyph's box (one pixel round) and the other's, and how many */
  mad: number;
  pixels: number;
}

export interface PageCopies {
  /** each amount's best match, where one was compared */
  copies: WordCopy[];
  /** each amount's nearest single glyph of the page, where it has a like one */
  glyphCopies: GlyphCopy[];
  /** the median over the amounts' glyphs of each one's difference from its nearest like glyph (two prints of a digit: the scanner's noise, twice) */
  glyphMedian: number;
  /** word pairs and translations compared */
  pairs: number;
  /**
   * The mean correlation of the paper around two like glyphs (a quarter of the pixels, every pair
   * compared): near 0 where the paper's noise is the scanner's, well above where the paper around a
   * glyph is shaped by the glyph (a halo, a sharpening filter, a scan made from a digital render).
   */
  likeMean: number;
}

/** Pixels around each glyph's ink compared. */
const PAD = 3;
/** Paper pixels a comparison needs (a word's glyphs together). */
const MIN_PIXELS = 100;
/** Paper pixels (of a quarter taken) two like glyphs' comparison needs for the page's mean. */
const LIKE_PIXELS = 12;
/** The paper's variance (grey levels squared) below which there is no noise to compare. */
const MIN_VAR = 1;
/** Translations compared per page at most. */
const MAX_PAIRS = 60_000;
/** Like glyph pairs whose pixels are compared at most (the page's median and each amount's nearest). */
const MAX_GLYPH_PAIRS = 60_000;

/**
 * The difference of glyph `t` from `s`: laid on it by their boxes' corners, or by their ink's centres
 * where they differ (a copy's box may take in a sliver of a neighbour's ink), the nearer.
 */
function nearestDiff(r: GrayRaster, t: Glyph, s: Glyph): { mad: number; n: number } | null {
  const byBox = glyphDiff(r, t, s.x - t.x, s.y - t.y);
  const dx = Math.round(s.cx - t.cx);
  const dy = Math.round(s.cy - t.cy);
  if (dx === s.x - t.x && dy === s.y - t.y) return byBox;
  const byCentre = glyphDiff(r, t, dx, dy);
  return !byBox || (byCentre && byCentre.mad < byBox.mad) ? byCentre : byBox;
}

/** The mean absolute difference of the pixels of glyph `t`'s box (one pixel round) and those `dx`, `dy` away; null off the page. */
function glyphDiff(r: GrayRaster, t: Glyph, dx: number, dy: number): { mad: number; n: number } | null {
  const x0 = t.x - 1;
  const y0 = t.y - 1;
  const x1 = t.x + t.w + 1;
  const y1 = t.y + t.h + 1;
  if (x0 < 0 || y0 < 0 || x1 > r.width || y1 > r.height || x0 + dx < 0 || y0 + dy < 0 || x1 + dx > r.width || y1 + dy > r.height)
    return null;
  const W = r.width;
  const d = r.data;
  let sum = 0;
  for (let y = y0; y < y1; y++) {
    const at = y * W;
    const to = (y + dy) * W + dx;
    for (let x = x0; x < x1; x++) sum += Math.abs(d[at + x] - d[to + x]);
  }
  const n = (x1 - x0) * (y1 - y0);
  return { mad: sum / n, n };
}

/**
 * The glyphs of a word (PDF points, `sx`/`sy` pixels per point): 8-connected runs of pixels darker
 * than halfway from its paper to its ink, at least 45% of the word's height (digits and letters, not
 * commas or points), and the word's window (its box padded by PAD + 3) with the pixels near ink there
 * (within 2 px of a pixel darker than a quarter of the way from paper to ink).
 */
function glyphsOf(r: GrayRaster, sx: number, sy: number, box: Box): WordGlyphs | null {
  const bx0 = Math.max(0, Math.floor(box[0] * sx) - 1);
  const by0 = Math.max(0, Math.floor(box[1] * sy) - 1);
  const bx1 = Math.min(r.width, Math.ceil(box[2] * sx) + 1);
  const by1 = Math.min(r.height, Math.ceil(box[3] * sy) + 1);
  const w = bx1 - bx0;
  const h = by1 - by0;
  if (w < 4 || h < 6) return null;
  const hist = new Uint32Array(256);
  for (let y = by0; y < by1; y++) for (let x = bx0; x < bx1; x++) hist[r.data[y * r.width + x]]++;
  const pct = (p: number) => {
    let s = 0;
    for (let v = 0; v < 256; v++) if ((s += hist[v]) >= p * w * h) return v;
    return 255;
  };
  const dark = pct(0.03);
  const paper = pct(0.8);
  if (paper - dark < 40) return null;
  const half = (paper + dark) / 2;
  const inkThr = paper - 0.25 * (paper - dark);
  // the word's window: its glyphs' surroundings and the shifts' reach, with the ink near them (its neighbours' too)
  const m = PAD + 3;
  const wx = Math.max(0, bx0 - m);
  const wy = Math.max(0, by0 - m);
  const ww = Math.min(r.width, bx1 + m) - wx;
  const wh = Math.min(r.height, by1 + m) - wy;
  const ink = new Uint8Array(ww * wh);
  for (let y = 0; y < wh; y++) {
    const at = (wy + y) * r.width + wx;
    for (let x = 0; x < ww; x++) if (r.data[at + x] < inkThr) ink[y * ww + x] = 1;
  }
  // dark pixels of the box, bordered by a pixel of paper all round (no bounds checks in the fill)
  const bw = w + 2;
  const open = new Uint8Array(bw * (h + 2));
  for (let y = 0; y < h; y++) {
    const at = (by0 + y) * r.width + bx0;
    const to = (y + 1) * bw + 1;
    for (let x = 0; x < w; x++) if (r.data[at + x] < half) open[to + x] = 1;
  }
  const out: Glyph[] = [];
  const stack = new Int32Array(w * h + 1);
  const steps = [-bw - 1, -bw, -bw + 1, -1, 1, bw - 1, bw, bw + 1];
  for (let y = 1; y <= h; y++)
    for (let x = 1; x <= w; x++) {
      const i = y * bw + x;
      if (!open[i]) continue;
      let minX = x;
      let minY = y;
      let maxX = x;
      let maxY = y;
      let area = 0;
      let sumX = 0;
      let sumY = 0;
      let top = 0;
      open[i] = 0;
      stack[top++] = i;
      while (top) {
        const j = stack[--top];
        const jy = (j / bw) | 0;
        const jx = j - jy * bw;
        area++;
        sumX += jx;
        sumY += jy;
        if (jx < minX) minX = jx;
        if (jx > maxX) maxX = jx;
        if (jy < minY) minY = jy;
        if (jy > maxY) maxY = jy;
        for (const d of steps)
          if (open[j + d]) {
            open[j + d] = 0;
            stack[top++] = j + d;
          }
      }
      const gh = maxY - minY + 1;
      const gw = maxX - minX + 1;
      if (gh < 0.45 * h || gw < 2 || area < 12) continue;
      out.push({ x: bx0 + minX - 1, y: by0 + minY - 1, w: gw, h: gh, area, cx: bx0 - 1 + sumX / area, cy: by0 - 1 + sumY / area });
    }
  return { glyphs: out, x: wx, y: wy, w: ww, h: wh, near: dilate2(ink, ww, wh) };
}

/** A word's glyphs and its window, with the pixels near ink in it. */
interface WordGlyphs {
  glyphs: Glyph[];
  x: number;
  y: number;
  w: number;
  h: number;
  near: Uint8Array;
}

/** Pixels within 2 px of a marked one (a 5 x 5 square), as two sliding windows. */
export function dilate2(ink: Uint8Array, w: number, h: number): Uint8Array {
  const across = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    const at = y * w;
    let k = 0;
    for (let x = 0; x < Math.min(2, w); x++) k += ink[at + x];
    for (let x = 0; x < w; x++) {
      if (x + 2 < w) k += ink[at + x + 2];
      if (x - 3 >= 0) k -= ink[at + x - 3];
      across[at + x] = k > 0 ? 1 : 0;
    }
  }
  const near = new Uint8Array(w * h);
  for (let x = 0; x < w; x++) {
    let k = 0;
    for (let y = 0; y < Math.min(2, h); y++) k += across[y * w + x];
    for (let y = 0; y < h; y++) {
      if (y + 2 < h) k += across[(y + 2) * w + x];
      if (y - 3 >= 0) k -= across[(y - 3) * w + x];
      near[y * w + x] = k > 0 ? 1 : 0;
    }
  }
  return near;
}

/**
 * The correlation of the pixels at `at` (page pixel coordinates, x and y in turn) with those `dx`
 * columns and `dy` rows away inside the window `to`, over those not near ink there; null when too few
 * or flat.
 */
function corrAt(
  r: GrayRaster,
  at: Int32Array,
  to: WordGlyphs,
  dx: number,
  dy: number,
  min: number,
  step = 1,
): { corr: number; n: number } | null {
  const W = r.width;
  const d = r.data;
  let n = 0;
  let st = 0;
  let ss = 0;
  let stt = 0;
  let sss = 0;
  let sts = 0;
  for (let k = 0; k < at.length; k += 2 * step) {
    const lx = at[k] + dx - to.x;
    const ly = at[k + 1] + dy - to.y;
    if (lx < 0 || ly < 0 || lx >= to.w || ly >= to.h || to.near[ly * to.w + lx]) continue;
    const u = d[at[k + 1] * W + at[k]];
    const v = d[(ly + to.y) * W + lx + to.x];
    n++;
    st += u;
    ss += v;
    stt += u * u;
    sss += v * v;
    sts += u * v;
  }
  if (n < min) return null;
  const vt = stt - (st * st) / n;
  const vs = sss - (ss * ss) / n;
  if (vt < n * MIN_VAR || vs < n * MIN_VAR) return null;
  return { corr: (sts - (st * ss) / n) / Math.sqrt(vt * vs), n };
}

/**
 * A word whose copy is looked for: an amount, or a number OCR misread as none (a copy's digits are
 * read as well or as badly as its source's: "9;151:10" for 5,151.10), not a date.
 */
const target = (w: { money: boolean; text: string }) =>
  w.money || ((w.text.match(/\d/g)?.length ?? 0) >= 4 && !/[A-Za-z]/.test(w.text) && !/^\d{1,4}[/.-]\d{1,2}[/.-]\d{2,4}$/.test(w.text));

/** The glyphs are alike in size and ink (within a pixel, and a fifth of the ink). */
const alike = (s: Glyph, t: Glyph) =>
  Math.abs(s.w - t.w) <= 1 && Math.abs(s.h - t.h) <= 1 && Math.abs(s.area - t.area) <= 0.2 * Math.max(s.area, t.area);

/**
 * For each amount (`money`, or a number misread) of the given words, the other word whose paper around its glyphs matches
 * the amount's best: the paper pixels (2 px or more from any ink, in both places) around the amount's
 * glyphs, correlated with the pixels at the same place from the other word, at each translation that
 * lays two or more of the amount's glyphs on glyphs of the same size of the other word; and the mean
 * correlation of the page's like glyphs one by one. `scale` is pixels per point (across and down).
 */
export function pageCopies(
  r: GrayRaster,
  scale: number | readonly [number, number],
  words: ReadonlyArray<{ box: Box; money: boolean; text: string }>,
): PageCopies {
  const [sx, sy] = typeof scale === 'number' ? [scale, scale] : scale;
  const byWord = words.map((wd) => (/\d/.test(wd.text) ? glyphsOf(r, sx, sy, wd.box) : null));
  const copies: WordCopy[] = [];
  const glyphCopies: GlyphCopy[] = [];
  // each amount glyph's difference from its nearest like glyph of the page: two prints of one character
  const nearest: number[] = [];
  let glyphPairs = 0;
  let pairs = 0;
  let likeSum = 0;
  let likeN = 0;
  for (let a = 0; a < words.length && pairs < MAX_PAIRS; a++) {
    const wa = byWord[a];
    if (!target(words[a]) || !wa || !wa.glyphs.length) continue;
    // the paper around each of the amount's glyphs (x, y in turn), and around all of them
    const seen = new Uint8Array(wa.w * wa.h);
    const all: number[] = [];
    const around = wa.glyphs.map((g) => {
      const px: number[] = [];
      for (let y = Math.max(wa.y, g.y - PAD); y < Math.min(wa.y + wa.h, g.y + g.h + PAD); y++)
        for (let x = Math.max(wa.x, g.x - PAD); x < Math.min(wa.x + wa.w, g.x + g.w + PAD); x++) {
          const li = (y - wa.y) * wa.w + x - wa.x;
          if (wa.near[li]) continue;
          px.push(x, y);
          if (!seen[li]) {
            seen[li] = 1;
            all.push(x, y);
          }
        }
      return Int32Array.from(px);
    });
    const at = Int32Array.from(all);
    const byOther: Array<{ b: number; corr: number; n: number; glyphs: number }> = [];
    let glyphBest: GlyphCopy | null = null;
    const tMin = new Array<number>(wa.glyphs.length).fill(Infinity);
    for (let b = 0; b < words.length && pairs < MAX_PAIRS; b++) {
      const wb = byWord[b];
      if (!wb || !wb.glyphs.length) continue;
      // translations laying a glyph of the amount on a glyph of the same size, with how many glyphs each lays so
      const shifts = new Map<number, { dx: number; dy: number; glyphs: number }>();
      wa.glyphs.forEach((t, ti) => {
        for (const s of wb.glyphs) {
          if (!alike(s, t) || (Math.abs(s.x - t.x) <= 2 && Math.abs(s.y - t.y) <= 2)) continue;
          // two prints of a glyph: how their paper correlates on the whole (a quarter of the pixels)
          pairs++;
          const like = corrAt(r, around[ti], wb, s.x - t.x, s.y - t.y, LIKE_PIXELS, 4);
          if (like) {
            likeSum += like.corr;
            likeN++;
          }
          // one digit copied over another (of another word, or of the amount itself): the same pixels, its
          // ink and its noise, where two prints differ by the scanner's noise twice
          const diff = glyphPairs++ < MAX_GLYPH_PAIRS ? nearestDiff(r, t, s) : null;
          if (diff) {
            tMin[ti] = Math.min(tMin[ti], diff.mad);
            if (!glyphBest || diff.mad < glyphBest.mad)
              glyphBest = {
                word: a,
                other: b,
                glyph: [t.x / sx, t.y / sy, (t.x + t.w) / sx, (t.y + t.h) / sy],
                source: [s.x / sx, s.y / sy, (s.x + s.w) / sx, (s.y + s.h) / sy],
                mad: diff.mad,
                pixels: diff.n,
              };
          }
          if (b === a) continue;
          const key = (s.x - t.x) * 65536 + (s.y - t.y);
          const e = shifts.get(key);
          if (e) e.glyphs++;
          else shifts.set(key, { dx: s.x - t.x, dy: s.y - t.y, glyphs: 1 });
        }
      });
      let best: { corr: number; n: number; glyphs: number } | null = null;
      for (const { dx, dy, glyphs: k } of shifts.values()) {
        // two glyphs at least laid on two of the same size: a copied amount, not a digit two prints share
        if (k < 2) continue;
        pairs++;
        const c = corrAt(r, at, wb, dx, dy, MIN_PIXELS);
        if (c && (!best || c.corr > best.corr)) best = { ...c, glyphs: k };
      }
      if (best) byOther.push({ b, ...best });
    }
    if (glyphBest) glyphCopies.push(glyphBest);
    for (const m of tMin) if (m < Infinity) nearest.push(m);
    if (byOther.length) {
      byOther.sort((p, q) => q.corr - p.corr);
      const top = byOther[0];
      copies.push({ word: a, other: top.b, corr: top.corr, pixels: top.n, glyphs: top.glyphs, alt: byOther[1]?.corr ?? 0 });
    }
  }
  nearest.sort((p, q) => p - q);
  return {
    copies,
    glyphCopies,
    glyphMedian: nearest.length ? nearest[nearest.length >> 1] : 0,
    pairs,
    likeMean: likeN ? likeSum / likeN : 0,
  };
}
