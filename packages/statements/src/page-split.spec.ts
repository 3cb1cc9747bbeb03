/** Where a scanned page is cut in two for the OCR workers (no OCR engine needed). */
import type { GrayRaster } from './extract';
import { otsuThreshold, splitRow } from './page-split';

/** A white page with text-like stripes: `lines` are [top, height, from x, to x] in pixels. */
function page(w: number, h: number, lines: Array<[number, number, number, number]>, extra?: (d: Uint8Array) => void): GrayRaster {
  const data = new Uint8Array(w * h).fill(250);
  for (const [top, height, x0, x1] of lines)
    for (let y = top; y < top + height; y++) for (let x = x0; x < x1; x++) if (x % 23 < 17) data[y * w + x] = 30;
  extra?.(data);
  return { data, width: w, height: h };
}

const inkOf = (r: GrayRaster, y0: number, y1: number) => {
  let n = 0;
  for (let i = y0 * r.width; i < y1 * r.width; i++) if (r.data[i] < 128) n++;
  return n;
};
const rowIsBlank = (r: GrayRaster, y: number) => inkOf(r, y, y + 1) === 0;

describe('splitting a scanned page for the two OCR workers', () => {
  it("finds Otsu's threshold between paper and ink", () => {
    const t = otsuThreshold(page(200, 100, [[20, 30, 10, 190]]));
    expect(t).toBeGreaterThanOrEqual(30);
    expect(t).toBeLessThan(250);
  });

  it('cuts an evenly printed page between two text lines, near the middle', () => {
    const lines = Array.from({ length: 40 }, (_, i) => [60 + i * 40, 12, 80, 1100] as [number, number, number, number]);
    const r = page(1200, 1700, lines);
    const cut = splitRow(r);
    expect(rowIsBlank(r, cut)).toBe(true);
    const above = inkOf(r, 0, cut) / inkOf(r, 0, r.height);
    expect(above).toBeGreaterThan(0.45);
    expect(above).toBeLessThan(0.55);
  });

  it('halves the ink, not the area: a page whose text sits low is cut low', () => {
    // a short header, then a dense table in the lower two thirds
    const lines: Array<[number, number, number, number]> = [[40, 20, 80, 500]];
    for (let y = 700; y < 1650; y += 30) lines.push([y, 12, 80, 1100]);
    const r = page(1200, 1700, lines);
    const cut = splitRow(r);
    expect(cut).toBeGreaterThan(1000);
    expect(rowIsBlank(r, cut)).toBe(true);
    const above = inkOf(r, 0, cut) / inkOf(r, 0, r.height);
    expect(Math.abs(above - 0.5)).toBeLessThan(0.06);
  });

  it('cuts across a barcode or a rule in the margin (little ink on the row)', () => {
    const lines = Array.from({ length: 30 }, (_, i) => [60 + i * 50, 14, 120, 1100] as [number, number, number, number]);
    const r = page(1200, 1600, lines, (d) => {
      for (let y = 0; y < 1600; y++) for (let x = 20; x < 40; x++) d[y * 1200 + x] = 0;
    });
    const cut = splitRow(r);
    expect(cut).toBeGreaterThan(0);
    // the cut row holds the margin bar only
    expect(inkOf(r, cut, cut + 1)).toBe(20);
  });

  it('does not cut a page without a blank band, a blank page, or through gaps thinner than a line space', () => {
    const solid = page(400, 400, [[0, 400, 0, 400]]);
    expect(splitRow(solid)).toBe(0);
    expect(splitRow(page(400, 400, []))).toBe(0);
    // 3-pixel gaps between rows of ink: no band wide enough
    const dense = page(
      400,
      400,
      Array.from({ length: 50 }, (_, i) => [i * 8, 5, 0, 400] as [number, number, number, number]),
    );
    expect(splitRow(dense)).toBe(0);
  });

  it('does not cut where one side would hold less than a fifth of the ink', () => {
    // one line at the top, one big block at the bottom, nothing between them to balance
    const r = page(600, 1000, [
      [20, 10, 40, 560],
      [400, 560, 40, 560],
    ]);
    expect(splitRow(r)).toBe(0);
  });
});
