import { makePdf } from './__fixtures__/make-pdf';
import { PLOVER_ROWS, ploverPage } from './__fixtures__/plover';
import { rasterPdf, renderGray, scanify } from '../../../tools/corpus/scan';
import { parseStatementFile, POOR_OCR, shutdownOcr } from './index';

afterAll(() => shutdownOcr());

const SIZE: [number, number] = [612, 260];
const read = (bytes: Uint8Array) => parseStatementFile(bytes, { receivedAt: new Date(Date.UTC(2025, 5, 1)) });

describe('a scan OCR reads poorly', () => {
  it('is put up for review with its page named, even when nothing in it reads as a statement; a clean scan is not', async () => {
    const clean = await renderGray(await makePdf([ploverPage(PLOVER_ROWS, { y0: 125, lh: 14, size: 10 })], { size: SIZE }));
    // the same page under a scanner's usual noise, and under noise OCR cannot see through (a photo in poor light)
    const fine = await read(await rasterPdf(scanify(clean, { seed: 1 }), SIZE, 75));
    expect(fine.extractionConfidence).toBeGreaterThan(0.9);
    expect(fine.transactions).toHaveLength(8);
    expect(fine.reviewReasons.some((r) => /read poorly/.test(r))).toBe(false);
    const poor = await read(await rasterPdf(scanify(clean, { seed: 1, noise: 45 }), SIZE, 75));
    expect(poor.extractionConfidence).toBeLessThan(POOR_OCR);
    // nothing reads as a bank statement any more: without this reason it would pass as "other", unreviewed
    expect(poor.documentType).toBe('other');
    expect(poor.needsReview).toBe(true);
    expect(poor.reviewReasons).toEqual([
      expect.stringMatching(
        /^page 1 of the scan read poorly: OCR is \d+% confident of the words, so rows may be missing or misread: check the page, or ask for a clearer copy$/,
      ),
    ]);
  }, 120_000);
});
