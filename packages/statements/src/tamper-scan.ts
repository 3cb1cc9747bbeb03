/**
 * Content check of scanned pages (issue 32): an amount pasted into a scan as a patch. A scan's paper
 * carries the scanner's noise everywhere and its ink edges are as soft as its optics; a patch made in
 * an image editor (the new digits typed onto a box of the paper's colour) is cleaner and sharper than
 * every other amount of its page, and one cut from a smaller image and enlarged bends its edges on a
 * pixel grid of its own, and one cut from another JPEG image brings an 8x8 block grid of its own. The
 * pixels of each money-like word (and of the other words of its line) are measured in the raster OCR
 * read, while it is still held (layout.ts, finishJob), and where needed in the page's own image at its
 * own resolution; the findings compare each amount with the other amounts of its column and the words
 * of its row, by median and MAD, needing strong evidence. An amount copied from elsewhere on the page
 * carries its source's noise (tamper-clone.ts). An image of its own laid over the page's (a PDF
 * editor's paste) is named from the file's structure. docs/tamper.md.
 */
import { turnBox } from './deskew';
import type { GrayRaster, ImageOverlay, PageImages } from './extract';
import { blockGrid } from './tamper-blocks';
import { freshRegions, pageHistory } from './tamper-history';
import { dilate2, pageCopies, type GlyphCopy, type WordCopy } from './tamper-clone';
import { isMoney } from './tamper-content';
import type { Line, StatementTransaction, TamperFinding } from './types';
import { sortedNumbers } from './tokens';

type Box = [number, number, number, number];

/** What the pixels of one word show. */
export interface ScanWordStats {
  text: string;
  /** PDF points, origin top-left, as the page's words */
  box: Box;
  /** index of its line on the page */
  line: number;
  money: boolean;
  /** median absolute step between neighbouring paper pixels away from the ink (grey levels); null when too little paper */
  noise: number | null;
  /** the paper's grey level around the glyphs */
  tone: number;
  /** the steepest ink edges' gradient (grey levels per pixel) over the ink/paper contrast: ~1 crisp, ~0.5 a scanner's blur */
  sharp: number | null;
  /** ink/paper contrast (grey levels) */
  contrast: number;
  /** OCR words it was measured over (more than one: neighbours holding digits, joined) */
  parts: number;
  /**
   * How much of the ink's curvature falls on one phase of a 2- or 3-pixel grid (0 evenly spread, 1 all
   * on one phase): an image enlarged by 2 or 3 bends its edges only on the grid of its own pixels, a
   * scan's and a render's bend anywhere. null when too little ink.
   */
  grid: number | null;
  /** the grid score measured in the page's own image at its own resolution (pages whose image the render resampled) */
  nativeGrid?: number | null;
  /** the strength of an 8-pixel block grid other than the page image's own around it (tamper-blocks.ts), where the page's coding lets one show */
  block?: number | null;
}

export interface ScanPageStats {
  /** 0-based page index */
  index: number;
  words: ScanWordStats[];
  /**
   * The page's image was drawn at another resolution than the raster measured (a 300 dpi scan rendered
   * at 200 dpi): the render's resampling bends every word's ink on a grid of its own and smears any a
   * patch had, so the grid signal is measured in the page's own image instead (`nativeGrid`), or left out.
   */
  resampled?: boolean;
  /** the grid was measured again in the page's own image (`nativeGrid`), where the render resampled it */
  nativeGrid?: boolean;
  /** the block grid was measured (`block`): the page image is lossless, at BLOCK_DPI or more */
  blocks?: boolean;
  /**
   * A JPEG of quality about 80 or lower shaped the page (its last save, or an earlier one it shows):
   * its 8-pixel blocks bend the ink on the 2-pixel grid too, so the enlarged-patch grid is not judged
   */
  coarseJpeg?: boolean;
  /**
   * The page image shows a JPEG compression from before its last save (tamper-history.ts): how it is
   * stored now, on how many frequencies the earlier steps show, the regions put in after them (PDF
   * points) with the words read inside, and the share of coefficients off those steps over the rest.
   */
  history?: {
    stored: 'jpeg' | 'lossless';
    steps: number;
    rest: number;
    regions: Array<{ box: Box; blocks: number; off: number; words: Array<{ text: string; box: Box; line: number }> }>;
  };
  /** the page image's filter, when its resources name it (null: stored uncompressed) */
  filter?: string | null;
  /** each amount's best match by the paper around its glyphs (tamper-clone.ts), indices into `words` */
  copies?: WordCopy[];
  /** each amount's nearest single glyph by its pixels (tamper-clone.ts), the glyphs' boxes in PDF points */
  glyphCopies?: GlyphCopy[];
  /** the median difference of the page's pairs of like glyphs (grey levels) */
  glyphMedian?: number;
  /** the mean paper correlation of like glyphs (tamper-clone.ts): high where the paper is shaped by the glyphs, not by noise */
  likeMean?: number;
  /** images drawn over part of the page's scanned image, after it, with the words read inside each */
  overlays?: Array<ImageOverlay & { words: Array<{ text: string; box: Box; line: number }> }>;
}

/** Words of a line measured at most (a line with an amount: its other words are the row's reference). */
const LINE_WORDS = 16;

/**
 * Measures one word's box (PDF points) in a raster of `scale` pixels per point (across and down, where
 * a page image's pixels are not square on the page).
 */
export function wordPixelStats(
  r: GrayRaster,
  scale: number | readonly [number, number],
  box: Box,
): Omit<ScanWordStats, 'text' | 'box' | 'line' | 'money' | 'parts'> | null {
  const [sx, sy] = typeof scale === 'number' ? [scale, scale] : scale;
  const hpx = (box[3] - box[1]) * sy;
  if (hpx < 6) return null;
  const pad = Math.round(Math.min(6, Math.max(2, 0.25 * hpx)));
  const x0 = Math.max(0, Math.floor(box[0] * sx) - pad);
  const y0 = Math.max(0, Math.floor(box[1] * sy) - pad);
  const x1 = Math.min(r.width, Math.ceil(box[2] * sx) + pad);
  const y1 = Math.min(r.height, Math.ceil(box[3] * sy) + pad);
  const w = x1 - x0;
  const h = y1 - y0;
  if (w < 4 || h < 4) return null;
  const hist = new Uint32Array(256);
  for (let y = y0; y < y1; y++) {
    const row = y * r.width;
    for (let x = x0; x < x1; x++) hist[r.data[row + x]]++;
  }
  const n = w * h;
  const pct = (p: number) => {
    const want = p * n;
    let s = 0;
    for (let v = 0; v < 256; v++) {
      s += hist[v];
      if (s >= want) return v;
    }
    return 255;
  };
  const ink = pct(0.03);
  const paper = pct(0.8);
  const contrast = paper - ink;
  if (contrast < 40) return null;
  // ink: darker than a quarter of the way from paper to ink; paper pixels are those 2 px or more from any ink
  const thr = paper - 0.25 * contrast;
  const near = nearInk(r, x0, y0, w, h, thr);
  // the median step: robust to a JPEG's ringing beside the glyphs and to specks
  const stepHist = new Uint32Array(256);
  let pairs = 0;
  const bg = new Uint32Array(256);
  let bgN = 0;
  // the ink edges' gradients as a histogram (whole grey levels): the steepest quarter without a sort
  const grads = new Uint32Array(256);
  let edges = 0;
  const edge = 0.2 * contrast;
  for (let y = 0; y < h; y++) {
    const row = (y + y0) * r.width + x0;
    for (let x = 0; x < w; x++) {
      const v = r.data[row + x];
      if (!near[y * w + x]) {
        bg[v]++;
        bgN++;
        if (x + 1 < w && !near[y * w + x + 1]) {
          stepHist[Math.abs(r.data[row + x + 1] - v)]++;
          pairs++;
        }
      }
      const gx = x + 1 < w ? Math.abs(r.data[row + x + 1] - v) : 0;
      const gy = y + 1 < h ? Math.abs(r.data[row + r.width + x] - v) : 0;
      const g = gx > gy ? gx : gy;
      if (g >= edge) {
        grads[g]++;
        edges++;
      }
    }
  }
  let tone = paper;
  if (bgN) {
    let s = 0;
    for (let v = 0; v < 256; v++) {
      s += bg[v];
      if (s >= bgN / 2) {
        tone = v;
        break;
      }
    }
  }
  let sharp: number | null = null;
  if (edges >= 8) {
    const want = Math.max(4, edges >> 2);
    let left = want;
    let sum = 0;
    for (let v = 255; v >= 0 && left > 0; v--) {
      const k = Math.min(left, grads[v]);
      sum += k * v;
      left -= k;
    }
    sharp = sum / want / contrast;
  }
  let noise: number | null = null;
  if (pairs >= 40) {
    // the median of the steps, interpolated within its grey level (steps are whole levels)
    let below = 0;
    for (let v = 0; v < 256; v++) {
      if (below + stepHist[v] >= pairs / 2) {
        noise = v + (pairs / 2 - below) / stepHist[v] - 0.5;
        break;
      }
      below += stepHist[v];
    }
    noise = Math.max(0, noise ?? 0);
  }
  return { noise, tone, sharp, contrast, grid: gridPhase(r, x0, y0, w, h, near) };
}

/**
 * The pixels of a box (`w` x `h` at `x0`, `y0`) within 2 px of an ink pixel (darker than `thr`), in
 * both directions: the ink dilated by a 5 x 5 square, as two sliding windows (along the rows, then
 * down the columns).
 */
function nearInk(r: GrayRaster, x0: number, y0: number, w: number, h: number, thr: number): Uint8Array {
  const ink = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    const at = (y + y0) * r.width + x0;
    for (let x = 0; x < w; x++) if (r.data[at + x] < thr) ink[y * w + x] = 1;
  }
  return dilate2(ink, w, h);
}

/** Grid periods an enlargement leaves (by 2, by 3). */
const PERIODS = [2, 3] as const;

/**
 * How much of the ink's curvature falls on one phase of a 2- or 3-pixel grid, scaled so that an even
 * spread is 0 and all of it on one phase is 1 (the lower of the two axes; the highest over the
 * periods and the two orders of difference). An image enlarged by interpolation is made of straight
 * ramps between its own pixels: its second differences (pixel-aligned enlargement) or third
 * differences (centre-aligned, as image editors do it) vanish on all but one phase of its grid, in
 * both axes. A scanner's and a renderer's edges fall anywhere.
 */
function gridPhase(r: GrayRaster, x0: number, y0: number, w: number, h: number, near: Uint8Array): number | null {
  // energy by phase of a 6-pixel grid (both periods' phases follow from it): second and third
  // differences, along the rows (by x) and down the columns (by y); sums of squared whole numbers,
  // exact in any order
  const d2h = new Float64Array(6);
  const d2v = new Float64Array(6);
  const d3h = new Float64Array(6);
  const d3v = new Float64Array(6);
  let count = 0;
  const W = r.width;
  const d = r.data;
  for (let y = 2; y < h - 2; y++) {
    const at = (y + y0) * W + x0;
    const py = (y + y0) % 6;
    let px = (2 + x0) % 6;
    for (let x = 2; x < w - 2; x++, px = px === 5 ? 0 : px + 1) {
      if (!near[y * w + x]) continue;
      count++;
      const i = at + x;
      const v = d[i];
      const a = d[i - 1] + d[i + 1] - 2 * v;
      const b = d[i - W] + d[i + W] - 2 * v;
      const c = d[i + 2] - 3 * d[i + 1] + 3 * v - d[i - 1];
      const e = d[i + 2 * W] - 3 * d[i + W] + 3 * v - d[i - W];
      d2h[px] += a * a;
      d2v[py] += b * b;
      d3h[px] += c * c;
      d3v[py] += e * e;
    }
  }
  if (count < 60) return null;
  let best = 0;
  for (const [h6, v6] of [
    [d2h, d2v],
    [d3h, d3v],
  ])
    for (const k of PERIODS) best = Math.max(best, Math.min(phaseShare(h6, k), phaseShare(v6, k)));
  return best;
}

/** From energies by phase of a 6-pixel grid, the share on the strongest phase of period `k` (2 or 3), scaled: 0 even, 1 all on one. */
function phaseShare(by6: Float64Array, k: number): number {
  let sum = 0;
  let top = 0;
  for (let p = 0; p < k; p++) {
    let e = 0;
    for (let q = p; q < 6; q += k) e += by6[q];
    sum += e;
    if (e > top) top = e;
  }
  return sum > 0 ? (k * (top / sum) - 1) / (k - 1) : 0;
}

/** The pixel statistics of a whole-page OCR reading: the money words and the other words of their lines. */
export function scanPageStats(
  r: GrayRaster,
  scale: number,
  lines: Line[],
  index: number,
  resampled = false,
  images?: PageImages,
  native?: GrayRaster | null,
  skew = 0,
): ScanPageStats {
  const words: ScanWordStats[] = [];
  lines.forEach((l, li) => {
    if (!l.words.some((w) => isMoney(w.text))) return;
    for (const g of digitGroups(l.words.slice(0, LINE_WORDS))) {
      const s = wordPixelStats(r, scale, g.box);
      if (s) words.push({ text: g.text, box: g.box, line: li, money: g.parts === 1 && isMoney(g.text), parts: g.parts, ...s });
    }
  });
  const out: ScanPageStats = resampled ? { index, words, resampled } : { index, words };
  // amounts copied within the scan (only where the paper carries noise to tell a copy by): in the page
  // image's own pixels where the render resampled it (a copy is exact there, its source and it
  // resampled at different phases in the render)
  const own = resampled && !skew && native && images?.scale && images.origin ? { scale: images.scale, origin: images.origin } : null;
  const copied = !noisyPaper(words)
    ? null
    : own
      ? pageCopies(
          native!,
          own.scale,
          words.map((w) => ({ ...w, box: inImage(w.box, own.origin) })),
        )
      : pageCopies(r, scale, words);
  if (copied) {
    out.copies = copied.copies;
    out.likeMean = copied.likeMean;
    // the glyphs' boxes back on the page, from the image's frame
    const back = (b: Box): Box => (own ? [b[0] + own.origin[0], b[1] + own.origin[1], b[2] + own.origin[0], b[3] + own.origin[1]] : b);
    out.glyphCopies = copied.glyphCopies.map((g) => ({ ...g, glyph: back(g.glyph), source: back(g.source) }));
    out.glyphMedian = copied.glyphMedian;
  }
  if (images?.scale) {
    out.filter = images.filter;
    out.overlays = images.overlays.map((o) => ({
      ...o,
      words: lines.flatMap((l, li) =>
        l.words
          .filter((w) => inside(o.box, [w.x0, w.y0, w.x1, w.y1]))
          .map((w) => ({ text: w.text, box: [w.x0, w.y0, w.x1, w.y1] as Box, line: li })),
      ),
    }));
  }
  if (native && !skew && images?.scale && images.origin) {
    const [sx, sy] = images.scale;
    // the enlarged-patch grid in the image's own pixels: an editor enlarges a patch on the image's
    // pixel grid, whatever the image's resolution across and down on the page
    const regrid = resampled;
    const blocks = blockGridJudged(images);
    for (const w of words) {
      const at = inImage(w.box, images.origin);
      if (regrid) w.nativeGrid = wordPixelStats(native, [sx, sy], at)?.grid ?? null;
      if (blocks) w.block = blockGrid(native, [at[0] * sx, at[1] * sy, at[2] * sx, at[3] * sy]);
    }
    if (regrid) out.nativeGrid = true;
    if (blocks) out.blocks = true;
  }
  // a JPEG of quality about 80 or lower: the page image's own table, where it is stored as JPEG and the
  // table was read (and an earlier compression's steps, below, where the history check finds them)
  if (images?.filter === 'DCTDecode' && (images.quant?.[1] ?? 0) >= COARSE_JPEG_STEP) out.coarseJpeg = true;
  // an earlier JPEG compression the page went through before its last save, read in the image's own
  // pixels on its own 8x8 grid: the page image decoded, or the render where it is those very pixels. On a
  // page straightened before OCR (turned by `skew` degrees) the words sit on the straightened page: boxes
  // go between the two frames turned about the page's centre
  const own8 = images && historyJudged(images) ? (native ?? (!skew && !resampled && renderIsImage(r, scale, images) ? r : null)) : null;
  if (own8 && images?.scale && images.origin) {
    const [sx, sy] = native ? images.scale : [scale, scale];
    const size: [number, number] = [r.width / scale, r.height / scale];
    const px = (b: Box): Box => {
      const at = native ? inImage(turnBox(b, skew, size, true), images.origin!) : b;
      return [at[0] * sx, at[1] * sy, at[2] * sx, at[3] * sy];
    };
    const h = pageHistory(
      own8,
      images.filter === 'DCTDecode' ? images.quant! : null,
      words.map((w) => px(w.box)),
    );
    const earlier = h?.steps.find((st) => st.freq === 1)?.step ?? 0;
    if (earlier >= COARSE_JPEG_STEP) out.coarseJpeg = true;
    const fresh = h && freshRegions(h);
    if (h && fresh) {
      // back to the page: PDF points, from the image's pixels
      const pt = (b: readonly number[]): Box => {
        const o = native ? images.origin! : [0, 0];
        return turnBox([b[0] / sx + o[0], b[1] / sy + o[1], b[2] / sx + o[0], b[3] / sy + o[1]], skew, size);
      };
      out.history = {
        stored: images.filter === 'DCTDecode' ? 'jpeg' : 'lossless',
        steps: h.steps.length,
        rest: fresh.rest,
        regions: fresh.regions.map((g) => {
          const box = pt(g.box);
          return {
            box,
            blocks: g.blocks,
            off: g.off,
            words: lines.flatMap((l, li) =>
              l.words
                .filter((w) => inside(box, [w.x0, w.y0, w.x1, w.y1]))
                .map((w) => ({ text: w.text, box: [w.x0, w.y0, w.x1, w.y1] as Box, line: li })),
            ),
          };
        }),
      };
    }
  }
  return out;
}

/** The page image's coding lets an earlier JPEG compression show: lossless, or JPEG with its table read. */
export function historyJudged(images: PageImages): boolean {
  if (images.filter === undefined || !images.scale || !images.origin) return false;
  return images.filter === 'DCTDecode' ? !!images.quant : LOSSLESS.has(images.filter);
}

/** The render is the page image's own pixels: drawn from the page's corner at the render's own resolution, pixel for pixel. */
function renderIsImage(r: GrayRaster, scale: number, images: PageImages): boolean {
  return (
    !!images.scale &&
    !!images.origin &&
    !!images.pixels &&
    images.pixels[0] === r.width &&
    images.pixels[1] === r.height &&
    images.scale.every((s) => Math.abs(s / scale - 1) < 1e-4) &&
    images.origin.every((o) => Math.abs(o) < 1e-3)
  );
}

/** A box on the page (PDF points) in the page image's own frame, the image drawn from `origin`. */
const inImage = (b: Box, origin: readonly [number, number]): Box => [
  b[0] - origin[0],
  b[1] - origin[1],
  b[2] - origin[0],
  b[3] - origin[1],
];

/**
 * The first horizontal frequency's JPEG step from which a compression shapes the ink on the 2-pixel
 * grid (IJG quality 75 uses 6, 85 uses 3): an unedited amount read 0.30 and 0.31 on such pages of the
 * scan bench (seed 7), against the enlarged rule's 0.3.
 */
const COARSE_JPEG_STEP = 5;

/** Lossless filters: nothing smooths a patch's block grid away. */
const LOSSLESS = new Set<string | null>([null, 'FlateDecode', 'LZWDecode', 'RunLengthDecode']);

/**
 * The page image's own resolution (dots per inch) from which a word holds blocks enough to read a grid
 * on: at 200 dpi the page's own words reach a patch's figures (docs/tamper.md, "JPEG block grids").
 */
export const BLOCK_DPI = 280;

/**
 * The page image lets a pasted patch's JPEG block grid show: kept lossless, at BLOCK_DPI or more (a
 * page saved as JPEG again, even at quality 95, smooths the patch's grid down to its own words' level).
 */
export function blockGridJudged(images: PageImages): boolean {
  if (images.filter === undefined || !images.scale || Math.min(...images.scale) * 72 < BLOCK_DPI) return false;
  return LOSSLESS.has(images.filter);
}

/** The largest page image decoded a second time for the scan checks (a Letter page at 600 dpi is 33.7 million pixels). */
const MAX_NATIVE_PIXELS = 40e6;

/** The page's own image has to be decoded for the scan checks: its grid is measured again there, its block grid is judged, or an earlier JPEG compression is read where the render is not its pixels (on a page straightened before OCR, only that); not an image too large. */
export function needsPageImage(images: PageImages, renderScale: number, deskewed = false): boolean {
  if (!images.scale || !images.origin || !images.pixels || images.pixels[0] * images.pixels[1] > MAX_NATIVE_PIXELS) return false;
  // a page straightened before OCR: its words are not where the image put them, and only the earlier
  // compression, read block by block on the image's own grid, is turned into their frame
  if (deskewed) return historyJudged(images);
  // the enlarged-patch grid is measured again where the render resampled the image
  const regrid = images.scale.some((s) => Math.abs(s / renderScale - 1) > 0.01);
  // an earlier JPEG compression is read on the image's own 8x8 grid: decoded where the render is not those pixels
  const exact = images.scale.every((s) => Math.abs(s / renderScale - 1) < 1e-4) && images.origin.every((o) => Math.abs(o) < 1e-3);
  return regrid || blockGridJudged(images) || (historyJudged(images) && !exact);
}

/** The word's centre lies in the box. */
const inside = (b: Box, w: Box) => {
  const cx = (w[0] + w[2]) / 2;
  const cy = (w[1] + w[3]) / 2;
  return cx >= b[0] && cx <= b[2] && cy >= b[1] && cy <= b[3];
};

/**
 * The words of a line, with neighbours that both hold a digit (and neither is an amount) joined into
 * one: OCR splits a number whose digits look unlike the rest ("8.051" "338" for 8,051.33), and a patch
 * is measured whole.
 */
function digitGroups(ws: Line['words']): Array<{ text: string; box: Box; parts: number }> {
  const out: Array<{ text: string; box: Box; parts: number; joinable: boolean }> = [];
  for (const w of ws) {
    const joinable = /\d/.test(w.text) && !isMoney(w.text);
    const last = out[out.length - 1];
    const h = w.y1 - w.y0;
    if (last?.joinable && joinable && w.x0 - last.box[2] <= 0.6 * h) {
      last.text += ` ${w.text}`;
      last.box = [Math.min(last.box[0], w.x0), Math.min(last.box[1], w.y0), Math.max(last.box[2], w.x1), Math.max(last.box[3], w.y1)];
      last.parts++;
    } else out.push({ text: w.text, box: [w.x0, w.y0, w.x1, w.y1], parts: 1, joinable });
  }
  return out;
}

const median = (xs: number[]) => {
  const s = sortedNumbers(xs);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const mad = (xs: number[], med: number) => median(xs.map((x) => Math.abs(x - med)));

/** Money words of a page needed to tell what its amounts look like. */
const MIN_AMOUNTS = 6;
/** The block grid rule: at least this strength, and this far above the other amounts' median and the row's words'. */
const BLOCK_MIN = 0.09;
const BLOCK_ABOVE = 0.05;

interface Signal {
  what: 'cleaner' | 'noisier' | 'sharper' | 'softer' | 'lighter' | 'darker' | 'enlarged' | 'blocks';
  detail: string;
}

const f1 = (n: number) => n.toFixed(1);
const f2 = (n: number) => n.toFixed(2);
const pct = (n: number) => `${Math.round(n * 100)}%`;
const r1 = (n: number) => Math.round(n * 10) / 10;

/** " (row 3: 2026-04-08, SALARY ...)" for a row of the transactions, "" for none. */
const rowLabel = (txs: StatementTransaction[], i: number | null) =>
  i === null ? '' : ` (row ${i + 1}: ${txs[i].date}${txs[i].description ? `, ${txs[i].description.slice(0, 40)}` : ''})`;

function rowOf(txs: StatementTransaction[], page: number, box: Box): number | null {
  const cx = (box[0] + box[2]) / 2;
  const cy = (box[1] + box[3]) / 2;
  for (let i = 0; i < txs.length; i++) {
    const s = txs[i].source;
    if (s?.page !== page) continue;
    if (s.boxes.some((b) => cx >= b[0] - 2 && cx <= b[2] + 2 && cy >= b[1] - 1.5 && cy <= b[3] + 1.5)) return i;
  }
  return null;
}

/**
 * Findings of kind `pasted_patch`: an amount whose paper noise, edge sharpness or paper tone stands
 * out from the other amounts of its column (or page) and from the other words of its row. One signal
 * is medium, two are high.
 */
export function scanFindings(
  pages: Iterable<ScanPageStats>,
  txs: StatementTransaction[],
  arithmeticRows: ReadonlySet<number> = new Set(),
): TamperFinding[] {
  const out: TamperFinding[] = [];
  for (const p of pages) {
    const page = p.index + 1;
    out.push(...overlayFindings(p, txs), ...copyFindings(p, txs, arithmeticRows), ...historyFindings(p, txs));
    const money = p.words.filter((w) => w.money);
    if (money.length < MIN_AMOUNTS) continue;
    const inColumn = (w: ScanWordStats) => money.filter((o) => Math.abs(o.box[2] - w.box[2]) <= 6).length >= 1;
    // a value OCR did not read as an amount: in a column of amounts, or a number it split in two
    const misread = p.words.filter(
      (w) => !w.money && w.text.length >= 4 && (/\d.*\d/.test(w.text) ? inColumn(w) || (w.parts > 1 && /(\d.*){3}/.test(w.text)) : false),
    );
    for (const t of [...money, ...misread]) {
      // the reference: the other amounts of its column (right edges within 6 pt) when there are enough, else of the page
      const others = money.filter((o) => o !== t);
      const col = others.filter((o) => Math.abs(o.box[2] - t.box[2]) <= 6);
      const ref = col.length >= MIN_AMOUNTS - 1 ? col : others;
      const where = ref === col ? 'its column' : 'its page';
      const row = p.words.filter((o) => o.line === t.line && o !== t && !o.money);
      const signals: Signal[] = [];
      // paper noise
      const noises = ref.map((o) => o.noise).filter((x): x is number => x !== null);
      if (t.noise !== null && noises.length >= MIN_AMOUNTS - 1) {
        const med = median(noises);
        const spread = Math.max(1.4826 * mad(noises, med), 0.1 * med, 0.15);
        const rowN = row.map((o) => o.noise).filter((x): x is number => x !== null);
        const rowMed = rowN.length ? median(rowN) : null;
        if (med >= 0.8 && t.noise <= 0.5 * med && med - t.noise >= 4 * spread && (rowMed === null || t.noise <= 0.6 * rowMed))
          signals.push({
            what: 'cleaner',
            detail: `paper noise ${f1(t.noise)} against ${f1(med)}${rowMed !== null ? ` (its row's words ${f1(rowMed)})` : ''}`,
          });
        else if (med >= 0.8 && t.noise >= 2.5 * med && t.noise - med >= 4 * spread && (rowMed === null || t.noise >= 2 * rowMed))
          signals.push({
            what: 'noisier',
            detail: `paper noise ${f1(t.noise)} against ${f1(med)}${rowMed !== null ? ` (its row's words ${f1(rowMed)})` : ''}`,
          });
      }
      // edge sharpness
      const sharps = ref.map((o) => o.sharp).filter((x): x is number => x !== null);
      if (t.sharp !== null && sharps.length >= MIN_AMOUNTS - 1) {
        const med = median(sharps);
        const spread = Math.max(1.4826 * mad(sharps, med), 0.06 * med);
        const rowS = row.map((o) => o.sharp).filter((x): x is number => x !== null);
        const rowMed = rowS.length ? median(rowS) : null;
        if (t.sharp >= 1.4 * med && t.sharp - med >= 4 * spread && (rowMed === null || t.sharp >= 1.3 * rowMed))
          signals.push({
            what: 'sharper',
            detail: `edge sharpness ${f2(t.sharp)} against ${f2(med)}${rowMed !== null ? ` (its row's words ${f2(rowMed)})` : ''}`,
          });
        else if (t.sharp <= 0.55 * med && med - t.sharp >= 4 * spread && (rowMed === null || t.sharp <= 0.65 * rowMed))
          signals.push({
            what: 'softer',
            detail: `edge sharpness ${f2(t.sharp)} against ${f2(med)}${rowMed !== null ? ` (its row's words ${f2(rowMed)})` : ''}`,
          });
      }
      // paper tone
      const tones = ref.map((o) => o.tone);
      {
        const med = median(tones);
        const spread = Math.max(1.4826 * mad(tones, med), 2);
        const rowMed = row.length ? median(row.map((o) => o.tone)) : null;
        const d = t.tone - med;
        // only beside the row's own words: a shaded row (zebra stripes) shades them too
        if (
          rowMed !== null &&
          Math.abs(d) >= Math.max(12, 4 * spread) &&
          Math.abs(t.tone - rowMed) >= 10 &&
          Math.sign(t.tone - rowMed) === Math.sign(d)
        )
          signals.push({
            what: d > 0 ? 'lighter' : 'darker',
            detail: `paper tone ${t.tone} against ${f1(med)} (its row's words ${f1(rowMed)})`,
          });
      }
      // a grid of its own: an enlarged patch (the others' ink bends anywhere), in the render's pixels or,
      // where the render resampled the page's image, in the image's own
      const gridOf = (w: ScanWordStats) => (p.nativeGrid ? (w.nativeGrid ?? null) : w.grid);
      const grids = ref.map(gridOf).filter((x): x is number => x !== null);
      const tg = gridOf(t);
      if ((!p.resampled || p.nativeGrid) && !p.coarseJpeg && tg !== null && grids.length >= MIN_AMOUNTS - 1) {
        const med = median(grids);
        const spread = Math.max(1.4826 * mad(grids, med), 0.02);
        const rowG = row.map(gridOf).filter((x): x is number => x !== null);
        const rowMed = rowG.length ? median(rowG) : null;
        if (tg >= 0.3 && tg - med >= Math.max(4 * spread, 0.2) && (rowMed === null || tg - rowMed >= 0.2))
          signals.push({
            what: 'enlarged',
            detail: `its ink bends on a grid of 2 or 3 pixels, as an enlarged image's does (grid score ${f2(tg)} against ${f2(med)}${rowMed !== null ? `; its row's words ${f2(rowMed)}` : ''}${p.nativeGrid ? ", in the page image's own pixels" : ''})`,
          });
      }
      // a JPEG block grid of its own: a patch cut from another JPEG image
      const blocks = ref.map((o) => o.block).filter((x): x is number => x !== null && x !== undefined);
      if (p.blocks && t.block !== null && t.block !== undefined && blocks.length >= MIN_AMOUNTS - 1) {
        const med = median(blocks);
        const spread = Math.max(1.4826 * mad(blocks, med), 0.02);
        const rowB = row.map((o) => o.block).filter((x): x is number => x !== null && x !== undefined);
        const rowMed = rowB.length ? median(rowB) : null;
        if (
          t.block >= BLOCK_MIN &&
          t.block - med >= Math.max(4 * spread, BLOCK_ABOVE) &&
          (rowMed === null || t.block - rowMed >= BLOCK_ABOVE)
        )
          signals.push({
            what: 'blocks',
            detail: `the paper around it steps on an 8-pixel grid other than the page image's, as a patch cut from another JPEG image does (block grid ${f2(t.block)} against ${f2(med)}${rowMed !== null ? `; its row's words ${f2(rowMed)}` : ''})`,
          });
      }
      if (!signals.length) continue;
      const rowIx = rowOf(txs, page, t.box);
      const label = rowLabel(txs, rowIx);
      const words = signals.map((s) => s.what).filter((w) => w !== 'enlarged' && w !== 'blocks');
      const how = words.length
        ? `is ${words.length > 1 ? `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}` : words[0]} than`
        : 'stands out from';
      out.push({
        kind: 'pasted_patch',
        category: 'content',
        severity: signals.length >= 2 ? 'high' : 'medium',
        page,
        boxes: [[r1(t.box[0]), r1(t.box[1]), r1(t.box[2]), r1(t.box[3])]],
        row: rowIx,
        message: `page ${page}: ${t.money ? `the amount ${t.text}` : t.parts > 1 ? `the number read as "${t.text}" (OCR split it)` : `the value read as "${t.text}" in a column of amounts`} ${how} the other ${ref.length} amounts of ${where}: ${signals.map((s) => s.detail).join('; ')}, as a patch pasted into the scan is${label}`,
      });
    }
  }
  return out;
}

/** The page's amounts' paper carries a scanner's noise (median at least 0.8): a copy can be told by it. */
function noisyPaper(words: ScanWordStats[]): boolean {
  const noises = words.filter((w) => w.money && w.noise !== null).map((w) => w.noise!);
  return noises.length >= MIN_AMOUNTS && median(noises) >= 0.8;
}

/** The copy rule: the paper's correlation, how far above the amount's next best match and the page's other pairs, the pixels it needs. */
const COPY_CORR = 0.45;
const COPY_ABOVE = 0.2;
const COPY_PIXELS = 150;
/** The mean paper correlation of like glyphs above which the page's paper is shaped by its glyphs: no copy can be told there. */
const COPY_LIKE_MEAN = 0.025;
/**
 * The one-glyph copy rule: the glyph's pixels differ from another's by at most this share of the
 * page's median difference of like glyphs (two prints: the scanner's noise twice, 4.1 to 5.2 grey levels
 * on the bench's pages; a copy on a lossless page 0 to 0.8), every other pair of the page differs by
 * this many grey levels more, the box holds this many pixels, and both words carry the page's noise.
 * High at or below the lower share.
 */
const GLYPH_SHARE = 0.35;
const GLYPH_SAME = 0.15;
const GLYPH_GAP = 2;
const GLYPH_PIXELS = 100;
/** Both words' paper at least this share as noisy as the page's amounts' (median). */
const GLYPH_NOISE = 0.5;

/**
 * A copy and its source (words of the page, by index) and their rows; the pixels cannot tell which is
 * the copy, the arithmetic can where it breaks at one of the two rows (`copyRow`).
 */
function pairRows(p: ScanPageStats, txs: StatementTransaction[], arithmeticRows: ReadonlySet<number>, word: number, other: number) {
  const t = p.words[word];
  const s = p.words[other];
  const rowT = rowOf(txs, p.index + 1, t.box);
  const rowS = rowOf(txs, p.index + 1, s.box);
  const broken = [rowT, rowS].filter((i): i is number => i !== null && arithmeticRows.has(i));
  return { t, s, rowT, rowS, copyRow: broken.length === 1 ? broken[0] : null };
}

/**
 * Findings of kind `pasted_patch` for an amount copied within the scan: the paper around its glyphs
 * matches another word's (tamper-clone.ts) far above its match with any third word and above every
 * other pair of the page, on a page whose paper carries a scanner's noise (a page rasterised from a
 * digital file prints every digit alike, and its paper has no noise to tell a copy by) and where two
 * prints of a glyph do not correlate on the whole (where the paper around like glyphs is shaped by
 * the glyphs, two amounts that share their last digits match as a copy would).
 */
function copyFindings(p: ScanPageStats, txs: StatementTransaction[], arithmeticRows: ReadonlySet<number>): TamperFinding[] {
  const copies = p.copies ?? [];
  if (!noisyPaper(p.words) || (p.likeMean ?? 1) > COPY_LIKE_MEAN) return [];
  const out: TamperFinding[] = [];
  const done = new Set<string>();
  const page = p.index + 1;
  const what = (w: ScanWordStats) => (w.money ? `the amount ${w.text}` : `the number read as "${w.text}"`);
  for (const c of copies) {
    if (c.corr < COPY_CORR || c.pixels < COPY_PIXELS || c.corr - c.alt < COPY_ABOVE) continue;
    const key = [Math.min(c.word, c.other), Math.max(c.word, c.other)].join(':');
    if (done.has(key)) continue;
    const rest = copies.filter((o) => o.word !== c.word && o.word !== c.other && o.other !== c.word && o.other !== c.other);
    const page2 = rest.length ? Math.max(...rest.map((o) => o.corr)) : 0;
    if (c.corr - page2 < COPY_ABOVE) continue;
    done.add(key);
    const { t, s, rowT, rowS, copyRow } = pairRows(p, txs, arithmeticRows, c.word, c.other);
    out.push({
      kind: 'pasted_patch',
      category: 'content',
      severity: c.corr >= 0.6 ? 'high' : 'medium',
      page,
      boxes: [t.box, s.box].map((b) => [r1(b[0]), r1(b[1]), r1(b[2]), r1(b[3])] as Box),
      row: copyRow ?? rowT ?? rowS,
      message: `page ${page}: ${what(t)}${rowLabel(txs, rowT)} and ${what(s)}${rowLabel(txs, rowS)} carry the same paper: the scanner's noise around ${c.glyphs} of their characters matches pixel for pixel (correlation ${f2(c.corr)} over ${c.pixels} pixels, where ${t.money ? 'the amount' : 'the number'} matches no other word above ${f2(Math.max(0, c.alt))} and the page's other amounts none above ${f2(Math.max(0, page2))}): a scanner never puts the same noise on two places, so one was copied over the other in an image editor${copyRow !== null ? `; the arithmetic breaks at row ${copyRow + 1}, so that is likely the copy` : ''}`,
    });
  }
  // one digit copied over another: a single glyph of the amount is another glyph's pixels, ink and noise
  const glyphs = p.glyphCopies ?? [];
  const med = p.glyphMedian ?? 0;
  // glyphs alike for want of noise (a patch typed without any: its digits are drawn alike) are no copy
  const pageNoise = median(p.words.filter((w) => w.money && w.noise !== null).map((w) => w.noise!));
  const quiet = (i: number) => (p.words[i].noise ?? 0) < GLYPH_NOISE * pageNoise;
  for (const g of glyphs) {
    if (!med || g.mad > GLYPH_SHARE * med || g.pixels < GLYPH_PIXELS || quiet(g.word) || quiet(g.other)) continue;
    const key = [Math.min(g.word, g.other), Math.max(g.word, g.other)].join(':');
    if (done.has(key)) continue;
    const rest = glyphs.filter((o) => o.word !== g.word && o.word !== g.other && o.other !== g.word && o.other !== g.other);
    const next = rest.length ? Math.min(...rest.map((o) => o.mad)) : med;
    if (next - g.mad < GLYPH_GAP) continue;
    done.add(key);
    const { t, s, rowT, rowS, copyRow } = pairRows(p, txs, arithmeticRows, g.word, g.other);
    const source = g.other === g.word ? `another of the same ${t.money ? 'amount' : 'number'}` : `one of ${what(s)}${rowLabel(txs, rowS)}`;
    out.push({
      kind: 'pasted_patch',
      category: 'content',
      severity: g.mad <= GLYPH_SAME * med ? 'high' : 'medium',
      page,
      boxes: [g.glyph, g.source].map((b) => [r1(b[0]), r1(b[1]), r1(b[2]), r1(b[3])] as Box),
      row: copyRow ?? rowT ?? rowS,
      message: `page ${page}: a character of ${what(t)}${rowLabel(txs, rowT)} and ${source} are the same pixels: they differ by ${f2(g.mad)} grey levels on average over ${g.pixels} pixels, where two prints of one character on this page differ by ${f1(med)} (the median) and no other pair by less than ${f1(next)}: a scanner never prints a character twice with the same noise, so one was copied over the other in an image editor${copyRow !== null ? `; the arithmetic breaks at row ${copyRow + 1}, so that is likely the copy` : ''}`,
    });
  }
  return out;
}

/** A filter's name as a person knows the encoding. */
function encodingName(filter: string | null | undefined): string | null {
  if (filter === undefined) return null;
  if (filter === null) return 'uncompressed';
  const names: Record<string, string> = {
    DCTDecode: 'JPEG',
    FlateDecode: 'Flate, lossless',
    JPXDecode: 'JPEG 2000',
    JBIG2Decode: 'JBIG2',
    CCITTFaxDecode: 'CCITT fax',
    LZWDecode: 'LZW, lossless',
    RunLengthDecode: 'run-length',
  };
  return names[filter] ?? filter;
}

/** Overlays on one page at most: a page cut into more images is a scanner's or a compressor's own layout (mixed raster content). */
const MAX_OVERLAYS = 3;

/** A word read inside a box of the page (an image laid over it, a region put in after the scanner's JPEG). */
type BoxWord = { text: string; box: Box; line: number };

/**
 * What a finding over `box` names, from the `words` read inside it: the word with a digit (an amount
 * first) and how many more, then `verbs.one`; else the words, if any, as the table's, then
 * `verbs.many`; else `verbs.none`, the whole phrase. Null where the box holds no word with a digit and
 * lies outside the page's table of amounts (the lines of its money words): nothing in the margins.
 */
function boxSubject(
  p: ScanPageStats,
  box: Box,
  words: readonly BoxWord[],
  verbs: { one: string; many: string; none: string },
): { shown: BoxWord | undefined; what: string } | null {
  const amountLines = p.words.filter((w) => w.money);
  const top = Math.min(...amountLines.map((w) => w.box[1]));
  const bottom = Math.max(...amountLines.map((w) => w.box[3]));
  const digits = words.filter((w) => /\d/.test(w.text));
  const inTable = amountLines.length > 0 && box[3] >= top && box[1] <= bottom;
  if (!digits.length && !inTable) return null;
  const shown = digits.find((w) => isMoney(w.text)) ?? digits[0];
  const what = shown
    ? `${isMoney(shown.text) ? `the amount ${shown.text}` : `"${shown.text}"`}${words.length > 1 ? ` (and ${words.length - 1} more word${words.length > 2 ? 's' : ''})` : ''} ${verbs.one}`
    : words.length
      ? `the words "${words
          .slice(0, 4)
          .map((w) => w.text)
          .join(' ')}" in the table of amounts ${verbs.many}`
      : verbs.none;
  return { shown, what };
}

/**
 * Findings of kind `pasted_patch` from the JPEG compression the page went through before its last save
 * (tamper-history.ts): each region whose blocks fall off that compression's steps was put in after it.
 * High where the region holds a word with a digit (naming it and its row), medium where it holds none
 * but lies within the page's table of amounts (a row painted over); nothing in the margins.
 */
function historyFindings(p: ScanPageStats, txs: StatementTransaction[]): TamperFinding[] {
  const h = p.history;
  if (!h?.regions.length) return [];
  const page = p.index + 1;
  const out: TamperFinding[] = [];
  for (const g of h.regions) {
    const named = boxSubject(p, g.box, g.words, {
      one: 'lies in',
      many: 'lie in',
      none: 'in the table of amounts, with nothing read on it, lies',
    });
    if (!named) continue;
    const { shown, what } = named;
    const centre: Box = [(g.box[0] + g.box[2]) / 2, (g.box[1] + g.box[3]) / 2, (g.box[0] + g.box[2]) / 2, (g.box[1] + g.box[3]) / 2];
    const rowIx = rowOf(txs, page, shown ? shown.box : centre);
    const w = Math.round(g.box[2] - g.box[0]);
    const ht = Math.round(g.box[3] - g.box[1]);
    out.push({
      kind: 'pasted_patch',
      category: 'content',
      severity: shown ? 'high' : 'medium',
      page,
      boxes: [[r1(g.box[0]), r1(g.box[1]), r1(g.box[2]), r1(g.box[3])]],
      row: rowIx,
      message: `page ${page}: ${what} a region of ${w} x ${ht} pt (${g.blocks} blocks of 8 x 8 pixels) whose pixels were put in after the JPEG compression the rest of the page went through before it was saved ${h.stored === 'jpeg' ? 'again' : 'lossless'}: ${pct(g.off)} of the DCT coefficients of its blocks fall off that compression's steps, ${pct(h.rest)} over the rest of the page, as where a patch was pasted into the scan${rowLabel(txs, rowIx)}`,
    });
  }
  return out;
}

/**
 * Findings of kind `pasted_image`: an image drawn over part of a scanned page's own image, after it,
 * over words the reading holds or inside its table of amounts. A scanner makes one image of a page; a
 * patch pasted onto the scan in a PDF editor is an image of its own, with its own size, resolution
 * and encoding. High over a value with a digit (an amount, a date, a balance), medium over other words
 * of the table or over nothing (a row hidden under paper).
 */
function overlayFindings(p: ScanPageStats, txs: StatementTransaction[]): TamperFinding[] {
  const overlays = p.overlays ?? [];
  if (!overlays.length || overlays.length > MAX_OVERLAYS) return [];
  const page = p.index + 1;
  const out: TamperFinding[] = [];
  for (const o of overlays) {
    const named = boxSubject(p, o.box, o.words, {
      one: 'is an image of its own',
      many: 'are an image of its own',
      none: 'an image of its own covers part of the table of amounts, with nothing read on it',
    });
    if (!named) continue;
    const { shown, what } = named;
    const rowIx = shown ? rowOf(txs, page, shown.box) : null;
    const label = rowLabel(txs, rowIx);
    const own = encodingName(o.filter);
    const pageEnc = encodingName(p.filter);
    const dpi = o.dpi[0] === o.dpi[1] ? `${o.dpi[0]}` : `${o.dpi[0]} x ${o.dpi[1]}`;
    out.push({
      kind: 'pasted_image',
      category: 'content',
      severity: shown ? 'high' : 'medium',
      page,
      boxes: [[r1(o.box[0]), r1(o.box[1]), r1(o.box[2]), r1(o.box[3])]],
      row: rowIx,
      message: `page ${page}: ${what} (${o.width} x ${o.height} px at ${dpi} dpi${own ? `, ${own}` : ''}${o.mask ? ', a stencil mask' : ''}), laid over the page's scanned image${pageEnc ? ` (${pageEnc})` : ''} after it: a scanner makes one image of a page, a patch pasted onto the scan in an editor is an image of its own${label}`,
    });
  }
  return out;
}
