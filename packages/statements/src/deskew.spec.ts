import { deskew, estimateSkew, rotateRaster } from './deskew';
import type { GrayRaster } from './extract';

/** A white page with dark "text lines" (dashes of ink) falling by `deg` to the right. */
function page(deg: number, w = 1200, h = 1500): GrayRaster {
  const data = new Uint8Array(w * h).fill(255);
  const t = Math.tan((deg * Math.PI) / 180);
  for (let line = 100; line < h - 100; line += 40) {
    for (let x = 80; x < w - 80; x++) {
      if (x % 37 > 28) continue; // gaps between words
      const y0 = Math.round(line + x * t);
      for (let y = y0; y < y0 + 9; y++) if (y >= 0 && y < h) data[y * w + x] = 20;
    }
  }
  return { data, width: w, height: h };
}

describe('deskew', () => {
  it.each([0, 0.6, -1.2, 2.5, -4])('measures a page skewed by %f degrees', (deg) => {
    expect(Math.abs(estimateSkew(page(deg)) - deg)).toBeLessThanOrEqual(0.1);
  });

  it('straightens a skewed page: its lines project onto the rows again', () => {
    const skewed = page(1.8);
    const { raster, angle } = deskew(skewed);
    expect(angle).toBeCloseTo(1.8, 0);
    expect(Math.abs(estimateSkew(raster))).toBeLessThanOrEqual(0.1);
    // a text line's ink sits on a few rows only once straightened
    const inkRows = (r: GrayRaster, x0: number, x1: number) => {
      const rows = new Set<number>();
      for (let y = 300; y < 345; y++) for (let x = x0; x < x1; x++) if (r.data[y * r.width + x] < 128) rows.add(y);
      return rows.size;
    };
    expect(inkRows(raster, 100, 1100)).toBeLessThan(inkRows(skewed, 100, 1100));
  });

  it('leaves a straight page, or one too little askew to matter, as it is', () => {
    const straight = page(0);
    expect(deskew(straight).raster).toBe(straight);
    const slight = page(0.15);
    expect(deskew(slight).raster).toBe(slight);
  });

  it('reads a blank page as straight', () => {
    expect(estimateSkew({ data: new Uint8Array(500 * 500).fill(255), width: 500, height: 500 })).toBe(0);
  });

  it('rotates about the centre and fills the uncovered corners white', () => {
    const r = rotateRaster(page(0, 400, 400), 3);
    expect(r.width).toBe(400);
    expect(r.data[0]).toBe(255);
  });
});
