/**
 * The JPEG block grid around a word (issue 32, docs/tamper.md "JPEG block grids"). JPEG codes an image
 * in 8x8 blocks, and its quantisation leaves a step at each block edge: a grid of period 8 from the
 * image's origin. A patch cut from another JPEG image brings that image's grid, which falls anywhere
 * on the page. Measured in the page's own image at its own resolution (a render at another resolution
 * resamples it and smears the grid), on the paper around the word: the mean step between neighbouring
 * paper pixels by phase of the 8-pixel grid, and how far the strongest phase other than the image's own
 * stands above its two neighbours.
 */
import type { GrayRaster } from './extract';

/** Steps above this (grey levels) are ink edges, not block edges. */
const EDGE = 24;

/**
 * Mean absolute step between neighbouring paper pixels (2 px or more from any ink) inside the pixel
 * box, by phase of the 8-pixel grid: `h[p]` from column x to x + 1 with x % 8 = p (the image's own
 * block edges lie between columns 7 and 8: phase 7), `v[p]` the same down the rows.
 */
export function paperSteps(r: GrayRaster, x0: number, y0: number, x1: number, y1: number): { h: number[]; v: number[] } {
  const W = r.width;
  const d = r.data;
  const hist = new Uint32Array(256);
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) hist[d[y * W + x]]++;
  const n = (x1 - x0) * (y1 - y0);
  const pct = (p: number) => {
    let s = 0;
    for (let v = 0; v < 256; v++) if ((s += hist[v]) >= p * n) return v;
    return 255;
  };
  const contrast = pct(0.8) - pct(0.03);
  const thr = contrast >= 40 ? pct(0.8) - 0.25 * contrast : -1;
  const w = x1 - x0;
  const h = y1 - y0;
  const near = new Uint8Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      if (d[(y + y0) * W + x + x0] < thr)
        for (let dy = Math.max(0, y - 2); dy <= Math.min(h - 1, y + 2); dy++)
          for (let dx = Math.max(0, x - 2); dx <= Math.min(w - 1, x + 2); dx++) near[dy * w + dx] = 1;
  const sums = [new Float64Array(8), new Float64Array(8)];
  const counts = [new Float64Array(8), new Float64Array(8)];
  const add = (axis: number, phase: number, step: number) => {
    if (step > EDGE) return;
    sums[axis][phase] += step;
    counts[axis][phase]++;
  };
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      if (near[y * w + x]) continue;
      const i = (y + y0) * W + x + x0;
      if (x + 1 < w && !near[y * w + x + 1]) add(0, (x + x0) & 7, Math.abs(d[i + 1] - d[i]));
      if (y + 1 < h && !near[(y + 1) * w + x]) add(1, (y + y0) & 7, Math.abs(d[i + W] - d[i]));
    }
  const mean = (axis: number) => Array.from(sums[axis], (s, p) => (counts[axis][p] ? s / counts[axis][p] : 0));
  return { h: mean(0), v: mean(1) };
}

/** The strongest step on a phase other than 7, over the mean of its two neighbouring phases, less 1 (0 when the paper is too smooth to tell). */
function peak(by: number[]): number {
  let best = 0;
  for (let p = 0; p < 7; p++) {
    const around = (by[(p + 7) % 8] + by[p + 1]) / 2;
    if (around >= 1) best = Math.max(best, by[p] / around - 1);
  }
  return best;
}

/**
 * The shifted block grid's strength around a word: its box in the image's pixels, padded by a quarter
 * of its height; the weaker of the two axes (a patch's grid steps across and down; a word's own paper
 * peaks on one axis by chance). Null for a box too small or outside the image.
 */
export function blockGrid(image: GrayRaster, px: [number, number, number, number]): number | null {
  const pad = Math.round(Math.min(9, Math.max(2, 0.25 * (px[3] - px[1]))));
  const x0 = Math.floor(px[0]) - pad;
  const y0 = Math.floor(px[1]) - pad;
  const x1 = Math.ceil(px[2]) + pad;
  const y1 = Math.ceil(px[3]) + pad;
  if (x0 < 0 || y0 < 0 || x1 > image.width || y1 > image.height || x1 - x0 < 24 || y1 - y0 < 16) return null;
  const s = paperSteps(image, x0, y0, x1, y1);
  return Math.min(peak(s.h), peak(s.v));
}
