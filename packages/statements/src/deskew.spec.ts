import { deskew, estimateSkew, rotateRaster, turnBox } from './deskew';
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

  it('turns a box as the raster is turned, and back', () => {
    // a dark square far from the centre, on a white page
    const w = 600;
    const h = 400;
    const data = new Uint8Array(w * h).fill(255);
    for (let y = 300; y < 320; y++) for (let x = 480; x < 500; x++) data[y * w + x] = 0;
    for (const deg of [2.5, -4]) {
      const r = rotateRaster({ data, width: w, height: h }, deg);
      // the dark pixels of the turned page, and the box they span
      let [x0, y0, x1, y1] = [w, h, 0, 0];
      for (let y = 0; y < h; y++)
        for (let x = 0; x < w; x++)
          if (r.data[y * w + x] < 128) [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x + 1), Math.max(y1, y + 1)];
      const b = turnBox([480, 300, 500, 320], deg, [w, h]);
      // the square has moved (by about 10 px at this distance from the centre), and the turned box holds where it went
      expect(Math.abs(x0 - 480) + Math.abs(y0 - 300)).toBeGreaterThan(8);
      b.forEach((v, i) => expect(Math.abs(v - [x0, y0, x1, y1][i])).toBeLessThanOrEqual(1.5));
      // and back: the box it came from (the bounding box of a turned box is a little larger)
      const back = turnBox(b, deg, [w, h], true);
      expect(back[0]).toBeLessThanOrEqual(480);
      expect(back[2]).toBeGreaterThanOrEqual(500);
      expect(back[2] - back[0]).toBeLessThan(24);
    }
  });
});
