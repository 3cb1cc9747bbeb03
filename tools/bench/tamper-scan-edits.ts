/**
 * The scan edit of the tamper benchmark (issue 32; `npm run bench:tamper -- --scans`): a text
 * statement's page rendered at 200 dpi with mupdf and made to look scanned (tools/corpus/scan.ts:
 * paper tone, seeded noise, a scanner's blur, every other one saved as JPEG), then one amount pasted
 * over the way a fraudster edits a scan in an image editor: the page with the amount changed
 * (tamper-edits.ts's white_box edit) rendered, its pixels around the amount pasted on the paper's
 * tone, in each of the patch styles of tools/corpus/scan.ts (crisp without noise; crisp with noise
 * matched to the page; enlarged from half the resolution with noise; blurred and noised like the
 * page). The page image is wrapped back into a PDF (pdf-lib). The control is the same page made to
 * look scanned without a patch. All are read with OCR; the patched amount should carry a
 * `pasted_patch` finding, the controls and the development set's own scans none.
 */
import * as fs from 'fs';
import * as path from 'path';
import {
  extractLayout,
  GrayRaster,
  openDocument,
  parseStatementFile,
  ParseResult,
  renderPageGray,
  scanPageStats,
  shutdownOcr,
  TamperFinding,
} from '@ledgerlens/statements';
import { makeStatement } from '../corpus/corpus';
import { LAYOUTS } from '../corpus/layouts';
import { hashSeed } from '../corpus/rng';
import { pastePatch, PATCH_STYLES, PatchStyle, rasterPdf, renderGray, scanify } from '../corpus/scan';
import { Box, editContext, makeEdit } from './tamper-edits';
import type { Original } from './tamper';

const DPI = 200;
const SCALE = DPI / 72;
const pageSize = (r: GrayRaster): [number, number] => [r.width / SCALE, r.height / SCALE];

export interface ScanCase {
  name: string;
  /** the page with the amount pasted over, one one-page image PDF per way of making the patch */
  patched: Map<PatchStyle, Uint8Array>;
  /** the same page made to look scanned, unpatched */
  control: Uint8Array;
  /** where the amount was changed (PDF points on the one page) */
  boxes: Box[];
  note: string;
}

/** Ways of making the patch the checks are held to (>= 95% named); `rescanned` is measured and printed apart. */
export const GATED_STYLES: readonly PatchStyle[] = ['crisp', 'noise_matched', 'resampled'];

/** A scanned page of `original` with one amount pasted over in each of `styles`, and its unpatched control; null when no amount can be edited. */
export async function makeScanCase(
  o: Original,
  parsed: ParseResult,
  seed: number,
  jpeg?: number,
  styles: readonly PatchStyle[] = PATCH_STYLES,
): Promise<ScanCase | null> {
  const ctx = await editContext(o.bytes, parsed);
  const edit = await makeEdit(o.bytes, parsed, 'white_box', hashSeed(seed, o.name, 'scan_patch'), ctx);
  if (!edit) return null;
  const original = await renderGray(o.bytes, edit.page - 1, DPI);
  const clean = await renderGray(edit.bytes, edit.page - 1, DPI);
  const scan = scanify(original, { seed: hashSeed(seed, o.name, 'scan') });
  // the patch covers the old amount with a margin (wider to the left: a longer new value grows leftwards)
  const b = edit.boxes[0];
  const h = b[3] - b[1];
  const rect: Box = [b[0] - Math.max(3, 0.3 * (b[2] - b[0])), b[1] - 0.15 * h, b[2] + 2, b[3] + 0.15 * h];
  const patched = new Map<PatchStyle, Uint8Array>();
  for (const style of styles)
    patched.set(
      style,
      await rasterPdf(pastePatch(scan, clean, rect, SCALE, style, { seed: hashSeed(seed, o.name, 'patch', style) }), pageSize(scan), jpeg),
    );
  return {
    name: o.name,
    patched,
    control: await rasterPdf(scan, pageSize(scan), jpeg),
    boxes: edit.boxes,
    note: `${edit.note}${jpeg ? `, JPEG q${jpeg}` : ', PNG'}`,
  };
}

const overlaps = (a: Box, b: Box, pad = 1.5) => a[0] < b[2] + pad && b[0] < a[2] + pad && a[1] < b[3] + pad && b[1] < a[3] + pad;

export interface StyleResult {
  style: PatchStyle;
  gated: boolean;
  made: number;
  /** a pasted_patch finding anywhere and the level medium or high */
  flagged: number;
  /** a pasted_patch finding over the patched amount, level medium or high */
  named: number;
  misses: string[];
}

export interface ScanBenchResult {
  /** scanned pages patched (each in every style) */
  pages: number;
  styles: StyleResult[];
  notApplicable: string[];
  controls: number;
  controlAlarms: string[];
  devScans: number;
  devScanAlarms: string[];
  /** CPU ms of scanPageStats per scanned page (dev-set scans) */
  statsMs: number[];
}

const readOcr = (bytes: Uint8Array) => parseStatementFile(bytes, { receivedAt: new Date(Date.UTC(2026, 0, 1)) });
const patches = (r: ParseResult): TamperFinding[] => (r.tamperFindings ?? []).filter((f) => f.kind === 'pasted_patch');

/** CPU time of the pixel statistics of each OCR page of a document (the raster rendered again to measure them apart). */
async function statsCost(bytes: Uint8Array): Promise<number[]> {
  const opened = await openDocument(bytes);
  try {
    const layout = await extractLayout(opened);
    const out: number[] = [];
    for (const p of layout.pages) {
      if (p.method !== 'ocr') continue;
      const r = await renderPageGray(opened, p.index, DPI);
      const t0 = process.cpuUsage();
      for (let i = 0; i < 5; i++) scanPageStats(r, r.scale, p.lines, p.index);
      const d = process.cpuUsage(t0);
      out.push((d.user + d.system) / 1000 / 5);
    }
    return out;
  } finally {
    opened.close();
  }
}

export async function runScanBench(
  originals: Original[],
  devScans: Original[],
  opts: { seed: number; styles?: readonly PatchStyle[]; verbose?: boolean; log?: (s: string) => void },
): Promise<ScanBenchResult> {
  const log = opts.log ?? (() => undefined);
  const styles = opts.styles ?? PATCH_STYLES;
  const res: ScanBenchResult = {
    pages: 0,
    styles: styles.map((style) => ({ style, gated: GATED_STYLES.includes(style), made: 0, flagged: 0, named: 0, misses: [] })),
    notApplicable: [],
    controls: 0,
    controlAlarms: [],
    devScans: 0,
    devScanAlarms: [],
    statsMs: [],
  };
  for (const [i, o] of originals.entries()) {
    let parsed: ParseResult;
    try {
      parsed = await parseStatementFile(o.bytes, { ocr: false, receivedAt: new Date(Date.UTC(2026, 0, 1)) });
    } catch (e) {
      res.notApplicable.push(`${o.name}: not read (${(e as Error).message})`);
      continue;
    }
    const c = parsed.transactions.length ? await makeScanCase(o, parsed, opts.seed, i % 2 ? 85 : undefined, styles) : null;
    if (!c) {
      res.notApplicable.push(`${o.name}: no amount to edit`);
      continue;
    }
    const control = await readOcr(c.control);
    // the scanned look broke the reading itself (OCR lost rows: shaded rows under the noise): not counted
    if (Math.abs(control.transactions.length - parsed.transactions.length) > 1) {
      res.notApplicable.push(
        `${o.name}: the scanned control reads ${control.transactions.length} rows, the text ${parsed.transactions.length}`,
      );
      continue;
    }
    res.controls++;
    res.pages++;
    for (const f of patches(control)) res.controlAlarms.push(`${o.name} (control): ${f.message}`);
    for (const s of res.styles) {
      const patched = await readOcr(c.patched.get(s.style)!);
      s.made++;
      const found = patches(patched);
      const flagged = found.length > 0 && patched.pdfRiskLevel !== 'low';
      const naming = found.find((f) => f.boxes.some((b) => c.boxes.some((e) => overlaps(b, e))));
      if (flagged) s.flagged++;
      if (flagged && naming) s.named++;
      else
        s.misses.push(
          `${o.name} (${c.note}): level ${patched.pdfRiskLevel}; ${found.map((f) => f.message).join(' | ') || 'no pasted_patch finding'}`,
        );
      if (opts.verbose) log(`${o.name} [${s.style}] (${c.note}): ${naming ? naming.message : 'not named'}`);
    }
  }
  for (const d of devScans) {
    const r = await readOcr(d.bytes);
    res.devScans++;
    for (const f of patches(r)) res.devScanAlarms.push(`${d.name}: ${f.message}`);
    if (r.pageCount <= 2) res.statsMs.push(...(await statsCost(d.bytes)));
    if (opts.verbose) log(`${d.name}: ${r.transactions.length} rows, ${patches(r).length} pasted_patch findings`);
  }
  return res;
}

/** Prints the figures; true when every gated style is named at 95% or more and nothing was found on a control or a dev-set scan. */
export function printScanBench(r: ScanBenchResult, seconds: number): boolean {
  const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(0)}%` : '-');
  console.log(`\nscan patch bench (${seconds.toFixed(1)} s): ${r.pages} scanned pages, each patched in ${r.styles.length} ways`);
  console.log(`  ${'patch'.padEnd(15)} ${'made'.padStart(5)} ${'flagged'.padStart(9)} ${'named'.padStart(9)}`);
  for (const s of r.styles)
    console.log(
      `  ${s.style.padEnd(15)} ${String(s.made).padStart(5)} ${pct(s.flagged, s.made).padStart(9)} ${pct(s.named, s.made).padStart(9)}${s.gated ? '' : '   (not gated: beyond these checks)'}`,
    );
  console.log(`  false alarms on unpatched controls: ${r.controlAlarms.length} findings on ${r.controls} pages`);
  console.log(`  false alarms on the development set's scans: ${r.devScanAlarms.length} findings on ${r.devScans} files`);
  if (r.statsMs.length) {
    const mean = r.statsMs.reduce((a, b) => a + b, 0) / r.statsMs.length;
    console.log(
      `  pixel statistics per scanned page: mean ${mean.toFixed(1)} ms CPU, max ${Math.max(...r.statsMs).toFixed(1)} ms (${r.statsMs.length} pages)`,
    );
  }
  for (const m of [
    ...r.notApplicable.map((x) => `n/a: ${x}`),
    ...r.styles.flatMap((s) => s.misses.map((x) => `missed [${s.style}]: ${x}`)),
    ...r.controlAlarms,
    ...r.devScanAlarms,
  ])
    console.log(`  ${m}`);
  const gated = r.styles.filter((s) => s.gated);
  return r.pages > 0 && gated.every((s) => s.named / s.made >= 0.95) && !r.controlAlarms.length && !r.devScanAlarms.length;
}

/** Text statements of the development set whose page is made a scan (one page of few rows each), and the set's own scans. */
const DEV_TEXT = ['nz-kauri-anz-style', 'nz-totara-asb-style', 'nz-rimu-westpac-style', 'uk-posting-value-date-mini'];
const DEV_SCANS = ['au-commbank-template-scan', 'nz-kowhai-tutorial-scan', 'us-bbva-template-scan', 'us-first-security-scan'];

/** `bench:tamper -- --scans`: patched scanned pages of a handful of statements, their controls and the dev-set scans. */
export async function scanBenchMain(dir: string, seed: number, verbose: boolean): Promise<void> {
  const load = (name: string): Original | null => {
    const f = path.join(dir, `${name}.pdf`);
    return fs.existsSync(f) ? { name, bytes: new Uint8Array(fs.readFileSync(f)) } : null;
  };
  const originals = DEV_TEXT.map(load).filter((o): o is Original => o !== null);
  for (const layout of LAYOUTS.slice(0, 3)) {
    const item = await makeStatement(layout, seed, 14);
    originals.push({ name: `corpus:${item.name}`, bytes: item.bytes });
  }
  const devScans = DEV_SCANS.map(load).filter((o): o is Original => o !== null);
  if (!devScans.length) console.log(`statements-devset not found at ${dir}: generated statements only`);
  const t0 = Date.now();
  const res = await runScanBench(originals, devScans, { seed, verbose, log: (s) => console.log(`  ${s}`) });
  const ok = printScanBench(res, (Date.now() - t0) / 1000);
  console.log(
    `\nresult: ${ok ? 'ok' : 'BELOW TARGET'} (targets: >= 95% of patches named in each gated style; no pasted_patch finding on a control or a dev-set scan)`,
  );
  await shutdownOcr();
  process.exitCode = ok ? 0 : 1;
}
