import { OCR_WORKERS, ocrImage, pgm } from './ocr';
import { deskew } from './deskew';
import { splitRow } from './page-split';
import { extractPageText, GrayRaster, groupLines, InkCollector, PageImages, pageImagePixels, pageImages, renderPageGray } from './extract';
import type { PageInk } from './ink';
import { needsPageImage, ScanPageStats, scanPageStats } from './tamper-scan';
import { OpenedDocument } from './open';
import { DEFAULT_LIMITS, Limits, Line, PageLayout, ParseStep, StatementError, Word } from './types';

export interface LayoutResult {
  pages: PageLayout[];
  extractionMethod: 'text' | 'ocr' | 'mixed';
  extractionConfidence: number;
  rawTextPages: number;
  ocrPages: number;
  warnings: string[];
  /** the glyphs of the text pages read for the content tamper checks (with `inkGlyphs`), by 0-based page index */
  inks: Map<number, PageInk>;
  /** the pixel statistics of the amounts of the pages read whole by OCR (tamper-scan.ts), by 0-based page index */
  scans: Map<number, ScanPageStats>;
}

export interface LayoutOptions {
  limits?: Partial<Limits>;
  ocr?: boolean;
  signal?: AbortSignal;
  onStep?: (step: ParseStep) => void;
  /** read the glyphs of the text pages' digit words too (up to this many over the document): see InkCollector */
  inkGlyphs?: number;
}

const tick = () => new Promise<void>((r) => setImmediate(r));

function checkAbort(signal?: AbortSignal) {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
}

const isBad = (ch: string) => ch === '\uFFFD' || (ch >= '\uE000' && ch <= '\uF8FF') || ch < ' ';
const badChars = (l: Line) => {
  let n = 0;
  for (const ch of l.text) if (isBad(ch)) n++;
  return n;
};

/** What a page needs from OCR: nothing, the whole page, or only the bands (PDF points) of its unreadable lines. */
export type OcrNeed = null | { kind: 'page' } | { kind: 'lines'; bands: Array<[number, number]> };

/**
 * A page without text, or a scan with a token text layer, is read whole. A text layer without usable
 * Unicode (fonts without ToUnicode) is read from the pixels too, but where most of the page reads
 * fine only the bands of the unreadable lines are recognised (the readable lines are kept as they
 * are: exact, and no OCR time spent on them).
 */
export function ocrNeed(p: PageLayout): OcrNeed {
  const chars = p.lines.reduce((n, l) => n + l.text.length, 0);
  if (chars === 0) return { kind: 'page' };
  const bad = p.lines.reduce((n, l) => n + badChars(l), 0);
  if (bad / chars > 0.3) {
    const garbled = p.lines.filter((l) => badChars(l) / Math.max(1, l.text.length) > 0.3);
    const goodChars = p.lines.filter((l) => !garbled.includes(l)).reduce((n, l) => n + l.text.length, 0);
    if (goodChars < 100 || garbled.length > p.lines.length * 0.6) return { kind: 'page' };
    const bands: Array<[number, number]> = [];
    for (const l of [...garbled].sort((x, y) => x.y0 - y.y0)) {
      const pad = Math.max(1.5, (l.y1 - l.y0) * 0.25);
      const y0 = Math.max(0, l.y0 - pad);
      const y1 = Math.min(p.height, l.y1 + pad);
      const last = bands[bands.length - 1];
      if (last && y0 <= last[1] + 3) last[1] = Math.max(last[1], y1);
      else bands.push([y0, y1]);
    }
    return { kind: 'lines', bands };
  }
  const area = p.width * p.height;
  const imgArea = p.imageRects.reduce((s, r) => s + (r[2] - r[0]) * (r[3] - r[1]), 0);
  return chars < 40 && imgArea > area * 0.5 ? { kind: 'page' } : null;
}

/** One image handed to an OCR worker: a page, or a band of its unreadable lines. */
interface Piece {
  job: OcrJob;
  image: Uint8Array;
  offsetY: number;
}

interface OcrJob {
  page: PageLayout;
  need: Exclude<OcrNeed, null>;
  words: Word[];
  confSum: number;
  confN: number;
  pending: number;
  failed: boolean;
  /** pixels per PDF point of the rendered page */
  scale: number;
  /** the raster a whole page's OCR read, held until finishJob measures its amounts (tamper-scan.ts) */
  raster?: GrayRaster;
  /** the images a whole scanned page is drawn from (pageImages) */
  images?: PageImages;
  /** the page's own image decoded at its own resolution, for the scan checks that need it (needsPageImage); on a deskewed page, only for the earlier-compression check */
  native?: GrayRaster | null;
  /** the raster was straightened before OCR (deskew.ts), turned by `rotateRaster(r, skew)`: its pixels are no longer the page image's */
  skew?: number;
}

/** The images the OCR workers recognise for a rendered page (each with its offset on the page). */
function piecesOf(job: OcrJob, r: GrayRaster, scale: number): Piece[] {
  if (job.need.kind === 'lines') {
    return job.need.bands.map(([y0, y1]) => {
      const a = Math.max(0, Math.floor(y0 * scale));
      const b = Math.min(r.height, Math.ceil(y1 * scale));
      return { job, image: pgm(r, a, b), offsetY: a };
    });
  }
  // a whole page is cut in two for the workers when it has a blank band to cut at (page-split.ts)
  const cut = OCR_WORKERS > 1 ? splitRow(r) : 0;
  if (!cut) return [{ job, image: pgm(r), offsetY: 0 }];
  return [
    { job, image: pgm(r, 0, cut), offsetY: 0 },
    { job, image: pgm(r, cut, r.height), offsetY: cut },
  ];
}

/** Puts the recognised words of a page in place: the whole page, or the unreadable bands only. */
function finishJob(job: OcrJob, scans?: Map<number, ScanPageStats>): void {
  const p = job.page;
  const confidence = job.confN ? job.confSum / job.confN / 100 : 0;
  if (job.need.kind === 'page') {
    p.lines = groupLines(job.words);
    p.method = job.words.length ? 'ocr' : 'none';
    p.confidence = confidence;
    if (job.raster && scans) {
      // an image drawn at another resolution than the render's was resampled by it (a 300 dpi scan read at 200 dpi)
      const scale = job.images?.scale;
      const resampled = !!scale && scale.some((s) => Math.abs(s / job.scale - 1) > 0.01);
      scans.set(p.index, scanPageStats(job.raster, job.scale, p.lines, p.index, resampled, job.images, job.native, job.skew));
    }
    job.raster = undefined;
    job.native = undefined;
    return;
  }
  const { lines, ocrWords, textWords } = mergeOcrBands(p.lines, job.need.bands, job.words);
  p.lines = lines;
  if (ocrWords > textWords) {
    p.method = 'ocr';
    p.confidence = confidence;
  }
}

/** The text layer's words outside the bands (PDF points, top..bottom) and the OCR words inside them, as lines. */
export function mergeOcrBands(
  lines: Line[],
  bands: Array<[number, number]>,
  ocr: Word[],
): { lines: Line[]; ocrWords: number; textWords: number } {
  const inBand = (w: Word) => {
    const c = (w.y0 + w.y1) / 2;
    return bands.some(([a, b]) => c >= a && c <= b);
  };
  const kept = lines.flatMap((l) => l.words).filter((w) => !inBand(w));
  const read = ocr.filter(inBand);
  return { lines: groupLines([...kept, ...read]), ocrWords: read.length, textWords: kept.length };
}

/** Extracts words with positions for every page; pages without a text layer go through OCR. */
export async function extractLayout(opened: OpenedDocument, opts: LayoutOptions = {}): Promise<LayoutResult> {
  const lim = { ...DEFAULT_LIMITS, ...opts.limits };
  const started = Date.now();
  const warnings: string[] = [];
  const pages: PageLayout[] = [];
  opts.onStep?.('extracting_text');
  const ink: InkCollector | undefined = opts.inkGlyphs ? { used: 0, max: opts.inkGlyphs, pages: new Map() } : undefined;
  for (let i = 0; i < opened.info.pageCount; i++) {
    checkAbort(opts.signal);
    const t0 = Date.now();
    pages.push(extractPageText(opened, i, lim, ink));
    const dt = Date.now() - t0;
    if (dt > lim.pageTimeMs) throw new StatementError('too_large', `page ${i + 1} took ${dt} ms to read (budget ${lim.pageTimeMs} ms)`);
    if (Date.now() - started > lim.totalTimeMs) throw new StatementError('too_large', `text extraction exceeded ${lim.totalTimeMs} ms`);
    if (i % 8 === 7) await tick();
  }
  const toOcr: OcrJob[] = [];
  for (const page of pages) {
    const need = ocrNeed(page);
    if (need) toOcr.push({ page, need, words: [], confSum: 0, confN: 0, pending: 0, failed: false, scale: 1 });
  }
  // a page OCR reads (in whole or in bands) has other lines than its glyphs were read for
  for (const j of toOcr) ink?.pages.delete(j.page.index);
  let ocrPages = 0;
  const scans = new Map<number, ScanPageStats>();
  if (toOcr.length) {
    if (opts.ocr === false) {
      const whole = toOcr.filter((j) => j.need.kind === 'page');
      if (whole.length === pages.length) throw new StatementError('no_text', 'no page has a text layer and OCR is disabled');
      if (whole.length) warnings.push(`${whole.length} page(s) without a text layer were skipped (OCR disabled)`);
      if (whole.length < toOcr.length)
        warnings.push(`${toOcr.length - whole.length} page(s) with unreadable lines were not OCR'd (OCR disabled)`);
      for (const j of whole) j.page.method = 'none';
    } else {
      if (toOcr.length > lim.maxOcrPages) throw new StatementError('too_large', `${toOcr.length} pages need OCR, limit ${lim.maxOcrPages}`);
      opts.onStep?.('running_ocr');
      // pages are rendered one at a time (mupdf is synchronous) and their pieces (the page, or the
      // bands of its unreadable lines, or the two halves of a scanned page) recognised OCR_WORKERS at
      // a time, so a one-page scan keeps both workers busy.
      const queue: Piece[] = [];
      let nextJob = 0;
      let stop = false;
      // a page being rendered: a runner with nothing to do waits for its pieces instead of leaving
      let rendering: Promise<void> | null = null;
      const runOne = async (): Promise<void> => {
        while (!stop) {
          checkAbort(opts.signal);
          const remaining = lim.totalTimeMs - (Date.now() - started);
          if (remaining <= 0) throw new StatementError('too_large', `OCR exceeded ${lim.totalTimeMs} ms`);
          const piece = queue.shift();
          if (!piece) {
            if (rendering) {
              await rendering;
              continue;
            }
            if (nextJob >= toOcr.length) return;
            const job = toOcr[nextJob++];
            let done = () => undefined as void;
            rendering = new Promise<void>((r) => (done = r));
            try {
              const rendered = await renderPageGray(opened, job.page.index);
              job.scale = rendered.scale;
              let r = rendered;
              if (job.need.kind === 'page') {
                // a whole scanned page fed askew is straightened before OCR (a band of a text page is not skewed)
                const straight = deskew(rendered);
                if (straight.raster !== rendered) {
                  r = { ...rendered, ...straight.raster };
                  job.skew = straight.angle;
                  warnings.push(`page ${job.page.index + 1} was scanned ${straight.angle}° askew: straightened before OCR`);
                }
              }
              if (job.need.kind === 'page') {
                job.raster = r;
                job.images = pageImages(opened, job.page.index);
                // measured in the image's own pixels (on a straightened page, only the earlier JPEG compression: its
                // regions are turned into the straightened page's frame, where the words are)
                if (needsPageImage(job.images, rendered.scale, r !== rendered)) job.native = pageImagePixels(opened, job.page.index);
              }
              const pieces = piecesOf(job, r, r.scale);
              job.pending = pieces.length;
              queue.push(...pieces);
            } catch (e) {
              if (e instanceof StatementError) throw e;
              warnings.push(`OCR failed on page ${job.page.index + 1}: ${(e as Error).message}`);
              if (job.need.kind === 'page') job.page.method = 'none';
            } finally {
              rendering = null;
              done();
            }
            continue;
          }
          const job = piece.job;
          try {
            const res = await ocrImage(piece.image, job.scale, Math.min(remaining, 60_000), piece.offsetY);
            job.words.push(...res.words);
            job.confSum += res.confidence * 100 * res.words.length;
            job.confN += res.words.length;
          } catch (e) {
            if (e instanceof StatementError) throw e;
            if (!job.failed) warnings.push(`OCR failed on page ${job.page.index + 1}: ${(e as Error).message}`);
            job.failed = true;
          }
          if (--job.pending > 0) continue;
          if (job.failed) {
            job.raster = undefined;
            job.native = undefined;
            if (job.need.kind === 'page') job.page.method = 'none';
            continue;
          }
          ocrPages++;
          finishJob(job, scans);
        }
      };
      const guarded = () =>
        runOne().catch((e) => {
          stop = true; // stop the other runner too
          throw e;
        });
      await Promise.all(Array.from({ length: OCR_WORKERS }, guarded));
      warnings.sort((a, b) => a.localeCompare(b));
    }
  }
  const withText = pages.filter((p) => p.method !== 'none');
  if (!withText.length) {
    if (ocrPages > 0) throw new StatementError('blank', 'no text found on any page (blank pages)');
    throw new StatementError('no_text', 'no readable text in the document');
  }
  const rawTextPages = pages.filter((p) => p.method === 'text').length;
  const ocrCount = pages.filter((p) => p.method === 'ocr').length;
  const extractionMethod = ocrCount === 0 ? 'text' : rawTextPages === 0 ? 'ocr' : 'mixed';
  const extractionConfidence =
    Math.round((withText.reduce((s, p) => s + (p.method === 'text' ? 0.99 : p.confidence), 0) / pages.length) * 1000) / 1000;
  return { pages, extractionMethod, extractionConfidence, rawTextPages, ocrPages, warnings, inks: ink?.pages ?? new Map(), scans };
}
