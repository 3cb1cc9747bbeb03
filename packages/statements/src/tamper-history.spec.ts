import { jpegRoundTrip, rasterToPixmap, scanify } from '../../../tools/corpus/scan';
import { GrayRaster } from './extract';
import { freshRegions, jpegLumaTable, pageHistory } from './tamper-history';

/** A page of text-like strokes (dark bars on paper), made to look scanned (seeded noise). */
function page(seed: number): GrayRaster {
  const width = 640;
  const height = 480;
  const data = new Uint8Array(width * height).fill(255);
  for (let y = 40; y < height - 40; y += 24)
    for (let x = 30; x < width - 30; x += 9) if ((x * 7 + y * 3) % 5 !== 0) for (let dy = 0; dy < 12; dy++) data[(y + dy) * width + x] = 0;
  return scanify({ data, width, height }, { seed });
}

/** The JPEG a raster is saved as, its bytes. */
async function jpegBytes(r: GrayRaster, quality: number): Promise<Uint8Array> {
  const mupdf = await import('mupdf');
  const pix = rasterToPixmap(mupdf, r);
  try {
    return pix.asJPEG(quality);
  } finally {
    pix.destroy?.();
  }
}

/** `r` with the rectangle [x0, x1) x [y0, y1) taken from `from` (the same page made again: new noise). */
function paste(r: GrayRaster, from: GrayRaster, x0: number, y0: number, x1: number, y1: number): GrayRaster {
  const data = new Uint8Array(r.data);
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) data[y * r.width + x] = from.data[y * r.width + x];
  return { ...r, data };
}

describe('an earlier JPEG compression (tamper-history)', () => {
  it("reads a JPEG's luminance table in natural order", async () => {
    const t = jpegLumaTable(await jpegBytes(page(1), 75))!;
    // the IJG table at quality 75 (its steps halved): the first row, and the first column
    expect(t.slice(0, 8)).toEqual([8, 6, 5, 8, 12, 20, 26, 31]);
    expect([0, 1, 2, 3].map((v) => t[v * 8])).toEqual([8, 6, 7, 7]);
    expect(jpegLumaTable(new Uint8Array([0x89, 0x50, 0x4e, 0x47]))).toBeNull();
  });

  it('finds the steps of a JPEG saved before the last save, and the blocks pasted in after it', async () => {
    const first = await jpegRoundTrip(page(1), 75);
    // blocks 8..15 across, 10..13 down: new pixels pasted after the scanner's JPEG
    const patched = paste(first, page(2), 64, 80, 128, 112);
    const inside: [number, number, number, number] = [66, 82, 126, 110];
    const outside: [number, number, number, number] = [300, 82, 360, 110];
    for (const again of [90, 0]) {
      const saved = again ? await jpegRoundTrip(patched, again) : patched;
      const h = pageHistory(saved, again ? jpegLumaTable(await jpegBytes(patched, again)) : null)!;
      expect(h).not.toBeNull();
      // the first horizontal frequency: step 6 at quality 75
      expect(h.steps.find((s) => s.freq === 1)?.step).toBe(6);
      // one region, over the pasted blocks, far off the steps; the rest of the page on them
      const fresh = freshRegions(h)!;
      expect(fresh.regions).toHaveLength(1);
      const [x0, y0, x1, y1] = fresh.regions[0].box;
      expect([x0 <= inside[0], y0 <= inside[1], x1 >= inside[2], y1 >= inside[3]]).toEqual([true, true, true, true]);
      expect(x1).toBeLessThan(outside[0]);
      expect(fresh.regions[0].off).toBeGreaterThan(0.4);
      expect(fresh.rest).toBeLessThan(0.06);
    }
  });

  it('finds nothing on a page saved as JPEG once, nor saved again with steps as coarse as before', async () => {
    const once = await jpegRoundTrip(page(1), 90);
    expect(pageHistory(once, jpegLumaTable(await jpegBytes(page(1), 90)))).toBeNull();
    expect(pageHistory(page(1), null)).toBeNull();
    const twice = await jpegRoundTrip(await jpegRoundTrip(page(1), 90), 75);
    expect(pageHistory(twice, jpegLumaTable(await jpegBytes(page(1), 75)))).toBeNull();
  });
});
