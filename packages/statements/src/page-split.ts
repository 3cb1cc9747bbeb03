/**
 * Splitting a scanned page in two for the OCR workers. Tesseract reads one image on one thread, so a
 * one-page scan would keep one of the two workers idle. The page is cut at a band of blank rows
 * (no text line crosses it) chosen so that each half holds about half of the ink: the workers'
 * time goes with the text they read, not with the area. The halves keep their grey levels:
 * tesseract thresholds each image itself, and binarizing the page beforehand (one threshold for
 * both halves) lost rows of a dev-set scan.
 */
import type { GrayRaster } from './extract';

/** Otsu's threshold of a raster's grey levels (the level that best separates ink from paper). */
export function otsuThreshold(r: GrayRaster): number {
  const hist = new Uint32Array(256);
  const d = r.data;
  for (let i = 0; i < d.length; i++) hist[d[i]]++;
  return otsuOf(hist, d.length);
}

/** Otsu's threshold of a histogram of `total` grey levels. */
function otsuOf(hist: Uint32Array, total: number): number {
  let sum = 0;
  for (let t = 0; t < 256; t++) sum += t * hist[t];
  let sumBelow = 0;
  let nBelow = 0;
  let best = -1;
  let threshold = 128;
  for (let t = 0; t < 256; t++) {
    nBelow += hist[t];
    if (!nBelow) continue;
    const nAbove = total - nBelow;
    if (!nAbove) break;
    sumBelow += t * hist[t];
    const d = sumBelow / nBelow - (sum - sumBelow) / nAbove;
    const between = nBelow * nAbove * d * d;
    if (between > best) {
      best = between;
      threshold = t;
    }
  }
  return threshold;
}

/**
 * The row to cut a page at, or 0 when it should not be cut: the middle of a band of at least
 * `minGap` rows, each with ink on at most 3% of its width (a vertical rule, a margin barcode or
 * rotated margin text may cross the cut), that leaves each side with 20% to 80% of the page's ink
 * (the closest to half wins).
 */
export function splitRow(r: GrayRaster, minGap = 6): number {
  // one pass over the pixels: a histogram per row gives the page's (for the threshold) and each
  // row's count of dark pixels
  const d = r.data;
  const w = r.width;
  const rows = new Uint32Array(256 * r.height);
  for (let y = 0; y < r.height; y++) {
    const at = y * w;
    const h = y << 8;
    for (let x = 0; x < w; x++) rows[h + d[at + x]]++;
  }
  const hist = new Uint32Array(256);
  for (let y = 0; y < r.height; y++) for (let v = 0, h = y << 8; v < 256; v++) hist[v] += rows[h + v];
  const dark = Math.min(otsuOf(hist, w * r.height), 160);
  const ink = new Int32Array(r.height);
  let total = 0;
  for (let y = 0; y < r.height; y++) {
    let n = 0;
    for (let v = 0, h = y << 8; v <= dark; v++) n += rows[h + v];
    ink[y] = n;
    total += n;
  }
  if (!total) return 0;
  const blank = Math.max(2, Math.round(r.width * 0.03));
  let best = 0;
  let bestOff = 0.3;
  let above = 0;
  for (let y = 0; y < r.height;) {
    if (ink[y] > blank) {
      above += ink[y++];
      continue;
    }
    let end = y;
    while (end < r.height && ink[end] <= blank) above += ink[end++];
    const off = Math.abs(above / total - 0.5);
    if (end - y >= minGap && end < r.height && y > 0 && off < bestOff) {
      bestOff = off;
      best = (y + end) >> 1;
    }
    y = end;
  }
  return best;
}
