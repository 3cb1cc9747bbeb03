/**
 * The block grid measure the `jpeg_shifted` rows of the scan bench print (docs/tamper.md, "Scanned
 * pages: pasted patches"): how strongly the paper around a word steps on an 8-pixel grid other than
 * its page image's own. Measured in the page's embedded image at its own resolution (the 200 dpi
 * render OCR reads resamples a 300 dpi image and smears any grid). A measurement for the bench, not a
 * check of the reader: it does not tell a patch from the page's other amounts once the page is saved
 * as JPEG at quality 85 (the figures are in the docs).
 */
import { GrayRaster, isMoney, Line, openDocument } from '@ledgerlens/statements';

type Box = [number, number, number, number];

/** The image of a one-image page (as rasterPdf draws it, over the whole page) and its pixels per PDF point. */
export async function pageImage(pdf: Uint8Array): Promise<{ image: GrayRaster; sx: number; sy: number } | null> {
  const mupdf = await import('mupdf');
  const opened = await openDocument(pdf);
  const page = opened.doc.loadPage(0);
  let found: { image: GrayRaster; sx: number; sy: number } | null = null;
  const callbacks = {
    fillImage(img: InstanceType<typeof mupdf.Image>, ctm: number[]) {
      const pix = img.toPixmap();
      try {
        const w = pix.getWidth();
        const h = pix.getHeight();
        const stride = pix.getStride();
        const n = pix.getNumberOfComponents() + pix.getAlpha();
        const src = pix.getPixels();
        const data = new Uint8Array(w * h);
        for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data[y * w + x] = src[y * stride + x * n];
        if (!found) found = { image: { data, width: w, height: h }, sx: w / ctm[0], sy: h / ctm[3] };
      } finally {
        pix.destroy?.();
        img.destroy?.();
      }
    },
  };
  const dev = new mupdf.Device(callbacks as any);
  try {
    page.run(dev, mupdf.Matrix.identity);
    dev.close();
  } finally {
    dev.destroy?.();
    page.destroy?.();
    opened.close();
  }
  return found;
}

/** Steps above this (grey levels) are ink edges, not block edges. */
const EDGE = 24;

/**
 * Mean absolute step between neighbouring paper pixels (2 px or more from any ink) inside the box, by
 * phase of the 8-pixel grid: `h[p]` from column x to x + 1 with x % 8 = p (the image's own block
 * edges lie between columns 7 and 8: phase 7), `v[p]` the same down the rows.
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

/** The shifted-grid strength of a word's box (PDF points, origin top-left, padded a quarter of its height): the stronger of the two axes. */
export function wordGrid(img: { image: GrayRaster; sx: number; sy: number }, box: Box): number | null {
  const pad = Math.round(Math.min(9, Math.max(2, 0.25 * (box[3] - box[1]) * img.sy)));
  const x0 = Math.floor(box[0] * img.sx) - pad;
  const y0 = Math.floor(box[1] * img.sy) - pad;
  const x1 = Math.ceil(box[2] * img.sx) + pad;
  const y1 = Math.ceil(box[3] * img.sy) + pad;
  if (x0 < 0 || y0 < 0 || x1 > img.image.width || y1 > img.image.height || x1 - x0 < 24 || y1 - y0 < 16) return null;
  const s = paperSteps(img.image, x0, y0, x1, y1);
  return Math.max(peak(s.h), peak(s.v));
}

const overlaps = (a: Box, b: Box) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];

/** The shifted-grid strength of the page's amounts (the words of the text page the scan was made from): the edited one's and the others'. */
export async function amountGrids(
  pdf: Uint8Array,
  lines: Line[],
  edited: Box[],
): Promise<{ edited: number | null; others: number[] } | null> {
  const img = await pageImage(pdf);
  if (!img) return null;
  let mine: number | null = null;
  const others: number[] = [];
  for (const l of lines)
    for (const w of l.words) {
      if (!isMoney(w.text)) continue;
      const box: Box = [w.x0, w.y0, w.x1, w.y1];
      const g = wordGrid(img, box);
      if (g === null) continue;
      if (edited.some((e) => overlaps(e, box))) mine = Math.max(mine ?? 0, g);
      else others.push(g);
    }
  return { edited: mine, others };
}
