import { makePdf, Txt } from './__fixtures__/make-pdf';
import { PLOVER_ROWS, ploverPage } from './__fixtures__/plover';
import {
  clonePatch,
  cloneRect,
  jpegRoundTrip,
  overlayPatch,
  pasteJpegPatch,
  pastePatch,
  rasterPdf,
  renderGray,
  scanify,
  squash,
} from '../../../tools/corpus/scan';
import { PDFDocument } from 'pdf-lib';
import { makeStatement } from '../../../tools/corpus/corpus';
import { LAYOUTS } from '../../../tools/corpus/layouts';
import { hashSeed } from '../../../tools/corpus/rng';
import { amountGrids } from '../../../tools/bench/jpeg-grid';
import { extractLayout, isMoney, openDocument, parseStatementFile, readPageInk, shutdownOcr, tokensOf } from './index';
import { rotateRaster, turnBox } from './deskew';
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

/** Reads `pdf` (the amount of row 8 patched to 940.00): one pasted_patch finding, on that row, and the document's level not low; its sentence. */
async function enlargedFinding(pdf: Uint8Array): Promise<string> {
  const res = await read(pdf);
  const row = res.transactions.findIndex((t) => Math.abs(t.amount - 940) < 0.005);
  expect(row).toBeGreaterThanOrEqual(0);
  const patch = (res.tamperFindings ?? []).filter((f) => f.kind === 'pasted_patch');
  expect(patch).toHaveLength(1);
  expect(patch[0]).toMatchObject({ category: 'content', page: 1, row });
  expect(res.pdfRiskLevel).not.toBe('low');
  return patch[0].message;
}

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
    expect(await enlargedFinding(await rasterPdf(patched, SIZE))).toMatch(
      /940\.00 .*its ink bends on a grid of 2 or 3 pixels, as an enlarged image's does \(grid score 0\.\d\d against 0\.\d\d/,
    );
  }, 60_000);

  it("names an amount copied over another within the scan (its noise is its source's), PNG and JPEG; nothing on a noiseless page", async () => {
    const clean = await renderGray(await makePdf([page(ROWS)], { size: SIZE }));
    const scan = scanify(clean, { seed: 32 });
    // row 2's deposit (1,200.00) copied over row 8's (640.00), right edges and bottoms aligned
    const cell = (row: number): [number, number, number, number] => [414, Y0 + row * LH - 8, 460, Y0 + row * LH + 2];
    for (const jpeg of [undefined, 85]) {
      const res = await read(await rasterPdf(clonePatch(scan, cell(1), cell(7), SCALE), SIZE, jpeg));
      const rows = res.transactions.map((t, i) => (Math.abs(t.amount - 1200) < 0.005 ? i : -1)).filter((i) => i >= 0);
      expect(rows).toHaveLength(2);
      const copy = (res.tamperFindings ?? []).filter((f) => f.kind === 'pasted_patch');
      expect(copy).toHaveLength(1);
      expect(copy[0]).toMatchObject({ category: 'content', page: 1, severity: jpeg ? expect.any(String) : 'high' });
      // the pixels cannot tell which is the copy; the balance chain breaks at row 8, the one edited
      expect(copy[0].row).toBe(7);
      expect(copy[0].message).toMatch(/the arithmetic breaks at row 8, so that is likely the copy$/);
      // both amounts boxed: the copy and its source
      for (const r of rows) {
        const b = res.transactions[r].source!.boxes[0];
        expect(copy[0].boxes.some((x) => x[1] < b[3] && x[3] > b[1] && x[0] > 400)).toBe(true);
      }
      expect(copy[0].message).toMatch(
        /the amount 1,200\.00 \(row \d: .*\) and the amount 1,200\.00 \(row \d: .*\) carry the same paper: the scanner's noise around \d+ of their characters matches pixel for pixel \(correlation (0\.\d\d|1\.00) over \d+ pixels/,
      );
      expect(res.pdfRiskLevel).not.toBe('low');
    }
    // the same copy on a page with no scanner noise: two prints of 1,200.00 are alike there, nothing to tell
    const flat = scanify(clean, { seed: 32, noise: 0 });
    const res = await read(await rasterPdf(clonePatch(flat, cell(1), cell(7), SCALE), SIZE));
    expect(res.transactions.filter((t) => Math.abs(t.amount - 1200) < 0.005)).toHaveLength(2);
    expect((res.tamperFindings ?? []).filter((f) => f.kind === 'pasted_patch')).toEqual([]);
  }, 90_000);

  it('names one digit copied over another within the scan (the same pixels, ink and noise) on a lossless page; nothing on the unedited page', async () => {
    const pdf = await makePdf([page(ROWS)], { size: SIZE });
    const opened = await openDocument(pdf);
    const ink = await readPageInk(opened, 0);
    opened.close();
    const toks = tokensOf(
      ink.glyphs.filter((g) => g.mode === 'fill'),
      1,
    ).filter((t) => isMoney(t.text));
    const glyphBox = (text: string, i: number): [number, number, number, number] => {
      const g = toks.find((t) => t.text === text)!.glyphs[i];
      return [g.x0, g.y0, g.x1, g.y1];
    };
    const scan = scanify(await renderGray(pdf), { seed: 32 });
    // the 3 of row 5's 300.00 copied over the 4 of row 8's 640.00, its glyph box as a selection tool takes it
    const res = await read(await rasterPdf(cloneRect(scan, glyphBox('300.00', 0), glyphBox('640.00', 1), SCALE), SIZE));
    const row = res.transactions.findIndex((t) => Math.abs(t.amount - 630) < 0.005);
    expect(row).toBe(7);
    const copy = (res.tamperFindings ?? []).filter((f) => f.kind === 'pasted_patch');
    expect(copy).toHaveLength(1);
    expect(copy[0]).toMatchObject({ category: 'content', severity: 'high', page: 1, row: 7 });
    expect(copy[0].message).toMatch(
      /^page 1: a character of the amount (630\.00 \(row 8: .*\) and one of the amount 300\.00 \(row 5: .*\)|300\.00 \(row 5: .*\) and one of the amount 630\.00 \(row 8: .*\)) are the same pixels: they differ by 0\.\d\d grey levels on average over \d+ pixels, where two prints of one character on this page differ by \d\.\d \(the median\) and no other pair by less than \d\.\d: .*; the arithmetic breaks at row 8, so that is likely the copy$/,
    );
    // the two glyphs boxed: the copy over the 4, and its source
    const near = (b: number[], c: number[]) => Math.abs(b[0] - c[0]) < 2 && Math.abs(b[1] - c[1]) < 4 && Math.abs(b[2] - c[2]) < 2;
    for (const g of [glyphBox('640.00', 1), glyphBox('300.00', 0)]) expect(copy[0].boxes.some((b) => near(b, g))).toBe(true);
    // the unedited page: every digit printed twice differs by the scanner's noise
    const plain = await read(await rasterPdf(scan, SIZE));
    expect((plain.tamperFindings ?? []).filter((f) => f.kind === 'pasted_patch')).toEqual([]);
  }, 90_000);

  it("compares a copied amount in the page image's own pixels where the render resamples it (300 dpi): the copy is exact there", async () => {
    const dpi = 300;
    const scan = scanify(await renderGray(await makePdf([page(ROWS)], { size: SIZE }), 0, dpi), { seed: 32 });
    const cell = (row: number): [number, number, number, number] => [414, Y0 + row * LH - 8, 460, Y0 + row * LH + 2];
    const res = await read(await rasterPdf(clonePatch(scan, cell(1), cell(7), dpi / 72), SIZE));
    const copy = (res.tamperFindings ?? []).filter((f) => f.kind === 'pasted_patch');
    expect(copy).toHaveLength(1);
    expect(copy[0]).toMatchObject({ severity: 'high', row: 7 });
    // resampled to 200 dpi the copy and its source fall on different phases and read less than 1
    expect(copy[0].message).toMatch(/the amount 1,200\.00 .* carry the same paper: .*\(correlation 1\.00 over \d+ pixels/);
  }, 120_000);

  it('names the row of an amount laid over the scan as an image of its own, its pixels made like the page; not a logo in the margin', async () => {
    const scan = scanify(await renderGray(await makePdf([page(ROWS)], { size: SIZE })), { seed: 32 });
    const control = await rasterPdf(scan, SIZE, 85);
    const edited = ROWS.map((r) => [...r]);
    edited[4][3] = '7,350.00';
    const clean = await renderGray(await makePdf([page(edited)], { size: SIZE }));
    const base = Y0 + 4 * LH;
    const rect: [number, number, number, number] = [410, base - 10, 464, base + 4];
    // blurred and noised like the page: the pixels alone show nothing (the bench's `rescanned` patch)
    const look = pastePatch(scan, clean, rect, SCALE, 'image_overlay', { seed: 5 });
    const res = await read(await overlayPatch(control, look, rect, SCALE));
    const row = res.transactions.findIndex((t) => Math.abs(t.amount - 7350) < 0.005);
    expect(row).toBeGreaterThanOrEqual(0);
    const laid = (res.tamperFindings ?? []).filter((f) => f.kind === 'pasted_image');
    expect(laid).toHaveLength(1);
    expect(laid[0]).toMatchObject({ category: 'content', severity: 'high', page: 1, row });
    const [x0, y0, x1, y1] = laid[0].boxes[0];
    expect(x0).toBeCloseTo(rect[0], 0);
    expect(y0).toBeCloseTo(rect[1], 0);
    expect(x1).toBeCloseTo(rect[2], 0);
    expect(y1).toBeCloseTo(rect[3], 0);
    expect(laid[0].message).toMatch(
      /^page 1: the amount 7,350\.00 is an image of its own \(151 x 39 px at 200 dpi, Flate, lossless\), laid over the page's scanned image \(JPEG\) after it: .*\(row \d+: /,
    );
    expect(res.pdfRiskLevel).toBe('high');

    // a stamp above the table, over no value: a scan may carry one, and it says nothing of the figures
    const doc = await PDFDocument.load(control);
    const png = await doc.embedPng(await greyPng(40, 20));
    doc.getPage(0).drawImage(png, { x: 20, y: SIZE[1] - 40, width: 40, height: 20 });
    const stamped = await read(await doc.save());
    expect(stamped.transactions.length).toBe(8);
    expect((stamped.tamperFindings ?? []).filter((f) => f.kind === 'pasted_image')).toEqual([]);
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
    // the page kept lossless: the patched amount's paper steps on the patch's own grid across and down,
    // the others' on neither
    expect(lossless.edited!).toBeGreaterThan(0.15);
    expect(lossless.edited!).toBeGreaterThan(2 * Math.max(...lossless.others));
    // saved as JPEG q85, the page's quantisation smooths the patch's steps away: nothing above the page's own words (0.08 against up to 0.15)
    expect(resaved.edited!).toBeLessThan(Math.max(...resaved.others, ...control.others, control.edited!));
  }, 60_000);

  it('names a patch cut from another JPEG by its block grid on a 300 dpi page image kept lossless, and nothing on the page without it', async () => {
    const dpi = 300;
    const size: [number, number] = SIZE;
    const scan = scanify(await renderGray(await makePdf([page(ROWS)], { size }), 0, dpi), { seed: 7 });
    const plain = await read(await rasterPdf(scan, size));
    expect(plain.transactions.length).toBe(8);
    expect((plain.tamperFindings ?? []).filter((f) => f.kind === 'pasted_patch')).toEqual([]);
    const edited = ROWS.map((r) => [...r]);
    edited[1][3] = '4,200.00';
    const clean = await renderGray(await makePdf([page(edited)], { size }), 0, dpi);
    const base = Y0 + LH;
    // blurred and noised like the page: only the patch's own 8x8 grid (3, 5) px off the page's differs
    const patched = await pasteJpegPatch(scan, clean, [414, base - 10, 464, base + 4], dpi / 72, { seed: 3 });
    const res = await read(await rasterPdf(patched, size));
    const row = res.transactions.findIndex((t) => Math.abs(t.amount - 4200) < 0.005);
    expect(row).toBeGreaterThanOrEqual(0);
    const patch = (res.tamperFindings ?? []).filter((f) => f.kind === 'pasted_patch');
    expect(patch).toHaveLength(1);
    expect(patch[0]).toMatchObject({ page: 1, row, severity: 'medium' });
    expect(patch[0].message).toMatch(
      /4,200\.00 stands out from the other \d+ amounts of its (column|page): the paper around it steps on an 8-pixel grid other than the page image's, as a patch cut from another JPEG image does \(block grid 0\.\d\d against 0\.\d\d/,
    );
  }, 120_000);

  it("names a patch enlarged from a smaller image on a 300 dpi page image, measured in the image's own pixels", async () => {
    const dpi = 300;
    const scan = scanify(await renderGray(await makePdf([page(ROWS)], { size: SIZE }), 0, dpi), { seed: 32 });
    const edited = ROWS.map((r) => [...r]);
    edited[7][3] = '940.00';
    const clean = await renderGray(await makePdf([page(edited)], { size: SIZE }), 0, dpi);
    const base = Y0 + 7 * LH;
    const patched = pastePatch(scan, clean, [414, base - 10, 464, base + 4], dpi / 72, 'resampled', { seed: 11 });
    expect(await enlargedFinding(await rasterPdf(patched, SIZE, 85))).toMatch(
      /940\.00 .*as an enlarged image's does \(grid score 0\.\d\d against 0\.\d\d.*, in the page image's own pixels\)/,
    );
  }, 120_000);

  it("names an enlarged patch on a page image sampled at 300 dpi across and 290 down, in the image's own pixels", async () => {
    // two of the development set's scans are drawn so (171 x 169 and 213 x 205 dpi): the patch is
    // enlarged on the image's pixel grid, whatever the image's resolution down the page
    const dpi = 300;
    const down = 290 / 300;
    const scan = scanify(squash(await renderGray(await makePdf([page(ROWS)], { size: SIZE }), 0, dpi), down), { seed: 32 });
    const edited = ROWS.map((r) => [...r]);
    edited[7][3] = '940.00';
    const clean = squash(await renderGray(await makePdf([page(edited)], { size: SIZE }), 0, dpi), down);
    const base = Y0 + 7 * LH;
    const scale: [number, number] = [dpi / 72, scan.height / SIZE[1]];
    const patched = pastePatch(scan, clean, [414, base - 10, 464, base + 4], scale, 'resampled', { seed: 11 });
    expect(await enlargedFinding(await rasterPdf(patched, SIZE))).toMatch(
      /940\.00 .*as an enlarged image's does \(grid score 0\.\d\d against 0\.\d\d.*, in the page image's own pixels\)/,
    );
    // the unpatched page: nothing
    const plain = await read(await rasterPdf(scan, SIZE));
    expect((plain.tamperFindings ?? []).filter((f) => f.kind === 'pasted_patch')).toEqual([]);
  }, 120_000);

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

  it("names a patch made like the scan where the page went through the scanner's JPEG before it was saved again, PNG or finer JPEG", async () => {
    // a scanner that stores its pages as JPEG quality 75; the deposit of row 8 made 940.00 and pasted in
    // blurred and noised like the page: nothing in its noise, edges, tone or grid tells it
    const scan = await jpegRoundTrip(scanify(await renderGray(await makePdf([page(ROWS)], { size: SIZE })), { seed: 32 }), 75);
    const edited = ROWS.map((r) => [...r]);
    edited[7][3] = '940.00';
    const clean = await renderGray(await makePdf([page(edited)], { size: SIZE }));
    const base = Y0 + 7 * LH;
    const patched = pastePatch(scan, clean, [414, base - 10, 464, base + 4], SCALE, 'rescanned', { seed: 11 });
    for (const again of [90, undefined]) {
      // the page saved again unedited: nothing
      const plain = await read(await rasterPdf(scan, SIZE, again));
      expect(plain.transactions.length).toBe(8);
      expect((plain.tamperFindings ?? []).filter((f) => f.kind === 'pasted_patch')).toEqual([]);
      const res = await read(await rasterPdf(patched, SIZE, again));
      const row = res.transactions.findIndex((t) => Math.abs(t.amount - 940) < 0.005);
      const patch = (res.tamperFindings ?? []).filter((f) => f.kind === 'pasted_patch');
      expect(patch).toHaveLength(1);
      expect(patch[0]).toMatchObject({ category: 'content', severity: 'high', page: 1, row });
      expect(patch[0].message).toMatch(
        new RegExp(
          `^page 1: the amount 940\\.00 lies in a region of \\d+ x \\d+ pt \\(\\d+ blocks of 8 x 8 pixels\\) whose pixels were put in after the JPEG compression the rest of the page went through before it was saved ${again ? 'again' : 'lossless'}: \\d+% of the DCT coefficients of its blocks fall off that compression's steps, \\d% over the rest of the page`,
        ),
      );
      // the region covers the patch
      expect(patch[0].boxes[0][0]).toBeLessThanOrEqual(421);
      expect(patch[0].boxes[0][2]).toBeGreaterThanOrEqual(460);
    }
    // a row painted over with paper made like the page (row 7 deleted): a region in the table with nothing read on it
    const gone = ROWS.map((r, i) => (i === 6 ? r.map(() => '') : [...r]));
    const blank = await renderGray(await makePdf([page(gone)], { size: SIZE }));
    const row7 = Y0 + 6 * LH;
    const erased = pastePatch(scan, blank, [30, row7 - 10, 580, row7 + 4], SCALE, 'rescanned', { seed: 12 });
    const res7 = await read(await rasterPdf(erased, SIZE, 90));
    expect(res7.transactions.length).toBe(7);
    const painted = (res7.tamperFindings ?? []).filter((f) => f.kind === 'pasted_patch');
    expect(painted).toHaveLength(1);
    expect(painted[0]).toMatchObject({ severity: 'medium', page: 1 });
    expect(painted[0].message).toMatch(/^page 1: in the table of amounts, with nothing read on it, lies a region of \d+ x \d+ pt/);
    expect(painted[0].boxes[0][1]).toBeLessThan(row7);
    expect(painted[0].boxes[0][3]).toBeGreaterThan(row7 - 6);
    // the same patch on a page the scanner stored lossless, saved as JPEG once after the edit: no earlier steps to fall off
    const once = pastePatch(
      scanify(await renderGray(await makePdf([page(ROWS)], { size: SIZE })), { seed: 32 }),
      clean,
      [414, base - 10, 464, base + 4],
      SCALE,
      'rescanned',
      { seed: 11 },
    );
    const res = await read(await rasterPdf(once, SIZE, 90));
    expect(res.transactions.some((t) => Math.abs(t.amount - 940) < 0.005)).toBe(true);
    expect((res.tamperFindings ?? []).filter((f) => f.kind === 'pasted_patch')).toEqual([]);
  }, 120_000);

  it('names the same patch on a page fed askew, straightened before OCR: the region turned onto the straightened page', async () => {
    // the paper 1.5 degrees askew under a scanner that stores JPEG quality 75; the page saved again as JPEG quality 90
    const turn = (r: Awaited<ReturnType<typeof renderGray>>) => rotateRaster(r, 1.5);
    const scan = await jpegRoundTrip(scanify(turn(await renderGray(await makePdf([page(ROWS)], { size: SIZE }))), { seed: 32 }), 75);
    const edited = ROWS.map((r) => [...r]);
    edited[7][3] = '940.00';
    const clean = turn(await renderGray(await makePdf([page(edited)], { size: SIZE })));
    const base = Y0 + 7 * LH;
    const rect = turnBox([414, base - 10, 464, base + 4], 1.5, SIZE) as [number, number, number, number];
    const patched = pastePatch(scan, clean, rect, SCALE, 'rescanned', { seed: 11 });
    const plain = await read(await rasterPdf(scan, SIZE, 90));
    expect(plain.warnings.some((w) => /askew: straightened before OCR/.test(w))).toBe(true);
    expect(plain.transactions.length).toBe(8);
    expect((plain.tamperFindings ?? []).filter((f) => f.kind === 'pasted_patch')).toEqual([]);
    const res = await read(await rasterPdf(patched, SIZE, 90));
    const row = res.transactions.findIndex((t) => Math.abs(t.amount - 940) < 0.005);
    expect(row).toBeGreaterThanOrEqual(0);
    const patch = (res.tamperFindings ?? []).filter((f) => f.kind === 'pasted_patch');
    expect(patch).toHaveLength(1);
    expect(patch[0]).toMatchObject({ category: 'content', severity: 'high', page: 1, row });
    expect(patch[0].message).toMatch(/^page 1: the amount 940\.00 lies in a region of .* before it was saved again:/);
    // on the straightened page, where the amount was printed: the region's box turned back
    const [x0, y0, x1, y1] = patch[0].boxes[0];
    expect(x0).toBeLessThanOrEqual(421);
    expect(x1).toBeGreaterThanOrEqual(460);
    expect(y0).toBeLessThanOrEqual(base - 6);
    expect(y1).toBeGreaterThanOrEqual(base);
    expect(y1 - y0).toBeLessThan(40);
  }, 120_000);

  it("judges the grid in the page image's own pixels, not the 200 dpi render's, where the image is drawn at another resolution", async () => {
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
    // measured again in the image's own pixels instead (and JPEG q85: no block grid judged)
    expect(stats.nativeGrid).toBe(true);
    expect(stats.blocks).toBeUndefined();
    // measured as if the image were at the render's resolution, the grid signal names an unedited amount
    const unguarded = scanFindings([{ ...stats, resampled: false, nativeGrid: false }], res.transactions);
    expect(unguarded.map((f) => f.message)).toEqual([expect.stringMatching(/its ink bends on a grid of 2 or 3 pixels/)]);
  }, 120_000);
});

/** A mid-grey PNG of w x h pixels. */
async function greyPng(w: number, h: number): Promise<Uint8Array> {
  const mupdf = await import('mupdf');
  const pix = new mupdf.Pixmap(mupdf.ColorSpace.DeviceGray, [0, 0, w, h], false);
  try {
    pix.getPixels().fill(128);
    return pix.asPNG();
  } finally {
    pix.destroy?.();
  }
}
