/**
 * Scanned pages made from text PDFs, for the scan tamper checks' tests and benchmark: a page
 * rendered grey, made to look scanned (a scanner's blur, paper and ink tones, seeded noise), an
 * amount pasted over the way an image editor does it, and the raster wrapped back into an image-only
 * PDF. One implementation for `packages/statements/src/tamper-scan.spec.ts` and
 * `tools/bench/tamper-scan-edits.ts` (docs/tamper.md, "Scanned pages").
 */
import { PDFDocument } from 'pdf-lib';
import { GrayRaster, openDocument, renderPageGray } from '@ledgerlens/statements';
import { Rng } from './rng';

export type Rect = [number, number, number, number];

type Mupdf = typeof import('mupdf');
type Pixmap = InstanceType<Mupdf['Pixmap']>;

export interface ScanLook {
  seed: number;
  /** grey level of the paper (default 232) and of the ink (default 45) */
  paper?: number;
  ink?: number;
  /** standard deviation of the gaussian grey noise (default 5) */
  noise?: number;
}

/** How the pasted patch was made (docs/tamper.md lists what each leaves to see). */
export type PatchStyle =
  /** the new digits crisp on a flat box of the paper's tone: an image editor's text tool */
  | 'crisp'
  /** the same, with noise of the page's strength added over the patch: only the edges stand out */
  | 'noise_matched'
  /** rendered at half the resolution and enlarged (bilinear), then noise added: a patch cut from a smaller image */
  | 'resampled'
  /** blurred and noised like the rest of the page: a patch made to look scanned (beyond these checks) */
  | 'rescanned'
  /**
   * blurred and noised like the page, then saved as JPEG on an 8x8 grid of its own (offset from the
   * page's) and decoded before it is pasted: a patch cut from another JPEG image (`pasteJpegPatch`,
   * async). Only its block grid differs, and the page's own JPEG at quality 85 smooths that away
   * (docs/tamper.md, "JPEG block grids").
   */
  | 'jpeg_shifted'
  /**
   * made as `rescanned`, but pasted as an image of its own drawn over the page's image (a PDF
   * editor's paste; `overlayPatch`): the page image itself is untouched, so its pixels show nothing,
   * and only the file's structure tells.
   */
  | 'image_overlay'
  /**
   * another amount of the same page copied over it, pixel for pixel (`clonePatch`): an image
   * editor's clone stamp or copy and paste. The copy brings the scanner's noise, blur and tones with
   * it; only the noise being its source's tells.
   */
  | 'cloned'
  /** one digit of the amount changed by a copy of another digit of the page, its glyph box copied (`cloneRect`) */
  | 'cloned_digit';

export const PATCH_STYLES: readonly PatchStyle[] = [
  'crisp',
  'noise_matched',
  'resampled',
  'rescanned',
  'image_overlay',
  'cloned',
  'cloned_digit',
  'jpeg_shifted',
];

/** One page of a PDF rendered grey at `dpi` (mupdf, as the reader renders it for OCR). */
export async function renderGray(pdf: Uint8Array, page = 0, dpi = 200): Promise<GrayRaster> {
  const opened = await openDocument(pdf);
  try {
    const r = await renderPageGray(opened, page, dpi);
    return { data: r.data, width: r.width, height: r.height };
  } finally {
    opened.close();
  }
}

/** A [1 2 1] x [1 2 1] blur: about a flatbed scanner's optics at 200 dpi. */
function blur3(r: GrayRaster): Float64Array {
  const { width: w, height: h, data } = r;
  const out = new Float64Array(w * h);
  const K = [1, 2, 1];
  for (let y = 0; y < h; y++)
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
      out[y * w + x] = s / n;
    }
  return out;
}

const gaussian = (rng: Rng) => Math.sqrt(-2 * Math.log(rng.next() || 1e-9)) * Math.cos(2 * Math.PI * rng.next());
const clampGrey = (v: number) => Math.max(0, Math.min(255, Math.round(v)));

/** Pixels per point: one for both axes, or across and down (a scanner that samples the page at different resolutions). */
export type Scale = number | readonly [number, number];

/** `rect` (PDF points, origin top-left) in the pixels of a raster at `scale`, within `width` x `height`. */
function pixelRect(rect: Rect, scale: Scale, width: number, height: number): [number, number, number, number] {
  const [sx, sy] = typeof scale === 'number' ? [scale, scale] : scale;
  return [
    Math.max(0, Math.floor(rect[0] * sx)),
    Math.max(0, Math.floor(rect[1] * sy)),
    Math.min(width, Math.ceil(rect[2] * sx)),
    Math.min(height, Math.ceil(rect[3] * sy)),
  ];
}

/**
 * The raster resampled down the page to `factor` of its height (linear between rows): a scanner
 * whose resolution down the page differs from its resolution across (300 x 290 dpi, say).
 */
export function squash(r: GrayRaster, factor: number): GrayRaster {
  const h = Math.round(r.height * factor);
  const out = new Uint8Array(r.width * h);
  for (let y = 0; y < h; y++) {
    const fy = Math.min(r.height - 1, Math.max(0, (y + 0.5) / factor - 0.5));
    const y0 = Math.floor(fy);
    const y1 = Math.min(r.height - 1, y0 + 1);
    const t = fy - y0;
    for (let x = 0; x < r.width; x++) out[y * r.width + x] = Math.round(r.data[y0 * r.width + x] * (1 - t) + r.data[y1 * r.width + x] * t);
  }
  return { data: out, width: r.width, height: h };
}

/** A scanner's look over a clean render: the blur, the paper and ink tones, gaussian noise. */
export function scanify(r: GrayRaster, look: ScanLook): GrayRaster {
  const paper = look.paper ?? 232;
  const ink = look.ink ?? 45;
  const sigma = look.noise ?? 5;
  const rng = new Rng(look.seed);
  const soft = blur3(r);
  const out = new Uint8Array(r.width * r.height);
  for (let i = 0; i < out.length; i++) out[i] = clampGrey(ink + ((paper - ink) * soft[i]) / 255 + sigma * gaussian(rng));
  return { data: out, width: r.width, height: r.height };
}

/**
 * `clean` (a render of the edited page at the scan's resolution) inside `rect` (PDF points, origin
 * top-left; `scale` pixels per point) pasted onto `scan`, mapped to the paper and ink tones, made
 * as `style` says (`look` gives the page's tones, noise and the patch's own seed).
 */
export function pastePatch(
  scan: GrayRaster,
  clean: GrayRaster,
  rect: Rect,
  scale: Scale,
  style: PatchStyle = 'crisp',
  look?: ScanLook,
): GrayRaster {
  const paper = look?.paper ?? 232;
  const ink = look?.ink ?? 45;
  const sigma = look?.noise ?? 5;
  const rng = new Rng(look?.seed ?? 1);
  if (style === 'jpeg_shifted') throw new Error('pastePatch: a jpeg_shifted patch is made by pasteJpegPatch');
  const source = style === 'resampled' ? halfThenDouble(clean) : style === 'rescanned' || style === 'image_overlay' ? blur3(clean) : null;
  const noisy = style !== 'crisp';
  const out = new Uint8Array(scan.data);
  const [x0, y0, x1, y1] = pixelRect(rect, scale, Math.min(scan.width, clean.width), Math.min(scan.height, clean.height));
  for (let y = y0; y < y1; y++)
    for (let x = x0; x < x1; x++) {
      const v = source ? source[y * clean.width + x] : clean.data[y * clean.width + x];
      out[y * scan.width + x] = clampGrey(ink + ((paper - ink) * v) / 255 + (noisy ? sigma * gaussian(rng) : 0));
    }
  return { data: out, width: scan.width, height: scan.height };
}

/** How the `jpeg_shifted` patch's own JPEG was made. */
export interface JpegPatchOptions {
  /** JPEG quality of the image the patch was cut from (default 75) */
  quality?: number;
  /** where that image's 8x8 grid starts, in pixels right of and below the page image's own grid (default [3, 5]) */
  offset?: [number, number];
}

/**
 * A `jpeg_shifted` patch: the region of `clean` inside `rect` blurred and noised like the page (as
 * `rescanned`), saved as JPEG (mupdf) on an 8x8 grid that starts `offset` pixels from the page
 * image's own, decoded and pasted onto `scan`. Saving the page as JPEG afterwards (rasterPdf) puts the
 * page's own grid over it, and at quality 85 its quantisation smooths the patch's block edges away.
 */
export async function pasteJpegPatch(
  scan: GrayRaster,
  clean: GrayRaster,
  rect: Rect,
  scale: Scale,
  look?: ScanLook,
  opts: JpegPatchOptions = {},
): Promise<GrayRaster> {
  const paper = look?.paper ?? 232;
  const ink = look?.ink ?? 45;
  const sigma = look?.noise ?? 5;
  const rng = new Rng(look?.seed ?? 1);
  const [ox, oy] = opts.offset ?? [3, 5];
  const [x0, y0, x1, y1] = pixelRect(rect, scale, Math.min(scan.width, clean.width), Math.min(scan.height, clean.height));
  if (x1 <= x0 || y1 <= y0) return scan;
  // the other image: whole blocks around the patch, its first block starting at (ox, oy) modulo 8 on the page
  const mod8 = (v: number) => ((v % 8) + 8) % 8;
  const gx = x0 - 8 - mod8(x0 - ox);
  const gy = y0 - 8 - mod8(y0 - oy);
  const gw = Math.ceil((x1 + 8 - gx) / 8) * 8;
  const gh = Math.ceil((y1 + 8 - gy) / 8) * 8;
  const soft = blur3(clean);
  const other = new Uint8Array(gw * gh);
  for (let y = 0; y < gh; y++)
    for (let x = 0; x < gw; x++) {
      const sx = Math.min(clean.width - 1, Math.max(0, gx + x));
      const sy = Math.min(clean.height - 1, Math.max(0, gy + y));
      other[y * gw + x] = clampGrey(ink + ((paper - ink) * soft[sy * clean.width + sx]) / 255 + sigma * gaussian(rng));
    }
  const back = await jpegRoundTrip({ data: other, width: gw, height: gh }, opts.quality ?? 75);
  const out = new Uint8Array(scan.data);
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) out[y * scan.width + x] = back.data[(y - gy) * gw + (x - gx)];
  return { data: out, width: scan.width, height: scan.height };
}

/** `scan` with the `w` x `h` pixels at (`fx`, `fy`) copied to (`tx`, `ty`), what falls outside left out. */
function copyPixels(scan: GrayRaster, fx: number, fy: number, tx: number, ty: number, w: number, h: number): GrayRaster {
  const out = new Uint8Array(scan.data);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const [ax, ay, bx, by] = [fx + x, fy + y, tx + x, ty + y];
      if (ax < 0 || ay < 0 || bx < 0 || by < 0 || ax >= scan.width || bx >= scan.width || ay >= scan.height || by >= scan.height) continue;
      out[by * scan.width + bx] = scan.data[ay * scan.width + ax];
    }
  return { data: out, width: scan.width, height: scan.height };
}

/**
 * A `cloned` edit: the pixels of `scan` around `from` (another amount of the page, PDF points) copied
 * over `to`, right edges and bottoms aligned (amounts are set right-aligned on one baseline), over the
 * wider of the two plus a margin, as an editor selects an amount and pastes it over another.
 */
export function clonePatch(scan: GrayRaster, from: Rect, to: Rect, scale: Scale): GrayRaster {
  const [sx, sy] = typeof scale === 'number' ? [scale, scale] : scale;
  const w = Math.round((Math.max(from[2] - from[0], to[2] - to[0]) + 4) * sx);
  const h = Math.round((Math.max(from[3] - from[1], to[3] - to[1]) + 2) * sy);
  const [fx1, fy1] = [Math.round((from[2] + 1.5) * sx), Math.round((from[3] + 1) * sy)];
  const [tx1, ty1] = [Math.round((to[2] + 1.5) * sx), Math.round((to[3] + 1) * sy)];
  return copyPixels(scan, fx1 - w, fy1 - h, tx1 - w, ty1 - h, w, h);
}

/**
 * The pixels of `scan` inside `from` (PDF points) copied to the rect of the same size whose top-left
 * corner is `to`'s: a glyph's box copied onto another's (a `cloned_digit` edit).
 */
export function cloneRect(scan: GrayRaster, from: Rect, to: Rect, scale: Scale): GrayRaster {
  const [sx, sy] = typeof scale === 'number' ? [scale, scale] : scale;
  const w = Math.round((from[2] - from[0]) * sx);
  const h = Math.round((from[3] - from[1]) * sy);
  return copyPixels(scan, Math.round(from[0] * sx), Math.round(from[1] * sy), Math.round(to[0] * sx), Math.round(to[1] * sy), w, h);
}

/** The raster at half its resolution (2x2 means), enlarged back bilinearly: what a patch cut from a smaller image looks like. */
function halfThenDouble(r: GrayRaster): Float64Array {
  const { width: w, height: h, data } = r;
  const hw = Math.ceil(w / 2);
  const hh = Math.ceil(h / 2);
  const half = new Float64Array(hw * hh);
  for (let y = 0; y < hh; y++)
    for (let x = 0; x < hw; x++) {
      let s = 0;
      let n = 0;
      for (let dy = 0; dy < 2; dy++)
        for (let dx = 0; dx < 2; dx++) {
          const yy = 2 * y + dy;
          const xx = 2 * x + dx;
          if (yy < h && xx < w) {
            s += data[yy * w + xx];
            n++;
          }
        }
      half[y * hw + x] = s / n;
    }
  const out = new Float64Array(w * h);
  for (let y = 0; y < h; y++) {
    const fy = Math.min(hh - 1, Math.max(0, (y - 0.5) / 2));
    const y0 = Math.floor(fy);
    const y1 = Math.min(hh - 1, y0 + 1);
    const ty = fy - y0;
    for (let x = 0; x < w; x++) {
      const fx = Math.min(hw - 1, Math.max(0, (x - 0.5) / 2));
      const x0 = Math.floor(fx);
      const x1 = Math.min(hw - 1, x0 + 1);
      const tx = fx - x0;
      const top = half[y0 * hw + x0] * (1 - tx) + half[y0 * hw + x1] * tx;
      const bottom = half[y1 * hw + x0] * (1 - tx) + half[y1 * hw + x1] * tx;
      out[y * w + x] = top * (1 - ty) + bottom * ty;
    }
  }
  return out;
}

/**
 * The raster as a grey mupdf Pixmap (no alpha), or the part of it inside `area` (pixels, x0 y0 x1 y1):
 * the caller destroys it.
 */
export function rasterToPixmap(mupdf: Mupdf, r: GrayRaster, area: [number, number, number, number] = [0, 0, r.width, r.height]): Pixmap {
  const [x0, y0, x1, y1] = area;
  const pix = new mupdf.Pixmap(mupdf.ColorSpace.DeviceGray, [0, 0, x1 - x0, y1 - y0], false);
  try {
    const px = pix.getPixels();
    const stride = pix.getStride();
    for (let y = y0; y < y1; y++) px.set(r.data.subarray(y * r.width + x0, y * r.width + x1), (y - y0) * stride);
    return pix;
  } catch (e) {
    pix.destroy?.();
    throw e;
  }
}

/** A grey mupdf Pixmap (a decoded image) as a raster: the first component of each pixel. */
export function pixmapToRaster(pix: Pixmap): GrayRaster {
  const width = pix.getWidth();
  const height = pix.getHeight();
  const px = pix.getPixels();
  const stride = pix.getStride();
  const n = pix.getNumberOfComponents();
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data[y * width + x] = px[y * stride + x * n];
  return { data, width, height };
}

/** The raster saved as JPEG at `quality` (mupdf) and decoded again: a scanner or a phone that stores its pages as JPEG. */
export async function jpegRoundTrip(r: GrayRaster, quality: number): Promise<GrayRaster> {
  const mupdf = await import('mupdf');
  const pix = rasterToPixmap(mupdf, r);
  let image: InstanceType<typeof mupdf.Image> | null = null;
  let decoded: Pixmap | null = null;
  try {
    image = new mupdf.Image(pix.asJPEG(quality));
    decoded = image.toPixmap();
    return pixmapToRaster(decoded);
  } finally {
    decoded?.destroy?.();
    image?.destroy?.();
    pix.destroy?.();
  }
}

/** An image-only one-page PDF (`size` in points) showing the raster, as PNG or as JPEG at `jpeg` quality. */
export async function rasterPdf(r: GrayRaster, size: [number, number], jpeg?: number): Promise<Uint8Array> {
  const mupdf = await import('mupdf');
  const pix = rasterToPixmap(mupdf, r);
  try {
    const bytes = jpeg ? pix.asJPEG(jpeg) : pix.asPNG();
    const doc = await PDFDocument.create();
    const img = jpeg ? await doc.embedJpg(bytes) : await doc.embedPng(bytes);
    doc.addPage(size).drawImage(img, { x: 0, y: 0, width: size[0], height: size[1] });
    return doc.save();
  } finally {
    pix.destroy?.();
  }
}

/**
 * An `image_overlay` edit: the region of `patched` (the page raster with the patch pasted, at `scale`
 * pixels per point) inside `rect` (PDF points, origin top-left) cut out as a PNG image of its own and
 * drawn over the first page of `pagePdf` (pdf-lib), where it was: the page's own image is left as it was.
 */
export async function overlayPatch(pagePdf: Uint8Array, patched: GrayRaster, rect: Rect, scale: Scale): Promise<Uint8Array> {
  const mupdf = await import('mupdf');
  const [sx, sy] = typeof scale === 'number' ? [scale, scale] : scale;
  const [x0, y0, x1, y1] = pixelRect(rect, scale, patched.width, patched.height);
  const pix = rasterToPixmap(mupdf, patched, [x0, y0, x1, y1]);
  try {
    const doc = await PDFDocument.load(pagePdf, { updateMetadata: false });
    const page = doc.getPage(0);
    const img = await doc.embedPng(pix.asPNG());
    page.drawImage(img, { x: x0 / sx, y: page.getHeight() - y1 / sy, width: (x1 - x0) / sx, height: (y1 - y0) / sy });
    return doc.save();
  } finally {
    pix.destroy?.();
  }
}
