import { createWorker, OEM, Worker } from 'tesseract.js';
/** OCR of pages without a text layer, with tesseract.js and the locally installed English data. */
import * as os from 'os';
import * as path from 'path';
import { GrayRaster, grayOf, groupLines } from './extract';
import { loadMupdf } from './mupdf';
import { Word } from './types';

type TWorker = Worker;

/** OCR workers run in parallel on a machine's cores (2 here); each is a tesseract worker thread. */
export const OCR_WORKERS = Math.max(
  1,
  Math.min(2, typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length),
);

interface Slot {
  worker: Promise<TWorker>;
  busy: boolean;
}
const slots: Slot[] = [];
const waiting: Array<() => void> = [];

export function tesseractLangPath(): string {
  const pkg = require.resolve('@tesseract.js-data/eng/package.json');
  return path.join(path.dirname(pkg), '4.0.0_best_int');
}

async function createTesseract(): Promise<TWorker> {
  const worker = await createWorker('eng', OEM.LSTM_ONLY, {
    langPath: tesseractLangPath(),
    gzip: true,
    cacheMethod: 'none',
    logger: () => undefined,
    errorHandler: () => undefined,
  });
  // No second, inverted reading of lines read with a low confidence (tesseract's default): white-on-dark
  // text is rare on statements, and the second pass cost ~8% of the OCR CPU on the dev-set scans
  // (docs/statements-reading.md, "Measuring it").
  await worker.setParameters({ tessedit_do_invert: '0' });
  return worker;
}

/** Takes a free worker, starting one when fewer than OCR_WORKERS run, else waits for one. */
async function acquire(): Promise<Slot> {
  for (;;) {
    const free = slots.find((s) => !s.busy);
    if (free) {
      free.busy = true;
      return free;
    }
    if (slots.length < OCR_WORKERS) {
      const slot: Slot = { worker: createTesseract(), busy: true };
      slots.push(slot);
      slot.worker.catch(() => drop(slot));
      return slot;
    }
    await new Promise<void>((r) => waiting.push(r));
  }
}

function release(slot: Slot): void {
  slot.busy = false;
  waiting.shift()?.();
}

function drop(slot: Slot): void {
  const i = slots.indexOf(slot);
  if (i >= 0) slots.splice(i, 1);
  waiting.shift()?.();
}

async function terminate(slot: Slot): Promise<void> {
  drop(slot);
  try {
    await (await slot.worker).terminate();
  } catch {
    /* ignore */
  }
}

/** Rows of a statement the OCR workers are warmed up with. */
const SAMPLE_ROWS = [
  '03/14 Card Purchase Grocer 1,234.56 Balance',
  '03/15 Payroll Deposit Acme Holdings 2,450.00 3,684.56',
  '03/17 ACH Debit Utility Company 118.42 3,566.14',
  '03/18 Transfer to Savings 500.00 3,066.14',
  '03/21 Check 1042 75.00 2,991.14',
  '03/22 Mobile Deposit 860.25 3,851.39',
  '03/25 Card Purchase Fuel Station 48.10 3,803.29',
  '03/28 Monthly Service Fee 12.00 3,791.29',
];

/**
 * A few rows of statement-like text rendered to a PGM (200 dpi), to warm the OCR workers up with:
 * enough text that the engine's hot code is compiled (wasm code is compiled again, optimised, once it
 * has run a while) before the first page, as a server's workers are after their first pages.
 */
async function sampleLine(): Promise<Uint8Array> {
  const m = await loadMupdf();
  const doc = new m.PDFDocument();
  try {
    const font = doc.addSimpleFont(new m.Font('Helvetica'));
    const resources = doc.addObject({ Font: { F1: font } });
    const lh = 16;
    const height = 14 + lh * SAMPLE_ROWS.length;
    const text = SAMPLE_ROWS.map((row, i) => `BT /F1 11 Tf 8 ${height - 18 - i * lh} Td (${row}) Tj ET`).join('\n');
    doc.insertPage(-1, doc.addPage([0, 0, 400, height], 0, resources, text));
    const page = doc.loadPage(0);
    const pix = page.toPixmap(m.Matrix.scale(200 / 72, 200 / 72), m.ColorSpace.DeviceGray, false, true);
    const raster = grayOf(pix);
    pix.destroy?.();
    page.destroy?.();
    return pgm(raster);
  } finally {
    doc.destroy?.();
  }
}

/**
 * Starts the OCR workers ahead of the first page (servers, benchmarks) and has each read one line of
 * text: tesseract sets up its recogniser on the first text it reads (~1 s of CPU). Resolves when done.
 */
export async function warmOcr(): Promise<void> {
  const started: Slot[] = [];
  while (slots.length < OCR_WORKERS) started.push(await acquire());
  try {
    const img = Buffer.from(await sampleLine());
    await Promise.all(started.map(async (s) => (await s.worker).recognize(img, { user_defined_dpi: '200' } as any, { text: true } as any)));
  } finally {
    for (const s of started) if (slots.includes(s)) release(s);
  }
}

/** Terminates the OCR workers (call at shutdown and in test teardown). */
export async function shutdownOcr(): Promise<void> {
  await Promise.all([...slots].map((s) => terminate(s)));
}

/** Drops scanner specks read as punctuation and stray quotes around words. */
export function cleanOcrWord(raw: string): string {
  let t = raw
    .trim()
    .replace(/^[‘’'"`“”,:;|~_]+(?=[A-Za-z0-9$(-])/, '')
    .replace(/(?<=[A-Za-z0-9)-])[‘’'"`“”|~_]+$/, '');
  // a stray mark beside the decimal point of an amount ("24.,18-")
  t = t.replace(/^([-$]?\d[\d,]*)(?:\.,|,\.)(\d{2}(?:-|CR|DR)?)$/, '$1.$2');
  // a decimal point read as a "1" after thousands groups ("2,760115" for 2,760.15): no number is
  // written with six digits after a thousands comma; the running balance checks the value read
  t = t.replace(/^([-$]?\d{1,3}(?:,\d{3})+)1(\d{2}(?:-|CR|DR)?)$/, '$1.$2');
  if (!/[A-Za-z0-9$]/.test(t) && !/^[&#/*-]$/.test(t)) t = '';
  return t;
}

export interface OcrPage {
  words: Word[];
  confidence: number;
}

/** Rows y0..y1 (exclusive) of a raster as a binary PGM image (no compression: nothing to encode or decode). */
export function pgm(r: GrayRaster, y0 = 0, y1 = r.height): Uint8Array {
  const head = Buffer.from(`P5\n${r.width} ${y1 - y0}\n255\n`, 'ascii');
  const out = new Uint8Array(head.length + r.width * (y1 - y0));
  out.set(head, 0);
  out.set(r.data.subarray(y0 * r.width, y1 * r.width), head.length);
  return out;
}

/**
 * Recognises one image (a page, or a band of a page). `scale` converts pixels back to PDF points and
 * `offsetY` (pixels) places a band on its page. Times out after `timeoutMs` (the worker
 * is then terminated and recreated on next use).
 */
export async function ocrImage(image: Uint8Array, scale: number, timeoutMs = 30_000, offsetY = 0): Promise<OcrPage> {
  const slot = await acquire();
  let failed = false;
  let worker: TWorker;
  try {
    worker = await slot.worker;
  } catch (e) {
    drop(slot);
    throw e;
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, rej) => {
    timer = setTimeout(() => rej(new Error(`OCR timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const res = await Promise.race([
      worker.recognize(
        Buffer.from(image),
        // PGM carries no resolution: tell tesseract (it sizes its noise filters by it). No rotateAuto:
        // scanned pages are deskewed before OCR (deskew.ts), and tesseract.js's rotateAuto runs one more
        // layout pass per image to measure the skew (~15% of the OCR time on the dev-set scans).
        { user_defined_dpi: String(Math.round(scale * 72)) } as any,
        { blocks: true, text: false } as any,
      ),
      timeout,
    ]);
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
            if (bl && Number.isFinite(bl.y0) && Number.isFinite(bl.x0) && bl.x1 > bl.x0)
              basePx = bl.y0 + ((bl.y1 - bl.y0) * ((bb.x0 + bb.x1) / 2 - bl.x0)) / (bl.x1 - bl.x0);
            const base = (basePx + offsetY) / scale;
            const size = Math.max(4, (l.rowAttributes?.rowHeight ?? bb.y1 - bb.y0) / scale);
            words.push({
              text,
              x0: bb.x0 / scale,
              x1: bb.x1 / scale,
              y0: (bb.y0 + offsetY) / scale,
              y1: (bb.y1 + offsetY) / scale,
              base,
              size: Math.min(size, (bb.y1 - bb.y0) / scale + 2),
              font: 'ocr',
              conf: w.confidence,
            });
            confSum += w.confidence;
            n++;
          }
        }
      }
    }
    return { words, confidence: n ? confSum / n / 100 : 0 };
  } catch (e) {
    failed = true;
    await terminate(slot);
    throw e;
  } finally {
    clearTimeout(timer);
    if (!failed) release(slot);
  }
}

/** Recognises one rendered page (PNG or PGM). `scale` converts pixels back to PDF points. */
export function ocrPng(png: Uint8Array, scale: number, timeoutMs = 30_000): Promise<OcrPage> {
  return ocrImage(png, scale, timeoutMs);
}

export { groupLines };
