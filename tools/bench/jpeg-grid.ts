/**
 * The block grid measure the `jpeg_shifted` rows of the scan bench print (docs/tamper.md, "JPEG block
 * grids"): how strongly the paper around each amount steps on an 8-pixel grid other than its page
 * image's own (`blockGrid`, packages/statements/src/tamper-blocks.ts), measured in the page's embedded
 * image at its own resolution over the words of the text page the scan was made from, whatever the
 * page's coding (the reader judges it only on lossless and high-quality JPEG pages).
 */
import { blockGrid, GrayRaster, isMoney, Line, openDocument, pageImagePixels, pageImages } from '@ledgerlens/statements';

type Box = [number, number, number, number];

/** The image of a one-image page, its pixels per PDF point and where its top-left pixel lies. */
export async function pageImage(pdf: Uint8Array): Promise<{ image: GrayRaster; sx: number; sy: number; ox: number; oy: number } | null> {
  const opened = await openDocument(pdf);
  try {
    const info = pageImages(opened, 0);
    const image = pageImagePixels(opened, 0);
    if (!image || !info.scale || !info.origin) return null;
    return { image, sx: info.scale[0], sy: info.scale[1], ox: info.origin[0], oy: info.origin[1] };
  } finally {
    opened.close();
  }
}

/** The shifted-grid strength of a word's box (PDF points, origin top-left). */
export function wordGrid(img: { image: GrayRaster; sx: number; sy: number; ox: number; oy: number }, box: Box): number | null {
  return blockGrid(img.image, [
    (box[0] - img.ox) * img.sx,
    (box[1] - img.oy) * img.sy,
    (box[2] - img.ox) * img.sx,
    (box[3] - img.oy) * img.sy,
  ]);
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
