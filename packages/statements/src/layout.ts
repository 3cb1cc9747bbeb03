import { OCR_WORKERS, ocrPng } from './ocr';
import { extractPageText, groupLines, renderPagePng } from './extract';
import { OpenedDocument } from './open';
import { DEFAULT_LIMITS, Limits, PageLayout, ParseStep, StatementError } from './types';

export interface LayoutResult {
  pages: PageLayout[];
  extractionMethod: 'text' | 'ocr' | 'mixed';
  extractionConfidence: number;
  rawTextPages: number;
  ocrPages: number;
  warnings: string[];
}

export interface LayoutOptions {
  limits?: Partial<Limits>;
  ocr?: boolean;
  signal?: AbortSignal;
  onStep?: (step: ParseStep) => void;
}

const tick = () => new Promise<void>((r) => setImmediate(r));

function checkAbort(signal?: AbortSignal) {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
}

function needsOcr(p: PageLayout): boolean {
  const chars = p.lines.reduce((n, l) => n + l.text.length, 0);
  if (chars === 0) return true;
  // a text layer without usable Unicode (fonts without ToUnicode): read the pixels instead
  let bad = 0;
  for (const l of p.lines) for (const ch of l.text) if (ch === '\uFFFD' || (ch >= '\uE000' && ch <= '\uF8FF') || ch < ' ') bad++;
  if (bad / chars > 0.3) return true;
  const area = p.width * p.height;
  const imgArea = p.imageRects.reduce((s, r) => s + (r[2] - r[0]) * (r[3] - r[1]), 0);
  return chars < 40 && imgArea > area * 0.5;
}

/** Extracts words with positions for every page; pages without a text layer go through OCR. */
export async function extractLayout(opened: OpenedDocument, opts: LayoutOptions = {}): Promise<LayoutResult> {
  const lim = { ...DEFAULT_LIMITS, ...opts.limits };
  const started = Date.now();
  const warnings: string[] = [];
  const pages: PageLayout[] = [];
  opts.onStep?.('extracting_text');
  for (let i = 0; i < opened.info.pageCount; i++) {
    checkAbort(opts.signal);
    const t0 = Date.now();
    pages.push(extractPageText(opened, i, lim));
    const dt = Date.now() - t0;
    if (dt > lim.pageTimeMs) throw new StatementError('too_large', `page ${i + 1} took ${dt} ms to read (budget ${lim.pageTimeMs} ms)`);
    if (Date.now() - started > lim.totalTimeMs) throw new StatementError('too_large', `text extraction exceeded ${lim.totalTimeMs} ms`);
    if (i % 8 === 7) await tick();
  }
  const toOcr = pages.filter(needsOcr);
  let ocrPages = 0;
  if (toOcr.length) {
    if (opts.ocr === false) {
      if (toOcr.length === pages.length) throw new StatementError('no_text', 'no page has a text layer and OCR is disabled');
      warnings.push(`${toOcr.length} page(s) without a text layer were skipped (OCR disabled)`);
      for (const p of toOcr) p.method = 'none';
    } else {
      if (toOcr.length > lim.maxOcrPages) throw new StatementError('too_large', `${toOcr.length} pages need OCR, limit ${lim.maxOcrPages}`);
      opts.onStep?.('running_ocr');
      // pages are rendered one at a time (mupdf is synchronous) and recognised OCR_WORKERS at a time
      let next = 0;
      const runOne = async (): Promise<void> => {
        while (next < toOcr.length) {
          const p = toOcr[next++];
          checkAbort(opts.signal);
          const remaining = lim.totalTimeMs - (Date.now() - started);
          if (remaining <= 0) throw new StatementError('too_large', `OCR exceeded ${lim.totalTimeMs} ms`);
          let r;
          try {
            const { png, scale } = await renderPagePng(opened, p.index);
            r = await ocrPng(png, scale, Math.min(remaining, 60_000));
          } catch (e) {
            if (e instanceof StatementError) throw e;
            warnings.push(`OCR failed on page ${p.index + 1}: ${(e as Error).message}`);
            p.method = 'none';
            continue;
          }
          ocrPages++;
          p.lines = groupLines(r.words);
          p.method = r.words.length ? 'ocr' : 'none';
          p.confidence = r.confidence;
        }
      };
      const guarded = () =>
        runOne().catch((e) => {
          next = toOcr.length; // stop the other runner too
          throw e;
        });
      await Promise.all(Array.from({ length: Math.min(OCR_WORKERS, toOcr.length) }, guarded));
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
  return { pages, extractionMethod, extractionConfidence, rawTextPages, ocrPages, warnings };
}
