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
  const hist = new Float64Array(256);
  for (let i = 0; i < r.data.length; i++) hist[r.data[i]]++;
  const total = r.data.length;
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
  const dark = Math.min(otsuThreshold(r), 160);
  const ink = new Int32Array(r.height);
  let total = 0;
  for (let y = 0; y < r.height; y++) {
    let n = 0;
    const row = y * r.width;
    for (let x = 0; x < r.width; x++) if (r.data[row + x] <= dark) n++;
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
