import { makePdf, Txt } from './__fixtures__/make-pdf';
import { PLOVER_ROWS, ploverPage } from './__fixtures__/plover';
import { pasteJpegPatch, pastePatch, rasterPdf, renderGray, scanify } from '../../../tools/corpus/scan';
import { makeStatement } from '../../../tools/corpus/corpus';
import { LAYOUTS } from '../../../tools/corpus/layouts';
import { hashSeed } from '../../../tools/corpus/rng';
import { amountGrids } from '../../../tools/bench/jpeg-grid';
import { extractLayout, openDocument, parseStatementFile, shutdownOcr } from './index';
import { scanFindings, wordPixelStats } from './tamper-scan';

const ROWS = PLOVER_ROWS;
const Y0 = 125;
const LH = 14;

const page = (rowsIn: string[][]): Txt[] => ploverPage(rowsIn, { y0: Y0, lh: LH, size: 10 });

// a short page: less to scan, render and recognise
const SIZE: [number, number] = [612, 260];
const SCALE = 200 / 72;
const read = (bytes: Uint8Array) => parseStatementFile(bytes, { receivedAt: new Date(Date.UTC(2025, 5, 1)) });

afterAll(() => shutdownOcr());

describe('scan tamper findings (pasted patch)', () => {
  it('measures a scanned word as noisy and soft, a typed-on patch as clean and crisp', async () => {
    const clean = await renderGray(await makePdf([page(ROWS)], { size: SIZE }));
    const scan = scanify(clean, { seed: 7 });
    // the deposit 1,200.00 of row 2 (right edge 460, baseline Y0 + LH, 10 pt)
    const box: [number, number, number, number] = [421, Y0 + LH - 7.5, 460, Y0 + LH + 0.5];
    const scanned = wordPixelStats(scan, SCALE, box)!;
    const patched = wordPixelStats(pastePatch(scan, clean, [414, Y0 + LH - 10, 464, Y0 + LH + 4], SCALE), SCALE, box)!;
    expect(scanned.noise!).toBeGreaterThan(3);
    expect(patched.noise!).toBeLessThan(1);
    expect(scanned.sharp!).toBeLessThan(0.65);
    expect(patched.sharp!).toBeGreaterThan(0.8);
    expect(Math.abs(scanned.tone - patched.tone)).toBeLessThanOrEqual(3);
    // neither bends its ink on a pixel grid of its own (a finding needs 0.3)
    expect(scanned.grid!).toBeLessThan(0.2);
    expect(patched.grid!).toBeLessThan(0.2);
  });

  it('measures a patch enlarged from half the resolution as bending on a 2-pixel grid, whatever noise it was given', async () => {
    const clean = await renderGray(await makePdf([page(ROWS)], { size: SIZE }));
    const scan = scanify(clean, { seed: 7 });
    const box: [number, number, number, number] = [421, Y0 + LH - 7.5, 460, Y0 + LH + 0.5];
    const rect: [number, number, number, number] = [414, Y0 + LH - 10, 464, Y0 + LH + 4];
    const enlarged = wordPixelStats(pastePatch(scan, clean, rect, SCALE, 'resampled', { seed: 3 }), SCALE, box)!;
    const matched = wordPixelStats(pastePatch(scan, clean, rect, SCALE, 'noise_matched', { seed: 3 }), SCALE, box)!;
    expect(enlarged.grid!).toBeGreaterThan(0.35);
    // its noise was matched to the page's and its edges are as soft as the scanner's: only the grid tells
    expect(Math.abs(enlarged.noise! - wordPixelStats(scan, SCALE, box)!.noise!)).toBeLessThan(1.5);
    expect(matched.grid!).toBeLessThan(0.2);
    expect(matched.sharp!).toBeGreaterThan(0.75);
  });

  it('finds no patch on a scanned page, and names the row of an amount pasted in as a crisp patch', async () => {
    const scan = scanify(await renderGray(await makePdf([page(ROWS)], { size: SIZE })), { seed: 32 });
    const plain = await read(await rasterPdf(scan, SIZE));
    expect(plain.extractionMethod).toBe('ocr');
    expect(plain.transactions.length).toBe(8);
    expect((plain.tamperFindings ?? []).filter((f) => f.kind === 'pasted_patch')).toEqual([]);

    // the deposit of row 2 made 4,200.00: the edited page rendered crisply, pasted over the cell with a margin
    const edited = ROWS.map((r) => [...r]);
    edited[1][3] = '4,200.00';
    const clean = await renderGray(await makePdf([page(edited)], { size: SIZE }));
    const base = Y0 + LH;
    const patched = pastePatch(scan, clean, [414, base - 10, 464, base + 4], SCALE);
    const res = await read(await rasterPdf(patched, SIZE));
    const row = res.transactions.findIndex((t) => Math.abs(t.amount - 4200) < 0.005);
    expect(row).toBeGreaterThanOrEqual(0);
    const patch = (res.tamperFindings ?? []).filter((f) => f.kind === 'pasted_patch');
    expect(patch).toHaveLength(1);
    expect(patch[0]).toMatchObject({ category: 'content', severity: 'high', page: 1, row });
    expect(patch[0].message).toMatch(/4,200\.00 is cleaner and sharper than the other \d+ amounts of its (column|page): paper noise/);
    expect(res.pdfRiskLevel).toBe('high');
  }, 60_000);

  it('names the row of an amount pasted in enlarged from a smaller image, its noise matched to the page', async () => {
    const scan = scanify(await renderGray(await makePdf([page(ROWS)], { size: SIZE })), { seed: 32 });
    const edited = ROWS.map((r) => [...r]);
    edited[7][3] = '940.00';
    const clean = await renderGray(await makePdf([page(edited)], { size: SIZE }));
    const base = Y0 + 7 * LH;
    const patched = pastePatch(scan, clean, [414, base - 10, 464, base + 4], SCALE, 'resampled', { seed: 11 });
    const res = await read(await rasterPdf(patched, SIZE));
    const row = res.transactions.findIndex((t) => Math.abs(t.amount - 940) < 0.005);
    expect(row).toBeGreaterThanOrEqual(0);
    const patch = (res.tamperFindings ?? []).filter((f) => f.kind === 'pasted_patch');
    expect(patch).toHaveLength(1);
    expect(patch[0]).toMatchObject({ category: 'content', page: 1, row });
    expect(patch[0].message).toMatch(
      /940\.00 .*its ink bends on a grid of 2 or 3 pixels, as an enlarged image's does \(grid score 0\.\d\d against 0\.\d\d/,
    );
    expect(res.pdfRiskLevel).not.toBe('low');
  }, 60_000);

  it('measures the block grid of a patch cut from another JPEG, and the page saved as JPEG quality 85 erasing it', async () => {
    const dpi = 300;
    const text = await makePdf([page(ROWS)], { size: SIZE });
    const edited = ROWS.map((r) => [...r]);
    edited[1][3] = '4,200.00';
    const scan = scanify(await renderGray(text, 0, dpi), { seed: 7 });
    const clean = await renderGray(await makePdf([page(edited)], { size: SIZE }), 0, dpi);
    const base = Y0 + LH;
    // saved as JPEG quality 75 on a grid 3 px right of and 5 px below the page image's own
    const patched = await pasteJpegPatch(scan, clean, [414, base - 10, 464, base + 4], dpi / 72, { seed: 3 });
    const opened = await openDocument(text);
    const lines = (await extractLayout(opened, { ocr: false })).pages[0].lines;
    opened.close();
    const box: [number, number, number, number] = [421, base - 7.5, 460, base + 0.5];
    const lossless = (await amountGrids(await rasterPdf(patched, SIZE), lines, [box]))!;
    const resaved = (await amountGrids(await rasterPdf(patched, SIZE, 85), lines, [box]))!;
    const control = (await amountGrids(await rasterPdf(scan, SIZE, 85), lines, [box]))!;
    expect(lossless.others.length).toBeGreaterThanOrEqual(12);
    // the page kept lossless: the patched amount's paper steps on the patch's own grid, the others' on none
    // (0.21 against at most 0.07)
    expect(lossless.edited!).toBeGreaterThan(0.15);
    expect(lossless.edited!).toBeGreaterThan(2 * Math.max(...lossless.others));
    // saved as JPEG q85, the page's quantisation smooths the patch's steps away: nothing above the page's own words (0.08 against up to 0.15)
    expect(resaved.edited!).toBeLessThan(Math.max(...resaved.others, ...control.others, control.edited!));
  }, 60_000);

  it('finds no patch on a scanned page saved as JPEG, nor on one with a patch cut from another JPEG pasted in', async () => {
    const scan = scanify(await renderGray(await makePdf([page(ROWS)], { size: SIZE })), { seed: 32 });
    const plain = await read(await rasterPdf(scan, SIZE, 85));
    expect(plain.transactions.length).toBe(8);
    expect((plain.tamperFindings ?? []).filter((f) => f.kind === 'pasted_patch')).toEqual([]);
    const edited = ROWS.map((r) => [...r]);
    edited[1][3] = '4,200.00';
    const clean = await renderGray(await makePdf([page(edited)], { size: SIZE }));
    const base = Y0 + LH;
    // blurred and noised like the page before its own JPEG: only its block grid differs, which the page's JPEG erases
    const patched = await pasteJpegPatch(scan, clean, [414, base - 10, 464, base + 4], SCALE, { seed: 3 });
    const res = await read(await rasterPdf(patched, SIZE, 85));
    expect(res.transactions.some((t) => Math.abs(t.amount - 4200) < 0.005)).toBe(true);
    expect((res.tamperFindings ?? []).filter((f) => f.kind === 'pasted_patch')).toEqual([]);
  }, 60_000);

  it('leaves the grid signal out on a page whose image is drawn at another resolution than the 200 dpi render', async () => {
    // the scan bench's seed-7 control of this layout with its image at 300 dpi: rendered at 200 dpi, one
    // amount's ink bent on the render's own 2-pixel grid (0.35 against 0.14), a false "enlarged" finding
    const layout = LAYOUTS.find((l) => l.name === 'credit_debit_daily_balance')!;
    const item = await makeStatement(layout, 7, 14);
    const dpi = 300;
    const scan = scanify(await renderGray(item.bytes, 0, dpi), { seed: hashSeed(7, `corpus:${item.name}`, 'scan@300') });
    const pdf = await rasterPdf(scan, [scan.width / (dpi / 72), scan.height / (dpi / 72)], 85);
    const res = await read(pdf);
    expect(res.transactions.length).toBeGreaterThanOrEqual(13);
    expect((res.tamperFindings ?? []).filter((f) => f.kind === 'pasted_patch')).toEqual([]);
    const opened = await openDocument(pdf);
    const layoutRead = await extractLayout(opened);
    opened.close();
    const stats = layoutRead.scans.get(0)!;
    expect(stats.resampled).toBe(true);
    // measured as if the image were at the render's resolution, the grid signal names an unedited amount
    const unguarded = scanFindings([{ ...stats, resampled: false }], res.transactions);
    expect(unguarded.map((f) => f.message)).toEqual([expect.stringMatching(/its ink bends on a grid of 2 or 3 pixels/)]);
  }, 120_000);
});
