/**
 * The scan edit of the tamper benchmark (issue 32; `npm run bench:tamper -- --scans`): a text
 * statement's page rendered at 200 dpi with mupdf and made to look scanned (tools/corpus/scan.ts:
 * paper tone, seeded noise, a scanner's blur, every other one saved as JPEG), then one amount pasted
 * over the way a fraudster edits a scan in an image editor: the page with the amount changed
 * (tamper-edits.ts's white_box edit) rendered, its pixels around the amount pasted on the paper's
 * tone, in each of the patch styles of tools/corpus/scan.ts (crisp without noise; crisp with noise
 * matched to the page; enlarged from half the resolution with noise; blurred and noised like the
 * page, pasted into the pixels or laid over the page as an image of its own (a PDF editor's paste);
 * and, on pages of their own saved as JPEG q85 with the image at 200 and at 300 dpi, blurred and
 * noised then saved as JPEG on a block grid shifted from the page's). The page image is wrapped back
 * into a PDF (pdf-lib). The control is the same page made to look scanned without a patch. All are
 * read with OCR; the patched amount should carry a `pasted_patch` (or, laid over, a `pasted_image`)
 * finding, the controls and the development set's own scans none.
 */
import * as fs from 'fs';
import * as path from 'path';
import {
  BLOCK_DPI,
  extractLayout,
  GrayRaster,
  Line,
  needsPageImage,
  openDocument,
  pageImagePixels,
  pageImages,
  parseStatementFile,
  ParseResult,
  renderPageGray,
  rotateRaster,
  turnBox,
  scanPageStats,
  shutdownOcr,
  TamperFinding,
} from '@ledgerlens/statements';
import { makeStatement } from '../corpus/corpus';
import { LAYOUTS } from '../corpus/layouts';
import { hashSeed } from '../corpus/rng';
import {
  clonePatch,
  cloneRect,
  jpegRoundTrip,
  overlayPatch,
  pasteJpegPatch,
  pastePatch,
  PATCH_STYLES,
  PatchStyle,
  rasterPdf,
  renderGray,
  scanify,
  squash,
} from '../corpus/scan';
import { amountGrids } from './jpeg-grid';
import { Box, editContext, makeEdit } from './tamper-edits';
import type { Original } from './tamper';

const DPI = 200;

export interface ScanCase {
  name: string;
  /** 0-based index of the page made a scan */
  page: number;
  /** the page with the amount pasted over, one one-page image PDF per way of making the patch */
  patched: Map<PatchStyle, Uint8Array>;
  /** the same page made to look scanned, unpatched */
  control: Uint8Array;
  /** where the amount was changed (PDF points on the one page) */
  boxes: Box[];
  note: string;
}

/** Ways of making the patch the checks are held to (>= 95% named); `rescanned` and `jpeg_shifted` are measured and printed apart. */
export const GATED_STYLES: readonly PatchStyle[] = ['crisp', 'noise_matched', 'resampled', 'image_overlay', 'cloned'];

/** The patch styles made on every page (PNG and JPEG q85 alternating); `jpeg_shifted` has pages of its own (JpegRows). */
const PAGE_STYLES: readonly PatchStyle[] = PATCH_STYLES.filter((s) => s !== 'jpeg_shifted');

/** A page of its own made for one patch style: its image saved as JPEG of `quality` (0: PNG; -1: PNG and JPEG q85 alternating, as the page rows), at `dpi`. */
export interface ExtraPage {
  style: PatchStyle;
  quality: number;
  dpi: number;
  /** the image's resolution down the page, where it differs from `dpi` (across) */
  dpiY?: number;
  /** why the row is printed apart though its style is held elsewhere */
  apart?: string;
  /** the scan was stored as JPEG of this quality before it was edited (a scanner's or a phone's save), then saved as `quality` */
  scanner?: number;
  /** the paper was fed this many degrees askew (the reader straightens the page before OCR) */
  skew?: number;
  /** held to the target though its style is not, on the pages made for this row */
  held?: boolean;
}

/** How the `jpeg_shifted` pages are made: the patch's own JPEG quality, and the pages' codings and image resolutions. */
export interface JpegRows {
  patch: number;
  pages: Array<{ quality: number; dpi: number }>;
}

export const JPEG_ROWS: JpegRows = {
  patch: 75,
  pages: [
    { quality: 85, dpi: 200 },
    { quality: 85, dpi: 300 },
    { quality: 95, dpi: 200 },
    { quality: 95, dpi: 300 },
    { quality: 0, dpi: 200 },
    { quality: 0, dpi: 300 },
  ],
};

/**
 * The page rows made again with the image at 300 dpi, and at 300 dpi across and 290 down (a scanner
 * that samples the page unevenly, as two of the development set's scans are drawn): the render
 * resamples it, and the grid is measured in the image's own pixels.
 */
const HIGH_DPI: readonly ExtraPage[] = [
  { style: 'resampled', quality: -1, dpi: 300 },
  { style: 'resampled', quality: -1, dpi: 300, dpiY: 290 },
  // compared in the image's own pixels; OCR reads these pages' amounts less well (":" for "."), and an
  // amount whose line reads no amount is not measured
  { style: 'cloned', quality: -1, dpi: 300, apart: 'OCR misreads lines of these pages' },
];

/**
 * One digit copied over another, on pages kept lossless (held: the glyph is its source's pixels); the
 * page rows' `cloned_digit` (PNG and JPEG q85 alternating) is printed apart, JPEG blurring the copy
 * into the noise of two prints.
 */
const DIGIT_PNG: readonly ExtraPage[] = [{ style: 'cloned_digit', quality: 0, dpi: DPI, held: true }];

/**
 * Pages the scanner stored as JPEG before the edit, then saved again after it (docs/tamper.md, "An
 * earlier JPEG compression"): held where the last save keeps the scanner's steps (lossless, or JPEG with
 * finer steps); printed apart where it is as coarse (the same quality) or coarser, which wipes them.
 */
const SCANNER_JPEG: readonly ExtraPage[] = [
  { style: 'rescanned', quality: 0, dpi: DPI, scanner: 75 },
  { style: 'rescanned', quality: 90, dpi: DPI, scanner: 75 },
  { style: 'rescanned', quality: 95, dpi: DPI, scanner: 85 },
  { style: 'cloned', quality: 90, dpi: DPI, scanner: 75 },
  {
    style: 'rescanned',
    quality: 75,
    dpi: DPI,
    scanner: 75,
    apart: 'saved again at the scanner’s own quality: its steps are the last save’s',
  },
  { style: 'rescanned', quality: 75, dpi: DPI, scanner: 90, apart: 'saved again with coarser steps than the scanner’s' },
  // fed askew: the reader straightens the render for OCR, and reads the compression in the image's own pixels
  { style: 'rescanned', quality: 90, dpi: DPI, scanner: 75, skew: 1.5 },
  { style: 'rescanned', quality: 0, dpi: DPI, scanner: 75, skew: -2 },
];

/** A `jpeg_shifted` page is held to the target where the reader judges the block grid: lossless (PNG), its image at BLOCK_DPI or more. */
const blockJudgedPage = (quality: number, dpi: number) => quality === 0 && dpi >= BLOCK_DPI;

/** A scanned page of `original` with one amount pasted over in each of `styles`, and its unpatched control; null when no amount can be edited. */
export async function makeScanCase(
  o: Original,
  parsed: ParseResult,
  seed: number,
  jpeg?: number,
  styles: readonly PatchStyle[] = PAGE_STYLES,
  dpi = DPI,
  jpegPatch = JPEG_ROWS.patch,
  dpiY = dpi,
  scanner?: number,
  skew = 0,
): Promise<ScanCase | null> {
  const ctx = await editContext(o.bytes, parsed);
  const edit = await makeEdit(o.bytes, parsed, 'white_box', hashSeed(seed, o.name, 'scan_patch'), ctx);
  if (!edit) return null;
  // the paper fed askew: both renders turned alike about the page's centre
  const turn = (r: GrayRaster) => (skew ? rotateRaster(r, skew) : r);
  const square = turn(await renderGray(o.bytes, edit.page - 1, dpi));
  const size: [number, number] = [square.width / (dpi / 72), square.height / (dpi / 72)];
  // an image sampled at another resolution down the page: both renders resampled alike
  const original = dpiY === dpi ? square : squash(square, dpiY / dpi);
  const cleanSquare = turn(await renderGray(edit.bytes, edit.page - 1, dpi));
  const clean = dpiY === dpi ? cleanSquare : squash(cleanSquare, dpiY / dpi);
  const scale: [number, number] = [dpi / 72, original.height / size[1]];
  const res = dpiY === dpi ? `${dpi}` : `${dpi}x${dpiY}`;
  // the 200 dpi page keeps the seeds it always had
  const scanned = scanify(original, { seed: hashSeed(seed, o.name, dpi === DPI && dpiY === dpi ? 'scan' : `scan@${res}`) });
  // a scanner that stores its pages as JPEG: the edit is made on the decoded page
  const scan = scanner ? await jpegRoundTrip(scanned, scanner) : scanned;
  // the patch covers the old amount with a margin (wider to the left: a longer new value grows leftwards)
  const b = edit.boxes[0];
  const h = b[3] - b[1];
  const rect: Box = turnBox([b[0] - Math.max(3, 0.3 * (b[2] - b[0])), b[1] - 0.15 * h, b[2] + 2, b[3] + 0.15 * h], skew, size);
  const patched = new Map<PatchStyle, Uint8Array>();
  const control = await rasterPdf(scan, size, jpeg);
  // the amount a clone copies: another amount of the page, on another line, of the same column and at least as wide where one is (seeded)
  const source = (): Box | null => {
    const others = (ctx.money.get(edit.page) ?? []).map((t) => t.box as Box).filter((o) => Math.abs(o[3] - b[3]) > 4);
    // an editor copies from the same column where it can (the same alignment), an amount at least as wide
    const column = others.filter((o) => Math.abs(o[2] - b[2]) <= 3);
    const from = column.length ? column : others;
    const wide = from.filter((o) => o[2] - o[0] >= b[2] - b[0] - 0.5);
    const pool = wide.length ? wide : from.sort((p, q) => q[2] - q[0] - (p[2] - p[0])).slice(0, 1);
    return pool.length ? pool[hashSeed(seed, o.name, 'clone_source') % pool.length] : null;
  };
  // a digit a `cloned_digit` edit copies: the amount's units digit, and another digit of the page's amounts (another line, another
  // digit, the same width and size), its glyph box copied over it
  const digitClone = (): { from: Box; to: Box } | null => {
    const toks = ctx.money.get(edit.page) ?? [];
    const mine = toks.find((t) => overlapsBox(t.box as Box, b));
    if (!mine) return null;
    const sep = mine.glyphs.findIndex((g, i) => /[.,]/.test(g.ch) && mine.glyphs.length - i === 3);
    const unit = sep > 0 ? mine.glyphs[sep - 1] : null;
    if (!unit || !/\d/.test(unit.ch)) return null;
    const w = unit.x1 - unit.x0;
    const cands = toks
      .filter((t) => t !== mine && Math.abs(t.box[3] - b[3]) > 4)
      .flatMap((t) => t.glyphs)
      .filter((g) => /\d/.test(g.ch) && g.ch !== unit.ch && Math.abs(g.x1 - g.x0 - w) <= 0.2 && Math.abs(g.size - unit.size) < 0.1);
    if (!cands.length) return null;
    const g = cands[hashSeed(seed, o.name, 'clone_digit') % cands.length];
    return { from: [g.x0, g.y0, g.x1, g.y1], to: [unit.x0, unit.y0, unit.x1, unit.y1] };
  };
  for (const style of styles) {
    if (style === 'cloned_digit') {
      const d = digitClone();
      if (d) patched.set(style, await rasterPdf(cloneRect(scan, d.from, d.to, scale), size, jpeg));
      continue;
    }
    if (style === 'cloned') {
      const from = source();
      if (from) patched.set(style, await rasterPdf(clonePatch(scan, from, b, scale), size, jpeg));
      continue;
    }
    const look = { seed: hashSeed(seed, o.name, 'patch', dpi === DPI && dpiY === dpi ? style : `${style}@${res}`) };
    const page =
      style === 'jpeg_shifted'
        ? await pasteJpegPatch(scan, clean, rect, scale, look, { quality: jpegPatch })
        : pastePatch(scan, clean, rect, scale, style, look);
    patched.set(style, style === 'image_overlay' ? await overlayPatch(control, page, rect, scale) : await rasterPdf(page, size, jpeg));
  }
  return {
    name: o.name,
    page: edit.page - 1,
    patched,
    control,
    boxes: edit.boxes,
    note: `${edit.note}${styles.includes('jpeg_shifted') ? `, patch JPEG q${jpegPatch}` : ''}${scanner ? `, scanned as JPEG q${scanner}` : ''}${skew ? `, ${skew}° askew` : ''}${jpeg ? `, JPEG q${jpeg}` : ', PNG'}${dpi === DPI && dpiY === dpi ? '' : `, ${res} dpi image`}`,
  };
}

const overlapsBox = (a: Box, b: Box) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
const overlaps = (a: Box, b: Box, pad = 1.5) => a[0] < b[2] + pad && b[0] < a[2] + pad && a[1] < b[3] + pad && b[1] < a[3] + pad;

export interface StyleResult {
  style: PatchStyle;
  /** the row's name: the style, and the page image's resolution when not 200 dpi */
  label: string;
  gated: boolean;
  /** why a row of a held style is printed apart */
  apart?: string;
  made: number;
  /** a pasted_patch finding anywhere and the level medium or high */
  flagged: number;
  /** a pasted_patch finding over the patched amount, level medium or high */
  named: number;
  /** any finding over the patched amount (the arithmetic's too: a balance chain or totals broken on its row), level medium or high */
  namedAny: number;
  /** the kinds of the findings over the patched amount, and how often */
  by: Record<string, number>;
  misses: string[];
  /**
   * `jpeg_shifted` rows: the shifted-grid strength (jpeg-grid.ts) of the patched amount, and the
   * strongest of the page's other amounts, on the patched page and on its control
   */
  grids?: Array<{ name: string; edited: number | null; others: number | null; control: number | null }>;
}

export interface ScanBenchResult {
  /** scanned pages patched (each in every style) */
  pages: number;
  styles: StyleResult[];
  notApplicable: string[];
  controls: number;
  /** the unpatched pages of the `jpeg_shifted` rows (JPEG pages of their own, at each resolution) */
  extraControls: number;
  controlAlarms: string[];
  /** findings of other kinds (the arithmetic, the glyph checks) on the unpatched controls: OCR's misreadings, counted apart */
  controlOther: string[];
  devScans: number;
  devScanAlarms: string[];
  /** CPU ms of scanPageStats per scanned page (dev-set scans) */
  statsMs: number[];
}

const readOcr = (bytes: Uint8Array) => parseStatementFile(bytes, { receivedAt: new Date(Date.UTC(2026, 0, 1)) });
/** The scan patch findings: a patch in the page's pixels, or an image of its own over the page's */
const patches = (r: ParseResult): TamperFinding[] =>
  (r.tamperFindings ?? []).filter((f) => f.kind === 'pasted_patch' || f.kind === 'pasted_image');

/**
 * CPU time of the pixel statistics of each OCR page of a document (the raster rendered again to
 * measure them apart), with reading the page's images and decoding its own where the checks need it.
 */
async function statsCost(bytes: Uint8Array): Promise<number[]> {
  const opened = await openDocument(bytes);
  try {
    const layout = await extractLayout(opened);
    const out: number[] = [];
    for (const p of layout.pages) {
      if (p.method !== 'ocr') continue;
      const r = await renderPageGray(opened, p.index, DPI);
      const t0 = process.cpuUsage();
      for (let i = 0; i < 5; i++) {
        const images = pageImages(opened, p.index);
        const resampled = !!images.scale && images.scale.some((s) => Math.abs(s / r.scale - 1) > 0.01);
        const native = needsPageImage(images, r.scale) ? pageImagePixels(opened, p.index) : null;
        scanPageStats(r, r.scale, p.lines, p.index, resampled, images, native);
      }
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
  opts: { seed: number; styles?: readonly PatchStyle[]; jpeg?: JpegRows; verbose?: boolean; log?: (s: string) => void },
): Promise<ScanBenchResult> {
  const log = opts.log ?? (() => undefined);
  const styles = opts.styles ?? PATCH_STYLES;
  const pageStyles: PatchStyle[] = styles.filter((s) => s !== 'jpeg_shifted');
  const jpeg = styles.includes('jpeg_shifted') ? (opts.jpeg ?? JPEG_ROWS) : null;
  const row = (style: PatchStyle, label: string): StyleResult => ({
    style,
    label,
    gated: (GATED_STYLES as readonly PatchStyle[]).includes(style),
    made: 0,
    flagged: 0,
    named: 0,
    namedAny: 0,
    by: {},
    misses: [],
  });
  const coding = (q: number) => (q < 0 ? 'PNG/JPEG' : q === 0 ? 'PNG' : `JPEG q${q}`);
  const extra: ExtraPage[] = [
    ...HIGH_DPI.filter((e) => styles.includes(e.style)),
    ...DIGIT_PNG.filter((e) => styles.includes(e.style)),
    ...SCANNER_JPEG.filter((e) => styles.includes(e.style)),
    ...(jpeg?.pages ?? []).map((p) => ({ style: 'jpeg_shifted' as const, ...p })),
  ];
  const extraRows = extra.map((e) => {
    const r = row(
      e.style,
      e.scanner
        ? `${e.style} JPEG q${e.scanner} > ${coding(e.quality)}${e.skew ? ` ${e.skew}° askew` : ''}`
        : `${e.style} ${e.style === 'jpeg_shifted' || e.quality >= 0 ? `${coding(e.quality)} ` : ''}${e.dpiY ? `${e.dpi}x${e.dpiY}` : e.dpi}dpi`,
    );
    if (e.style === 'jpeg_shifted') {
      r.gated = blockJudgedPage(e.quality, e.dpi);
      r.grids = [];
    }
    // the scanner's JPEG rows are held where the last save keeps its steps, whatever the style
    if (e.scanner || e.held) r.gated = true;
    if (e.apart) {
      r.gated = false;
      r.apart = e.apart;
    }
    return { ...e, row: r };
  });
  const res: ScanBenchResult = {
    pages: 0,
    styles: [...pageStyles.map((s) => row(s, s)), ...extraRows.map((j) => j.row)],
    notApplicable: [],
    controls: 0,
    extraControls: 0,
    controlAlarms: [],
    controlOther: [],
    devScans: 0,
    devScanAlarms: [],
    statsMs: [],
  };
  /** The control read with OCR, or null (listed) when the scanned look broke the reading itself (OCR lost rows: shaded rows under the noise). */
  const readControl = async (o: Original, c: ScanCase, parsed: ParseResult): Promise<ParseResult | null> => {
    const control = await readOcr(c.control);
    if (Math.abs(control.transactions.length - parsed.transactions.length) <= 1) {
      for (const f of patches(control)) res.controlAlarms.push(`${o.name} (control, ${c.note}): ${f.message}`);
      for (const f of control.tamperFindings ?? [])
        if (f.category !== 'structure' && !patches(control).includes(f))
          res.controlOther.push(`${o.name} (control, ${c.note}): ${f.kind}: ${f.message}`);
      return control;
    }
    res.notApplicable.push(
      `${o.name} (${c.note}): the scanned control reads ${control.transactions.length} rows, the text ${parsed.transactions.length}`,
    );
    return null;
  };
  const judge = async (o: Original, c: ScanCase, s: StyleResult): Promise<void> => {
    const bytes = c.patched.get(s.style);
    if (!bytes) {
      res.notApplicable.push(`${o.name} [${s.label}] (${c.note}): no other amount on the page to copy`);
      return;
    }
    const patched = await readOcr(bytes);
    s.made++;
    const found = patches(patched);
    const flagged = found.length > 0 && patched.pdfRiskLevel !== 'low';
    const onRow = (f: TamperFinding) => f.boxes.some((b) => c.boxes.some((e) => overlaps(b, e)));
    const naming = found.find(onRow);
    const any = (patched.tamperFindings ?? []).filter(onRow);
    if (flagged) s.flagged++;
    if (patched.pdfRiskLevel !== 'low' && any.length) {
      s.namedAny++;
      for (const k of new Set(any.map((f) => f.kind))) s.by[k] = (s.by[k] ?? 0) + 1;
    }
    if (flagged && naming) s.named++;
    else
      s.misses.push(
        `${o.name} (${c.note}): level ${patched.pdfRiskLevel}; ${found.map((f) => f.message).join(' | ') || 'no pasted_patch or pasted_image finding'}${
          any.length ? ` (named by ${[...new Set(any.map((f) => f.kind))].join(', ')})` : ''
        }${
          opts.verbose
            ? `; other findings: ${(patched.tamperFindings ?? [])
                .filter((f) => !any.includes(f) && f.category !== 'structure')
                .map((f) => `${f.kind}: ${f.message}`)
                .join(' | ')}`
            : ''
        }`,
      );
    if (opts.verbose) log(`${o.name} [${s.label}] (${c.note}): ${naming ? naming.message : 'not named'}`);
  };
  for (const [i, o] of originals.entries()) {
    let parsed: ParseResult;
    try {
      parsed = await parseStatementFile(o.bytes, { ocr: false, receivedAt: new Date(Date.UTC(2026, 0, 1)) });
    } catch (e) {
      res.notApplicable.push(`${o.name}: not read (${(e as Error).message})`);
      continue;
    }
    let counted = false;
    if (pageStyles.length) {
      const c = parsed.transactions.length ? await makeScanCase(o, parsed, opts.seed, i % 2 ? 85 : undefined, pageStyles) : null;
      if (!c) {
        res.notApplicable.push(`${o.name}: no amount to edit`);
        continue;
      }
      if (await readControl(o, c, parsed)) {
        res.controls++;
        counted = true;
        for (const s of res.styles.filter((r) => pageStyles.includes(r.style) && !extraRows.some((e) => e.row === r))) await judge(o, c, s);
      }
    }
    for (const { style, quality, dpi, dpiY, scanner, skew, row: s } of extraRows) {
      const q = quality < 0 ? (i % 2 ? 85 : undefined) : quality || undefined;
      const c = parsed.transactions.length
        ? await makeScanCase(o, parsed, opts.seed, q, [style], dpi, jpeg?.patch, dpiY, scanner, skew)
        : null;
      if (!c) {
        res.notApplicable.push(`${o.name}: no amount to edit`);
        break;
      }
      if (!(await readControl(o, c, parsed))) continue;
      res.extraControls++;
      counted = true;
      await judge(o, c, s);
      if (style !== 'jpeg_shifted') continue;
      // the block grid measure, over the words of the text page the scan was made from
      const opened = await openDocument(o.bytes);
      let lines: Line[];
      try {
        lines = (await extractLayout(opened, { ocr: false })).pages[c.page].lines;
      } finally {
        opened.close();
      }
      const mine = await amountGrids(c.patched.get(style)!, lines, c.boxes);
      const ctl = await amountGrids(c.control, lines, c.boxes);
      const most = (xs: number[] | null | undefined) => (xs?.length ? Math.max(...xs) : null);
      s.grids!.push({
        name: o.name,
        edited: mine?.edited ?? null,
        others: most(mine?.others),
        control: most(ctl && [...ctl.others, ...(ctl.edited === null ? [] : [ctl.edited])]),
      });
    }
    if (counted) res.pages++;
  }
  for (const d of devScans) {
    const r = await readOcr(d.bytes);
    res.devScans++;
    for (const f of patches(r)) res.devScanAlarms.push(`${d.name}: ${f.message}`);
    if (r.pageCount <= 2) res.statsMs.push(...(await statsCost(d.bytes)));
    if (opts.verbose) log(`${d.name}: ${r.transactions.length} rows, ${patches(r).length} pasted_patch or pasted_image findings`);
  }
  return res;
}

/** Prints the figures; true when every gated style is named at 95% or more and nothing was found on a control or a dev-set scan. */
export function printScanBench(r: ScanBenchResult, seconds: number, jpeg: JpegRows = JPEG_ROWS): boolean {
  const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(0)}%` : '-');
  const f2 = (n: number | null) => (n === null ? '-' : n.toFixed(2));
  console.log(`\nscan patch bench (${seconds.toFixed(1)} s): ${r.pages} scanned pages, patched in ${r.styles.length} ways`);
  console.log(
    `  ${'patch'.padEnd(30)} ${'made'.padStart(5)} ${'flagged'.padStart(9)} ${'named'.padStart(9)} ${'any check'.padStart(10)}  (flagged, named: a pasted_patch or pasted_image finding; any check: a finding of any kind on the patched row, the arithmetic's too)`,
  );
  for (const s of r.styles)
    console.log(
      `  ${s.label.padEnd(30)} ${String(s.made).padStart(5)} ${pct(s.flagged, s.made).padStart(9)} ${pct(s.named, s.made).padStart(9)} ${pct(s.namedAny, s.made).padStart(10)}  ${Object.entries(
        s.by,
      )
        .map(([k, n]) => `${k} ${n}`)
        .join(
          ', ',
        )}${s.gated ? '' : s.apart ? `   (not gated: ${s.apart})` : s.style === 'jpeg_shifted' ? '   (not gated: the block grid is not judged on this page)' : '   (not gated: beyond the pixel checks)'}`,
    );
  const jpegRows = r.styles.filter((s) => s.grids);
  if (jpegRows.length)
    console.log(
      `  jpeg_shifted: the patch saved as JPEG q${jpeg.patch} on a grid shifted (3, 5) from the page's; held where the reader judges the block grid (a page image of ${BLOCK_DPI} dpi or more, kept lossless)`,
    );
  for (const s of jpegRows) {
    const g = s.grids!.filter((x) => x.edited !== null);
    const top = g.filter((x) => x.others === null || x.edited! > x.others).length;
    const range = (xs: Array<number | null>) => {
      const v = xs.filter((x): x is number => x !== null);
      return v.length ? `${f2(Math.min(...v))} to ${f2(Math.max(...v))}` : '-';
    };
    console.log(
      `  ${s.label} shifted block grid (jpeg-grid.ts): the patched amount ${range(g.map((x) => x.edited))}, the strongest on its page on ${top}/${g.length} pages; the page's strongest other amount ${range(g.map((x) => x.others))}; the controls' strongest amount ${range(s.grids!.map((x) => x.control))}`,
    );
  }
  console.log(
    `  false alarms on unpatched controls: ${r.controlAlarms.length} findings on ${r.controls} pages${r.extraControls ? ` and ${r.extraControls} pages made for the rows of their own (300 dpi, jpeg_shifted, scanned as JPEG)` : ''}`,
  );
  console.log(
    `  other findings on the unpatched controls (the arithmetic, the glyph checks: OCR's misreadings; not held): ${r.controlOther.length}`,
  );
  console.log(`  false alarms on the development set's scans: ${r.devScanAlarms.length} findings on ${r.devScans} files`);
  if (r.statsMs.length) {
    const mean = r.statsMs.reduce((a, b) => a + b, 0) / r.statsMs.length;
    console.log(
      `  pixel statistics per scanned page (the page image read and, where needed, decoded): mean ${mean.toFixed(1)} ms CPU, max ${Math.max(...r.statsMs).toFixed(1)} ms (${r.statsMs.length} pages)`,
    );
  }
  for (const m of [
    ...r.notApplicable.map((x) => `n/a: ${x}`),
    ...r.styles.flatMap((s) => s.misses.map((x) => `missed [${s.label}]: ${x}`)),
    ...r.controlAlarms,
    ...r.controlOther.map((x) => `other finding on a control: ${x}`),
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
  // flags of this part (tamper.ts hands over the others): --styles crisp,jpeg_shifted,...;
  // --jpeg-patch Q: the jpeg_shifted patch's own JPEG quality
  const args = process.argv.slice(2);
  const get = (k: string) => {
    const i = args.indexOf(k);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const styles = get('--styles')
    ?.split(',')
    .filter((x): x is PatchStyle => (PATCH_STYLES as readonly string[]).includes(x));
  // --jpeg-pages 85@200,0@300: the jpeg_shifted pages' codings (0: PNG) and image resolutions
  const pages = get('--jpeg-pages')
    ?.split(',')
    .map((x) => x.split('@').map(Number))
    .map(([quality, dpi]) => ({ quality, dpi: dpi || DPI }));
  const jpeg: JpegRows = { patch: Number(get('--jpeg-patch') ?? JPEG_ROWS.patch), pages: pages ?? JPEG_ROWS.pages };
  const t0 = Date.now();
  const res = await runScanBench(originals, devScans, { seed, styles, jpeg, verbose, log: (s) => console.log(`  ${s}`) });
  const ok = printScanBench(res, (Date.now() - t0) / 1000, jpeg);
  console.log(
    `\nresult: ${ok ? 'ok' : 'BELOW TARGET'} (targets: >= 95% of patches named in each gated style; no pasted_patch or pasted_image finding on a control or a dev-set scan)`,
  );
  await shutdownOcr();
  process.exitCode = ok ? 0 : 1;
}
