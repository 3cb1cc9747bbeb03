/**
 * Test helper: a text PDF made to look scanned (paper tone, seeded noise, a scanner's blur), with or
 * without a patch pasted over an amount the way an image editor does it (the new digits crisp, on a
 * box of the paper's mean tone, no noise), wrapped back into an image-only PDF.
 */
import { PDFDocument } from 'pdf-lib';
import type { GrayRaster } from '../extract';
import { renderPageGray } from '../extract';
import { loadMupdf } from '../mupdf';
import { openDocument } from '../open';

export interface ScanLook {
  seed: number;
  paper?: number;
  ink?: number;
  /** standard deviation of the grey noise */
  noise?: number;
}

function rng(seed: number): () => number {
  let a = seed >>> 0 || 1;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function renderGray(pdf: Uint8Array, page = 0, dpi = 200): Promise<GrayRaster> {
  const opened = await openDocument(pdf);
  try {
    const r = await renderPageGray(opened, page, dpi);
    return { data: r.data, width: r.width, height: r.height };
  } finally {
    opened.close();
  }
}

/** A scanner's look: a 3x3 blur, ink and paper tones, gaussian noise. */
export function scanify(r: GrayRaster, look: ScanLook): GrayRaster {
  const { width: w, height: h, data } = r;
  const paper = look.paper ?? 232;
  const ink = look.ink ?? 45;
  const sigma = look.noise ?? 5;
  const rand = rng(look.seed);
  const out = new Uint8Array(w * h);
  const K = [1, 2, 1];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let s = 0;
      let n = 0;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= w) continue;
          const k = K[dy + 1] * K[dx + 1];
          s += data[yy * w + xx] * k;
          n += k;
        }
      }
      const v = s / n / 255;
      const u1 = rand() || 1e-9;
      const u2 = rand();
      const g = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
      out[y * w + x] = Math.max(0, Math.min(255, Math.round(ink + (paper - ink) * v + sigma * g)));
    }
  }
  return { data: out, width: w, height: h };
}

/** Pastes the crisp pixels of `clean` (a render of the edited page) inside `rect` (PDF points) onto `scan`, mapped to the scan's paper and ink tones. */
export function pastePatch(
  scan: GrayRaster,
  clean: GrayRaster,
  rect: [number, number, number, number],
  scale: number,
  paper = 232,
  ink = 45,
): GrayRaster {
  const out = new Uint8Array(scan.data);
  const x0 = Math.max(0, Math.floor(rect[0] * scale));
  const y0 = Math.max(0, Math.floor(rect[1] * scale));
  const x1 = Math.min(scan.width, Math.ceil(rect[2] * scale));
  const y1 = Math.min(scan.height, Math.ceil(rect[3] * scale));
  for (let y = y0; y < y1; y++)
    for (let x = x0; x < x1; x++) out[y * scan.width + x] = Math.round(ink + ((paper - ink) * clean.data[y * clean.width + x]) / 255);
  return { data: out, width: scan.width, height: scan.height };
}

/** An image-only PDF of one page (`size` in points) showing the raster (PNG, or JPEG at `jpeg` quality). */
export async function rasterPdf(r: GrayRaster, size: [number, number], jpeg?: number): Promise<Uint8Array> {
  const m = await loadMupdf();
  const pix = new m.Pixmap(m.ColorSpace.DeviceGray, [0, 0, r.width, r.height], false);
  try {
    const px = pix.getPixels();
    const stride = pix.getStride();
    for (let y = 0; y < r.height; y++) px.set(r.data.subarray(y * r.width, (y + 1) * r.width), y * stride);
    const bytes = jpeg ? pix.asJPEG(jpeg) : pix.asPNG();
    const doc = await PDFDocument.create();
    const img = jpeg ? await doc.embedJpg(bytes) : await doc.embedPng(bytes);
    const page = doc.addPage(size);
    page.drawImage(img, { x: 0, y: 0, width: size[0], height: size[1] });
    return doc.save();
  } finally {
    pix.destroy?.();
  }
}
