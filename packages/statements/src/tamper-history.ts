/**
 * The JPEG compression a scanned page went through before its last save, and the places that did not
 * (docs/tamper.md, "An earlier JPEG compression"). A scanner or a phone saves the page as JPEG: every
 * 8x8 block's DCT coefficients become multiples of that quantiser's steps. An editor opens the page,
 * pastes a patch, and saves it again (as JPEG with finer steps, or lossless): the page's blocks keep
 * the earlier steps' lattice under the new quantiser's rounding, and the blocks the patch touched do
 * not (their content is new, or copied from elsewhere off the block grid).
 *
 * `pageHistory` reads each block's low-frequency DCT coefficients on the image's own 8x8 grid, finds
 * for each frequency the largest step its coefficients keep (the earlier quantiser's), where the last
 * save's own step (`quant`, from the JPEG's table; 1 for a lossless image) cannot explain it, and
 * `freshRegions` gathers the blocks that fall off those steps into regions.
 */
import type { GrayRaster } from './extract';

/** The frequencies read: (u, v) with u + v <= 4, the DC term included (index v * 8 + u, natural order). */
const FREQS: number[] = [];
for (let v = 0; v <= 4; v++) for (let u = 0; u <= 4 - v; u++) FREQS.push(v * 8 + u);
const U_MAX = 4;

/** cos((2x + 1) u pi / 16), by x * 8 + u */
const COS = new Float64Array(64);
for (let x = 0; x < 8; x++) for (let u = 0; u < 8; u++) COS[x * 8 + u] = Math.cos(((2 * x + 1) * u * Math.PI) / 16);
const norm = (u: number) => (u === 0 ? Math.SQRT1_2 : 1) / 2;

/** A frequency's earlier step, and how far from its multiples a coefficient may fall and still be on it. */
export interface HistoryStep {
  /** index into the block (v * 8 + u) */
  freq: number;
  /** the earlier quantiser's step found */
  step: number;
  /** the last save's own step for this frequency (1 for a lossless image) */
  last: number;
  /** the distance (DCT units) from a multiple of `step` within which a coefficient is on it */
  tol: number;
  /** the share of the page's significant coefficients on it */
  on: number;
}

export interface PageHistory {
  steps: HistoryStep[];
  /** blocks across and down */
  bw: number;
  bh: number;
  /** coefficients by block (row-major) then by FREQS; NaN for a block with clipped pixels */
  coef: Float32Array;
}

/** A share of the page's coefficients at least this large on a step shows the step was there. */
const ON_SHARE = 0.9;
/** Significant coefficients of a frequency needed to read its step. */
const MIN_SAMPLES = 100;
/** Frequencies with an earlier step found needed to judge the page (of 15; a JPEG of quality 90 read under one of 95 shows 5). */
const MIN_STEPS = 4;
/** Coefficients sampled per frequency to find its step. */
const SAMPLE = 3000;
/** The steps are read on one block in this many. */
const SAMPLE_EVERY = 3;

/** The JPEG forward DCT of the block at (x0, y0), the frequencies of FREQS, into `out` at `at`. */
function blockDct(r: GrayRaster, x0: number, y0: number, rows: Float64Array, out: Float32Array, at: number): boolean {
  const w = r.width;
  for (let y = 0; y < 8; y++) {
    const base = (y0 + y) * w + x0;
    for (let x = 0; x < 8; x++) {
      const p = r.data[base + x];
      // a clipped pixel (the paper at full white, ink at full black) is not what the quantiser left
      if (p === 0 || p === 255) return false;
    }
    for (let u = 0; u <= U_MAX; u++) {
      let s = 0;
      for (let x = 0; x < 8; x++) s += (r.data[base + x] - 128) * COS[x * 8 + u];
      rows[y * 8 + u] = s;
    }
  }
  for (let k = 0; k < FREQS.length; k++) {
    const f = FREQS[k];
    const u = f & 7;
    const v = f >> 3;
    let s = 0;
    for (let y = 0; y < 8; y++) s += rows[y * 8 + u] * COS[y * 8 + v];
    out[at + k] = s * norm(u) * norm(v);
  }
  return true;
}

/** The coefficient as the last save coded it: snapped to its step's multiple (a JPEG), as read (lossless). */
const snap = (v: number, last: number) => (last > 1 ? Math.round(v / last) * last : v);

/**
 * The earlier JPEG compression the page image `r` (its own pixels, on its own 8x8 grid) still shows;
 * `quant` is the luminance quantisation table (natural order) of the JPEG the image is stored as, null
 * for a lossless image. Null when no earlier step shows on enough frequencies (an image compressed once,
 * or never, or re-saved with coarser steps than before).
 */
export function pageHistory(
  r: GrayRaster,
  quant: readonly number[] | null,
  regions?: ReadonlyArray<readonly [number, number, number, number]>,
): PageHistory | null {
  const bw = Math.floor(r.width / 8);
  const bh = Math.floor(r.height / 8);
  if (bw < 4 || bh < 4) return null;
  const n = FREQS.length;
  const coef = new Float32Array(bw * bh * n).fill(NaN);
  // the blocks read: those the regions touch (the lines with amounts), or all
  const read = new Uint8Array(bw * bh);
  if (regions)
    for (const b of regions)
      for (let by = Math.max(0, Math.floor(b[1] / 8)); by <= Math.min(bh - 1, Math.floor(b[3] / 8)); by++)
        read.fill(1, by * bw + Math.max(0, Math.floor(b[0] / 8)), by * bw + Math.min(bw - 1, Math.floor(b[2] / 8)) + 1);
  else read.fill(1);
  const rows = new Float64Array(64);
  // the steps are read on every SAMPLE_EVERY-th block first: a page with none (compressed once, or never) costs that much
  let seen = 0;
  for (let b = 0; b < bw * bh; b++)
    if (read[b] && seen++ % SAMPLE_EVERY === 0) blockDct(r, (b % bw) * 8, Math.floor(b / bw) * 8, rows, coef, b * n);
  const steps = findSteps(coef, bw * bh, quant);
  // JPEG quantises across and down alike: steps only down the page (or only across) are a resampling's
  // ripple, not a compression (a scan scaled down the page shows them)
  const across = steps.some((s) => (s.freq & 7) > 0);
  const down = steps.some((s) => s.freq >> 3 > 0);
  if (steps.length < MIN_STEPS || !across || !down) return null;
  // then every block of the page: a region put in after that compression may hold no amount (a row painted over)
  seen = 0;
  for (let b = 0; b < bw * bh; b++) {
    const sampled = read[b] && seen++ % SAMPLE_EVERY === 0;
    if (!sampled) blockDct(r, (b % bw) * 8, Math.floor(b / bw) * 8, rows, coef, b * n);
  }
  return { steps, bw, bh, coef };
}

/** Each frequency's earlier step, where its coefficients (of `blocks` blocks, NaN for a block not read) keep one. */
function findSteps(coef: Float32Array, blocks: number, quant: readonly number[] | null): HistoryStep[] {
  const n = FREQS.length;
  const steps: HistoryStep[] = [];
  for (let k = 0; k < n; k++) {
    const freq = FREQS[k];
    const last = quant ? Math.max(1, quant[freq] ?? 1) : 1;
    // a JPEG's coefficient is its step's multiple give or take the rounding of the pixels; the earlier
    // one's multiple gives or takes half the last step, and the rounding of both decodes
    const tol = last > 1 ? last / 2 + 0.75 : 1;
    const all: number[] = [];
    for (let b = 0; b < blocks; b++) {
      const c = coef[b * n + k];
      if (Number.isNaN(c)) continue;
      const v = snap(c, last);
      if (Math.abs(v) > tol) all.push(v);
    }
    const every = Math.max(1, Math.floor(all.length / SAMPLE));
    const vals = every > 1 ? all.filter((_, i) => i % every === 0) : all;
    if (vals.length < MIN_SAMPLES) continue;
    // the largest step the coefficients keep: one that the last step cannot explain (its own multiples,
    // a step at least twice as fine, fall off it between)
    let found: HistoryStep | null = null;
    for (let step = Math.max(3, 2 * last + 1); step <= 64; step++) {
      let on = 0;
      let i = 0;
      for (; i < vals.length; i++) {
        const v = vals[i];
        if (Math.abs(v - step * Math.round(v / step)) <= tol) on++;
        // most steps fall short at once: given up when the rest could not lift them to the share
        else if (i - on > (1 - ON_SHARE) * vals.length) break;
      }
      if (i === vals.length && on / vals.length >= ON_SHARE) found = { freq, step, last, tol, on: on / vals.length };
    }
    if (found) steps.push(found);
  }
  return steps;
}

/** Blocks (8 x 8 pixels) whose coefficients fall off the earlier steps, together: pixels put in after that compression. */
export interface FreshRegion {
  /** pixels of the image: [x0, y0, x1, y1] */
  box: [number, number, number, number];
  blocks: number;
  /** the share of its blocks' significant coefficients off the earlier steps, and how many there were */
  off: number;
  n: number;
}

/** A block is off the earlier compression when at least this share of its significant coefficients is. */
const BLOCK_OFF = 0.5;
/** Off blocks at most this many blocks apart belong to one region. */
const GAP = 2;
/** A region (its bounding box): at least this many blocks, this many significant coefficients, this share off. */
const REGION_BLOCKS = 4;
const REGION_COEFS = 100;
const REGION_OFF = 0.35;
/** A page with more of its other coefficients off than this share, or more of its blocks in regions, is not judged (cut or scaled after that compression). */
const REST_OFF = 0.06;
const MAX_REGION_SHARE = 0.25;
/** A region's share off at least this far above the rest of the page's. */
const REGION_ABOVE = 0.25;

/**
 * The regions of the page whose blocks fall off the earlier steps (blocks with at least half their
 * significant coefficients off, two blocks apart at most; judged over every block of their bounding
 * box), and the share of coefficients off over the rest of the page. Null when the blocks outside the regions fall off too often, or the regions are most of the
 * page, for the page to show one earlier compression.
 */
export function freshRegions(h: PageHistory): { regions: FreshRegion[]; rest: number } | null {
  const n = FREQS.length;
  const blocks = h.bw * h.bh;
  const offB = new Uint16Array(blocks);
  const sigB = new Uint16Array(blocks);
  const ks = h.steps.map((s) => FREQS.indexOf(s.freq));
  let judged = 0;
  for (let b = 0; b < blocks; b++) {
    const at = b * n;
    if (Number.isNaN(h.coef[at])) continue;
    h.steps.forEach((s, i) => {
      const v = snap(h.coef[at + ks[i]], s.last);
      if (Math.abs(v) <= s.tol) return;
      sigB[b]++;
      if (Math.abs(v - s.step * Math.round(v / s.step)) > s.tol) offB[b]++;
    });
    if (sigB[b]) judged++;
  }
  const marked = new Uint8Array(blocks);
  for (let b = 0; b < blocks; b++) if (sigB[b] && offB[b] / sigB[b] >= BLOCK_OFF) marked[b] = 1;
  if (!judged) return null;
  const regions: FreshRegion[] = [];
  const inRegion = new Uint8Array(blocks);
  for (let b0 = 0; b0 < blocks; b0++) {
    if (marked[b0] !== 1) continue;
    // the off blocks near it (two blocks apart at most: a patch's blocks that fall on a step by chance leave gaps)
    const stack = [b0];
    marked[b0] = 2;
    let [x0, y0, x1, y1] = [b0 % h.bw, Math.floor(b0 / h.bw), b0 % h.bw, Math.floor(b0 / h.bw)];
    while (stack.length) {
      const b = stack.pop()!;
      const bx = b % h.bw;
      const by = Math.floor(b / h.bw);
      [x0, y0, x1, y1] = [Math.min(x0, bx), Math.min(y0, by), Math.max(x1, bx), Math.max(y1, by)];
      for (let dy = -GAP; dy <= GAP; dy++)
        for (let dx = -GAP; dx <= GAP; dx++) {
          const x = bx + dx;
          const y = by + dy;
          if (x < 0 || y < 0 || x >= h.bw || y >= h.bh) continue;
          const c = y * h.bw + x;
          if (marked[c] === 1) {
            marked[c] = 2;
            stack.push(c);
          }
        }
    }
    // judged over every block of its bounding box, off or not: blocks picked for being off would show off whatever
    let off = 0;
    let sig = 0;
    let count = 0;
    for (let y = y0; y <= y1; y++)
      for (let x = x0; x <= x1; x++) {
        const b = y * h.bw + x;
        off += offB[b];
        sig += sigB[b];
        if (sigB[b]) count++;
      }
    if (count < REGION_BLOCKS || sig < REGION_COEFS || off / sig < REGION_OFF) continue;
    for (let y = y0; y <= y1; y++) inRegion.fill(1, y * h.bw + x0, y * h.bw + x1 + 1);
    regions.push({ box: [x0 * 8, y0 * 8, (x1 + 1) * 8, (y1 + 1) * 8], blocks: count, off: off / sig, n: sig });
  }
  let restOff = 0;
  let restSig = 0;
  for (let b = 0; b < blocks; b++)
    if (!inRegion[b]) {
      restOff += offB[b];
      restSig += sigB[b];
    }
  const rest = restSig ? restOff / restSig : 0;
  // a region stands clear of the rest of the page
  const kept = regions.filter((g) => g.off - rest >= REGION_ABOVE);
  // a page whose blocks fall off its steps all over (cut or scaled after that compression), or mostly
  // in regions, does not show one compression under its last save
  const inRegions = kept.reduce((a, g) => a + g.blocks, 0);
  if (rest > REST_OFF || inRegions > MAX_REGION_SHARE * judged) return null;
  return { regions: kept, rest };
}

/**
 * The luminance quantisation table (natural order) of a baseline or progressive JPEG: the table the
 * first component of its frame uses. Null when the stream is not a JPEG or names no such table.
 */
export function jpegLumaTable(bytes: Uint8Array): number[] | null {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  const tables = new Map<number, number[]>();
  let first: number | null = null;
  for (let i = 2; i + 4 <= bytes.length;) {
    if (bytes[i] !== 0xff) return null;
    const m = bytes[i + 1];
    if (m === 0xff) {
      i++;
      continue;
    }
    if (m === 0xd8 || (m >= 0xd0 && m <= 0xd7) || m === 0x01) {
      i += 2;
      continue;
    }
    const len = (bytes[i + 2] << 8) | bytes[i + 3];
    const end = i + 2 + len;
    if (len < 2 || end > bytes.length) return null;
    if (m === 0xdb) {
      for (let j = i + 4; j < end;) {
        const pq = bytes[j] >> 4;
        const tq = bytes[j] & 15;
        const t: number[] = new Array(64);
        for (let k = 0; k < 64; k++) t[ZIGZAG[k]] = pq ? (bytes[j + 1 + 2 * k] << 8) | bytes[j + 2 + 2 * k] : bytes[j + 1 + k];
        tables.set(tq, t);
        j += 1 + (pq ? 128 : 64);
      }
    } else if (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc) {
      // a frame header: its first component's table
      if (bytes[i + 9] >= 1) first = bytes[i + 12];
    } else if (m === 0xda) break;
    i = end;
  }
  return first !== null ? (tables.get(first) ?? null) : null;
}

/** Zig-zag position k -> natural index (v * 8 + u). */
const ZIGZAG = [
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57,
  50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
];
