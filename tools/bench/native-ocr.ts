/**
 * The same OCR by native tesseract, as the anchor of the OCR speed target: the pages of the scanned
 * statements rendered at 200 dpi (mupdf, as the reader renders them), recognised by the `tesseract`
 * program with the very model the reader uses (tesseract.js's eng 4.0.0_best_int, LSTM only), one
 * thread (OMP_THREAD_LIMIT=1: CPU time without OpenMP's spinning), its CPU time read by the shell's
 * `times`. Returns null when no `tesseract` is installed (Debian: tesseract-ocr).
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as zlib from 'zlib';
import { openDocument, renderPagePng, tesseractLangPath } from '@ledgerlens/statements';

export interface NativeOcr {
  version: string;
  pages: number;
  cpuSeconds: number;
}

/** "0m1.234s" -> 1.234 */
const seconds = (t: string) => {
  const m = /^(\d+)m([\d.]+)s$/.exec(t.trim());
  return m ? Number(m[1]) * 60 + Number(m[2]) : NaN;
};

export async function nativeOcr(files: Uint8Array[]): Promise<NativeOcr | null> {
  const probe = spawnSync('tesseract', ['--version'], { encoding: 'utf8' });
  if (probe.status !== 0) return null;
  const version = /tesseract\s+(\S+)/i.exec(`${probe.stdout}${probe.stderr}`)?.[1] ?? '?';
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerlens-native-ocr-'));
  try {
    const model = path.join(tesseractLangPath(), 'eng.traineddata.gz');
    fs.writeFileSync(path.join(work, 'eng.traineddata'), zlib.gunzipSync(fs.readFileSync(model)));
    let pages = 0;
    let cpuSeconds = 0;
    for (const bytes of files) {
      const opened = await openDocument(bytes);
      for (let i = 0; i < opened.info.pageCount; i++) {
        const png = path.join(work, `page-${pages}.png`);
        fs.writeFileSync(png, (await renderPagePng(opened, i, 200)).png);
        const run = spawnSync(
          'bash',
          ['-c', 'tesseract "$1" - --tessdata-dir "$2" -l eng --oem 1 --dpi 200 >/dev/null 2>&1 || exit 1; times', '_', png, work],
          { encoding: 'utf8', env: { ...process.env, OMP_THREAD_LIMIT: '1' } },
        );
        if (run.status !== 0) throw new Error(`native tesseract failed on page ${i + 1}: ${run.stderr}`);
        // `times`: the shell's user and system time, then its children's
        const [user, sys] = run.stdout.trim().split('\n')[1].split(/\s+/).map(seconds);
        cpuSeconds += user + sys;
        pages++;
      }
    }
    return { version, pages, cpuSeconds };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
