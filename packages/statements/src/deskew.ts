/**
 * Deskew of scanned pages before OCR: the skew angle from a projection profile of the dark pixels
 * (text lines give the sharpest row profile when projected along their own slope), then a bilinear
 * rotation of the raster. Tesseract finds lines on a slightly skewed page, but a table's rows and
 * columns drift apart across a wide page: a row's date and its amounts end up on different lines.
 */
import type { GrayRaster } from './extract';

const DARK = 140;

/**
 * The skew of the text lines in degrees (positive: lines fall to the right, y pointing down), searched
 * within ±maxDeg; 0 when the page holds too little ink to tell. Reads every `step`-th pixel.
 */
export function estimateSkew(r: GrayRaster, maxDeg = 5, step = 4): number {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let y = 0; y < r.height; y += step) {
    const row = y * r.width;
    for (let x = 0; x < r.width; x += step) {
      if (r.data[row + x] < DARK) {
        xs.push(x);
        ys.push(y);
      }
    }
  }
  if (xs.length < 200) return 0;
  const bins = new Float64Array(Math.ceil((r.height + r.width * Math.tan((maxDeg * Math.PI) / 180) * 2) / step) + 4);
  const offset = r.width * Math.tan((maxDeg * Math.PI) / 180) + step;
  // the profile's sharpness along slope t: sum of squared row counts
  const score = (deg: number): number => {
    const t = Math.tan((deg * Math.PI) / 180);
    bins.fill(0);
    for (let i = 0; i < xs.length; i++) bins[Math.round((ys[i] - xs[i] * t + offset) / step)]++;
    let s = 0;
    for (let i = 0; i < bins.length; i++) s += bins[i] * bins[i];
    return s;
  };
  let best = 0;
  let bestScore = score(0);
  for (let d = -maxDeg; d <= maxDeg + 1e-9; d += 0.25) {
    const s = score(d);
    if (s > bestScore) {
      bestScore = s;
      best = d;
    }
  }
  const coarse = best;
  for (let d = coarse - 0.25; d <= coarse + 0.25 + 1e-9; d += 0.05) {
    const s = score(d);
    if (s > bestScore) {
      bestScore = s;
      best = d;
    }
  }
  return Math.round(best * 100) / 100;
}

/** The raster turned by -deg about its centre (bilinear), same size, white where nothing maps. */
export function rotateRaster(r: GrayRaster, deg: number): GrayRaster {
  const a = (deg * Math.PI) / 180;
  const cos = Math.cos(a);
  const sin = Math.sin(a);
  const cx = r.width / 2;
  const cy = r.height / 2;
  const out = new Uint8Array(r.width * r.height).fill(255);
  const { data, width, height } = r;
  for (let y = 0; y < height; y++) {
    const dy = y - cy;
    for (let x = 0; x < width; x++) {
      const dx = x - cx;
      // the source pixel: a horizontal line of the output comes from a line of slope tan(deg) in the input
      const sx = cx + cos * dx - sin * dy;
      const sy = cy + sin * dx + cos * dy;
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      if (x0 < 0 || y0 < 0 || x0 >= width - 1 || y0 >= height - 1) continue;
      const fx = sx - x0;
      const fy = sy - y0;
      const i = y0 * width + x0;
      const top = data[i] + (data[i + 1] - data[i]) * fx;
      const bottom = data[i + width] + (data[i + width + 1] - data[i + width]) * fx;
      out[y * width + x] = top + (bottom - top) * fy;
    }
  }
  return { data: out, width, height };
}

/**
 * Where a box ([x0, y0, x1, y1], any unit) lies once its page, of `size` in the same unit, is turned as
 * `rotateRaster(r, deg)` turns the page's render (`inverse`: back from the turned page): the bounding
 * box of its turned corners.
 */
export function turnBox(
  b: readonly number[],
  deg: number,
  size: readonly [number, number],
  inverse = false,
): [number, number, number, number] {
  if (!deg) return [b[0], b[1], b[2], b[3]];
  const a = ((inverse ? -deg : deg) * Math.PI) / 180;
  const cos = Math.cos(a);
  const sin = Math.sin(a);
  const cx = size[0] / 2;
  const cy = size[1] / 2;
  const xs: number[] = [];
  const ys: number[] = [];
  for (const [x, y] of [
    [b[0], b[1]],
    [b[2], b[1]],
    [b[0], b[3]],
    [b[2], b[3]],
  ]) {
    // the inverse of rotateRaster's mapping from an output pixel to its source
    xs.push(cx + cos * (x - cx) + sin * (y - cy));
    ys.push(cy - sin * (x - cx) + cos * (y - cy));
  }
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/** Below this angle (degrees) a page is read as it is: rotating costs time and blurs the glyphs a little. */
export const MIN_SKEW_DEG = 0.3;

/** The page straightened when its text lines are skewed by MIN_SKEW_DEG or more; `angle` is what was measured. */
export function deskew(r: GrayRaster): { raster: GrayRaster; angle: number } {
  const angle = estimateSkew(r);
  return { raster: Math.abs(angle) >= MIN_SKEW_DEG ? rotateRaster(r, angle) : r, angle };
}
