/**
 * The same OCR by native tesseract, as the anchor of the OCR speed target: the pages of the scanned
 * statements rendered at 200 dpi (mupdf, as the reader renders them), recognised by the `tesseract`
 * program with the very model the reader uses (tesseract.js's eng 4.0.0_best_int, LSTM only), one
 * thread (OMP_THREAD_LIMIT=1: CPU time without OpenMP's spinning), its CPU time read by the shell's
 * `times`. `prepareNativeOcr` returns null when no `tesseract` is installed (Debian: tesseract-ocr).
 *
 * The pages are rendered once, ahead of the timed runs (the reader's own render is in its figure,
 * native's is not), and each file's pages can be run as often as the comparison needs: the bench
 * alternates our read and native's file by file, because this machine's speed drifts by a quarter
 * over minutes (other tenants of the host) and two figures taken minutes apart compare that drift.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as zlib from 'zlib';
import { openDocument, renderPagePng, tesseractLangPath } from '@ledgerlens/statements';

export interface NativeOcr {
  version: string;
  /** rendered pages per file, in the order given */
  pages: number[];
  /** CPU seconds native tesseract took over file `i`'s pages */
  run(i: number): number;
  dispose(): void;
}

/** "0m1.234s" -> 1.234 */
const seconds = (t: string) => {
  const m = /^(\d+)m([\d.]+)s$/.exec(t.trim());
  return m ? Number(m[1]) * 60 + Number(m[2]) : NaN;
};

export async function prepareNativeOcr(files: Uint8Array[]): Promise<NativeOcr | null> {
  const probe = spawnSync('tesseract', ['--version'], { encoding: 'utf8' });
  if (probe.status !== 0) return null;
  const version = /tesseract\s+(\S+)/i.exec(`${probe.stdout}${probe.stderr}`)?.[1] ?? '?';
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerlens-native-ocr-'));
  const dispose = () => fs.rmSync(work, { recursive: true, force: true });
  try {
    const model = path.join(tesseractLangPath(), 'eng.traineddata.gz');
    fs.writeFileSync(path.join(work, 'eng.traineddata'), zlib.gunzipSync(fs.readFileSync(model)));
    const pngs: string[][] = [];
    for (const [f, bytes] of files.entries()) {
      const opened = await openDocument(bytes);
      const list: string[] = [];
      for (let i = 0; i < opened.info.pageCount; i++) {
        const png = path.join(work, `file-${f}-page-${i}.png`);
        fs.writeFileSync(png, (await renderPagePng(opened, i, 200)).png);
        list.push(png);
      }
      pngs.push(list);
    }
    const run = (f: number): number => {
      let cpu = 0;
      for (const [i, png] of pngs[f].entries()) {
        const out = spawnSync(
          'bash',
          ['-c', 'tesseract "$1" - --tessdata-dir "$2" -l eng --oem 1 --dpi 200 >/dev/null 2>&1 || exit 1; times', '_', png, work],
          { encoding: 'utf8', env: { ...process.env, OMP_THREAD_LIMIT: '1' } },
        );
        if (out.status !== 0) throw new Error(`native tesseract failed on page ${i + 1} of file ${f + 1}: ${out.stderr}`);
        // `times`: the shell's user and system time, then its children's
        const [user, sys] = out.stdout.trim().split('\n')[1].split(/\s+/).map(seconds);
        cpu += user + sys;
      }
      return cpu;
    };
    return { version, pages: pngs.map((l) => l.length), run, dispose };
  } catch (e) {
    dispose();
    throw e;
  }
}
