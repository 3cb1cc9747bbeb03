/**
 * Content check of scanned pages (issue 32): an amount pasted into a scan as a patch. A scan's paper
 * carries the scanner's noise everywhere and its ink edges are as soft as its optics; a patch made in
 * an image editor (the new digits typed onto a box of the paper's colour) is cleaner and sharper than
 * every other amount of its page. The pixels of each money-like word (and of the other words of its
 * line) are measured in the raster OCR read, while it is still held (layout.ts, finishJob), and the
 * findings compare each amount with the other amounts of its column and the words of its row, by
 * median and MAD, needing strong evidence. docs/tamper.md.
 */
import type { GrayRaster } from './extract';
import { isMoney } from './tamper-content';
import type { Line, StatementTransaction, TamperFinding } from './types';
import { sortedNumbers } from './tokens';

type Box = [number, number, number, number];

/** What the pixels of one word show. */
export interface ScanWordStats {
  text: string;
  /** PDF points, origin top-left, as the page's words */
  box: Box;
  /** index of its line on the page */
  line: number;
  money: boolean;
  /** median absolute step between neighbouring paper pixels away from the ink (grey levels); null when too little paper */
  noise: number | null;
  /** the paper's grey level around the glyphs */
  tone: number;
  /** the steepest ink edges' gradient (grey levels per pixel) over the ink/paper contrast: ~1 crisp, ~0.5 a scanner's blur */
  sharp: number | null;
  /** ink/paper contrast (grey levels) */
  contrast: number;
}

export interface ScanPageStats {
  /** 0-based page index */
  index: number;
  words: ScanWordStats[];
}

/** Words of a line measured at most (a line with an amount: its other words are the row's reference). */
const LINE_WORDS = 16;

/** Measures one word's box (PDF points) in a raster of `scale` pixels per point. */
export function wordPixelStats(r: GrayRaster, scale: number, box: Box): Omit<ScanWordStats, 'text' | 'box' | 'line' | 'money'> | null {
  const hpx = (box[3] - box[1]) * scale;
  if (hpx < 6) return null;
  const pad = Math.round(Math.min(6, Math.max(2, 0.25 * hpx)));
  const x0 = Math.max(0, Math.floor(box[0] * scale) - pad);
  const y0 = Math.max(0, Math.floor(box[1] * scale) - pad);
  const x1 = Math.min(r.width, Math.ceil(box[2] * scale) + pad);
  const y1 = Math.min(r.height, Math.ceil(box[3] * scale) + pad);
  const w = x1 - x0;
  const h = y1 - y0;
  if (w < 4 || h < 4) return null;
  const hist = new Uint32Array(256);
  for (let y = y0; y < y1; y++) {
    const row = y * r.width;
    for (let x = x0; x < x1; x++) hist[r.data[row + x]]++;
  }
  const n = w * h;
  const pct = (p: number) => {
    const want = p * n;
    let s = 0;
    for (let v = 0; v < 256; v++) {
      s += hist[v];
      if (s >= want) return v;
    }
    return 255;
  };
  const ink = pct(0.03);
  const paper = pct(0.8);
  const contrast = paper - ink;
  if (contrast < 40) return null;
  // ink: darker than a quarter of the way from paper to ink; paper pixels are those 2 px or more from any ink
  const thr = paper - 0.25 * contrast;
  const near = new Uint8Array(n);
  for (let y = 0; y < h; y++) {
    const row = (y + y0) * r.width + x0;
    for (let x = 0; x < w; x++) {
      if (r.data[row + x] >= thr) continue;
      for (let dy = Math.max(0, y - 2); dy <= Math.min(h - 1, y + 2); dy++)
        near.fill(1, dy * w + Math.max(0, x - 2), dy * w + Math.min(w, x + 3));
    }
  }
  // the median step: robust to a JPEG's ringing beside the glyphs and to specks
  const stepHist = new Uint32Array(256);
  let pairs = 0;
  const bg = new Uint32Array(256);
  let bgN = 0;
  // the ink edges' gradients as a histogram (whole grey levels): the steepest quarter without a sort
  const grads = new Uint32Array(256);
  let edges = 0;
  const edge = 0.2 * contrast;
  for (let y = 0; y < h; y++) {
    const row = (y + y0) * r.width + x0;
    for (let x = 0; x < w; x++) {
      const v = r.data[row + x];
      if (!near[y * w + x]) {
        bg[v]++;
        bgN++;
        if (x + 1 < w && !near[y * w + x + 1]) {
          stepHist[Math.abs(r.data[row + x + 1] - v)]++;
          pairs++;
        }
      }
      const gx = x + 1 < w ? Math.abs(r.data[row + x + 1] - v) : 0;
      const gy = y + 1 < h ? Math.abs(r.data[row + r.width + x] - v) : 0;
      const g = gx > gy ? gx : gy;
      if (g >= edge) {
        grads[g]++;
        edges++;
      }
    }
  }
  let tone = paper;
  if (bgN) {
    let s = 0;
    for (let v = 0; v < 256; v++) {
      s += bg[v];
      if (s >= bgN / 2) {
        tone = v;
        break;
      }
    }
  }
  let sharp: number | null = null;
  if (edges >= 8) {
    const want = Math.max(4, edges >> 2);
    let left = want;
    let sum = 0;
    for (let v = 255; v >= 0 && left > 0; v--) {
      const k = Math.min(left, grads[v]);
      sum += k * v;
      left -= k;
    }
    sharp = sum / want / contrast;
  }
  let noise: number | null = null;
  if (pairs >= 40) {
    // the median of the steps, interpolated within its grey level (steps are whole levels)
    let below = 0;
    for (let v = 0; v < 256; v++) {
      if (below + stepHist[v] >= pairs / 2) {
        noise = v + (pairs / 2 - below) / stepHist[v] - 0.5;
        break;
      }
      below += stepHist[v];
    }
    noise = Math.max(0, noise ?? 0);
  }
  return { noise, tone, sharp, contrast };
}

/** The pixel statistics of a whole-page OCR reading: the money words and the other words of their lines. */
export function scanPageStats(r: GrayRaster, scale: number, lines: Line[], index: number): ScanPageStats {
  const words: ScanWordStats[] = [];
  lines.forEach((l, li) => {
    if (!l.words.some((w) => isMoney(w.text))) return;
    for (const w of l.words.slice(0, LINE_WORDS)) {
      const box: Box = [w.x0, w.y0, w.x1, w.y1];
      const s = wordPixelStats(r, scale, box);
      if (s) words.push({ text: w.text, box, line: li, money: isMoney(w.text), ...s });
    }
  });
  return { index, words };
}

const median = (xs: number[]) => {
  const s = sortedNumbers(xs);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const mad = (xs: number[], med: number) => median(xs.map((x) => Math.abs(x - med)));

/** Money words of a page needed to tell what its amounts look like. */
const MIN_AMOUNTS = 6;

interface Signal {
  what: 'cleaner' | 'noisier' | 'sharper' | 'softer' | 'lighter' | 'darker';
  detail: string;
}

const f1 = (n: number) => n.toFixed(1);
const f2 = (n: number) => n.toFixed(2);
const r1 = (n: number) => Math.round(n * 10) / 10;

function rowOf(txs: StatementTransaction[], page: number, box: Box): number | null {
  const cx = (box[0] + box[2]) / 2;
  const cy = (box[1] + box[3]) / 2;
  for (let i = 0; i < txs.length; i++) {
    const s = txs[i].source;
    if (s?.page !== page) continue;
    if (s.boxes.some((b) => cx >= b[0] - 2 && cx <= b[2] + 2 && cy >= b[1] - 1.5 && cy <= b[3] + 1.5)) return i;
  }
  return null;
}

/**
 * Findings of kind `pasted_patch`: an amount whose paper noise, edge sharpness or paper tone stands
 * out from the other amounts of its column (or page) and from the other words of its row. One signal
 * is medium, two are high.
 */
export function scanFindings(pages: Iterable<ScanPageStats>, txs: StatementTransaction[]): TamperFinding[] {
  const out: TamperFinding[] = [];
  for (const p of pages) {
    const page = p.index + 1;
    const money = p.words.filter((w) => w.money);
    if (money.length < MIN_AMOUNTS) continue;
    const inColumn = (w: ScanWordStats) => money.filter((o) => Math.abs(o.box[2] - w.box[2]) <= 6).length >= 1;
    const misread = p.words.filter((w) => !w.money && /\d.*\d/.test(w.text) && w.text.length >= 4 && inColumn(w));
    for (const t of [...money, ...misread]) {
      // the reference: the other amounts of its column (right edges within 6 pt) when there are enough, else of the page
      const others = money.filter((o) => o !== t);
      const col = others.filter((o) => Math.abs(o.box[2] - t.box[2]) <= 6);
      const ref = col.length >= MIN_AMOUNTS - 1 ? col : others;
      const where = ref === col ? 'its column' : 'its page';
      const row = p.words.filter((o) => o.line === t.line && o !== t && !o.money);
      const signals: Signal[] = [];
      // paper noise
      const noises = ref.map((o) => o.noise).filter((x): x is number => x !== null);
      if (t.noise !== null && noises.length >= MIN_AMOUNTS - 1) {
        const med = median(noises);
        const spread = Math.max(1.4826 * mad(noises, med), 0.1 * med, 0.15);
        const rowN = row.map((o) => o.noise).filter((x): x is number => x !== null);
        const rowMed = rowN.length ? median(rowN) : null;
        if (med >= 0.8 && t.noise <= 0.5 * med && med - t.noise >= 4 * spread && (rowMed === null || t.noise <= 0.6 * rowMed))
          signals.push({
            what: 'cleaner',
            detail: `paper noise ${f1(t.noise)} against ${f1(med)}${rowMed !== null ? ` (its row's words ${f1(rowMed)})` : ''}`,
          });
        else if (med >= 0.8 && t.noise >= 2.5 * med && t.noise - med >= 4 * spread && (rowMed === null || t.noise >= 2 * rowMed))
          signals.push({
            what: 'noisier',
            detail: `paper noise ${f1(t.noise)} against ${f1(med)}${rowMed !== null ? ` (its row's words ${f1(rowMed)})` : ''}`,
          });
      }
      // edge sharpness
      const sharps = ref.map((o) => o.sharp).filter((x): x is number => x !== null);
      if (t.sharp !== null && sharps.length >= MIN_AMOUNTS - 1) {
        const med = median(sharps);
        const spread = Math.max(1.4826 * mad(sharps, med), 0.06 * med);
        const rowS = row.map((o) => o.sharp).filter((x): x is number => x !== null);
        const rowMed = rowS.length ? median(rowS) : null;
        if (t.sharp >= 1.4 * med && t.sharp - med >= 4 * spread && (rowMed === null || t.sharp >= 1.3 * rowMed))
          signals.push({
            what: 'sharper',
            detail: `edge sharpness ${f2(t.sharp)} against ${f2(med)}${rowMed !== null ? ` (its row's words ${f2(rowMed)})` : ''}`,
          });
        else if (t.sharp <= 0.55 * med && med - t.sharp >= 4 * spread && (rowMed === null || t.sharp <= 0.65 * rowMed))
          signals.push({
            what: 'softer',
            detail: `edge sharpness ${f2(t.sharp)} against ${f2(med)}${rowMed !== null ? ` (its row's words ${f2(rowMed)})` : ''}`,
          });
      }
      // paper tone
      const tones = ref.map((o) => o.tone);
      {
        const med = median(tones);
        const spread = Math.max(1.4826 * mad(tones, med), 2);
        const rowMed = row.length ? median(row.map((o) => o.tone)) : null;
        const d = t.tone - med;
        // only beside the row's own words: a shaded row (zebra stripes) shades them too
        if (
          rowMed !== null &&
          Math.abs(d) >= Math.max(12, 4 * spread) &&
          Math.abs(t.tone - rowMed) >= 10 &&
          Math.sign(t.tone - rowMed) === Math.sign(d)
        )
          signals.push({
            what: d > 0 ? 'lighter' : 'darker',
            detail: `paper tone ${t.tone} against ${f1(med)} (its row's words ${f1(rowMed)})`,
          });
      }
      if (!signals.length) continue;
      const rowIx = rowOf(txs, page, t.box);
      const tx = rowIx === null ? null : txs[rowIx];
      const label = tx ? ` (row ${rowIx! + 1}: ${tx.date}${tx.description ? `, ${tx.description.slice(0, 40)}` : ''})` : '';
      const words = signals.map((s) => s.what);
      const how = words.length > 1 ? `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}` : words[0];
      out.push({
        kind: 'pasted_patch',
        category: 'content',
        severity: signals.length >= 2 ? 'high' : 'medium',
        page,
        boxes: [[r1(t.box[0]), r1(t.box[1]), r1(t.box[2]), r1(t.box[3])]],
        row: rowIx,
        message: `page ${page}: ${t.money ? `the amount ${t.text}` : `the value read as "${t.text}" in a column of amounts`} is ${how} than the other ${ref.length} amounts of ${where}: ${signals.map((s) => s.detail).join('; ')}, as a patch pasted into the scan is${label}`,
      });
    }
  }
  return out;
}
