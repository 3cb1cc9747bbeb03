import { createWorker, OEM, Worker } from 'tesseract.js';
/** OCR of pages without a text layer, with tesseract.js and the locally installed English data. */
import * as path from 'path';
import { groupLines } from './extract';
import { Word } from './types';

type TWorker = Worker;

let workerP: Promise<TWorker> | null = null;

export function tesseractLangPath(): string {
  const pkg = require.resolve('@tesseract.js-data/eng/package.json');
  return path.join(path.dirname(pkg), '4.0.0_best_int');
}

async function getWorker(): Promise<TWorker> {
  if (!workerP) {
    workerP = (async () => {
      return createWorker('eng', OEM.LSTM_ONLY, {
        langPath: tesseractLangPath(),
        gzip: true,
        cacheMethod: 'none',
        logger: () => undefined,
        errorHandler: () => undefined,
      });
    })();
    workerP.catch(() => {
      workerP = null;
    });
  }
  return workerP;
}

/** Terminates the shared OCR worker (call at shutdown and in test teardown). */
export async function shutdownOcr(): Promise<void> {
  const p = workerP;
  workerP = null;
  if (p) {
    try {
      await (await p).terminate();
    } catch {
      /* ignore */
    }
  }
}

/** Drops scanner specks read as punctuation and stray quotes around words. */
export function cleanOcrWord(raw: string): string {
  let t = raw.trim().replace(/^[‘’'"`“”,:;|~_]+(?=[A-Za-z0-9$(-])/, '').replace(/(?<=[A-Za-z0-9)])[‘’'"`“”|~_]+$/, '');
  if (!/[A-Za-z0-9$]/.test(t) && !/^[&#/*-]$/.test(t)) t = '';
  return t;
}

export interface OcrPage {
  words: Word[];
  confidence: number;
}

/**
 * Recognises one rendered page. `scale` converts pixels back to PDF points.
 * Times out after `timeoutMs` (the worker is then terminated and recreated on next use).
 */
export async function ocrPng(png: Uint8Array, scale: number, timeoutMs = 30_000): Promise<OcrPage> {
  const worker = await getWorker();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, rej) => {
    timer = setTimeout(() => rej(new Error(`OCR timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const res = await Promise.race([worker.recognize(Buffer.from(png), { rotateAuto: true }, { blocks: true, text: false } as any), timeout]);
    const words: Word[] = [];
    let confSum = 0;
    let n = 0;
    for (const b of res.data.blocks ?? []) {
      for (const p of b.paragraphs) {
        for (const l of p.lines) {
          for (const w of l.words) {
            const text = cleanOcrWord(w.text);
            if (!text || (w.confidence < 45 && text.length <= 2)) continue;
            const bb = w.bbox;
            const bl = l.baseline as any;
            let basePx = bb.y1;
            if (bl && Number.isFinite(bl.y0) && Number.isFinite(bl.x0) && bl.x1 > bl.x0) basePx = bl.y0 + ((bl.y1 - bl.y0) * ((bb.x0 + bb.x1) / 2 - bl.x0)) / (bl.x1 - bl.x0);
            const base = basePx / scale;
            const size = Math.max(4, (l.rowAttributes?.rowHeight ?? bb.y1 - bb.y0) / scale);
            words.push({ text, x0: bb.x0 / scale, x1: bb.x1 / scale, y0: bb.y0 / scale, y1: bb.y1 / scale, base, size: Math.min(size, (bb.y1 - bb.y0) / scale + 2), font: 'ocr', conf: w.confidence });
            confSum += w.confidence;
            n++;
          }
        }
      }
    }
    return { words, confidence: n ? confSum / n / 100 : 0 };
  } catch (e) {
    await shutdownOcr();
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

export { groupLines };
