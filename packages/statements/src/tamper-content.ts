/**
 * Content checks for edited statements (issue 32): signs in the printed text itself, not in the
 * file's metadata. Each finding names its page, its boxes (PDF points, origin top-left, as the
 * transactions' `source`), the row it concerns and a sentence a person can check. docs/tamper.md.
 */
import { area, Box, Glyph, intersection, PageInk, readPageInk, shareInside } from './ink';
import type { OpenedDocument } from './open';
import type { PageLayout, Reconciliation, StatementTransaction, TamperFinding } from './types';

/** A run of glyphs on one baseline without a word gap: one printed value. */
export interface InkToken {
  text: string;
  page: number;
  glyphs: Glyph[];
  box: Box;
  base: number;
  size: number;
  /** the transaction whose line holds it (index into transactions), or null */
  row: number | null;
}

const MONEY = /^[^\d]{0,3}\d{1,3}(?:[,.' ]?\d{3})*[.,]\d{2}(?:[^\d]{0,3})$/;
export const isMoney = (s: string) => MONEY.test(s) && /\d[.,]\d{2}\D{0,3}$/.test(s);

const money2 = (s: string) => s.replace(/[^\d.,-]/g, '');

/**
 * Groups glyphs into tokens in drawing order: a glyph joins the previous one on the same baseline
 * with no gap wider than a fifth of an em (a word space is wider; spaces themselves are not kept).
 * Text drawn later at the same place (an overlay) starts a token of its own.
 */
export function tokensOf(glyphs: Glyph[], page: number): InkToken[] {
  const out: InkToken[] = [];
  let cur: Glyph[] = [];
  const flush = () => {
    const gs = cur;
    cur = [];
    if (!gs.length) return;
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    let text = '';
    for (const g of gs) {
      if (g.x0 < x0) x0 = g.x0;
      if (g.y0 < y0) y0 = g.y0;
      if (g.x1 > x1) x1 = g.x1;
      if (g.y1 > y1) y1 = g.y1;
      text += g.ch;
    }
    const sizes = gs.map((g) => g.size).sort((p, q) => p - q);
    out.push({ text, page, glyphs: gs, box: [x0, y0, x1, y1], base: gs[0].base, size: sizes[sizes.length >> 1], row: null });
  };
  for (const g of glyphs) {
    const prev = cur[cur.length - 1];
    if (prev) {
      const em = Math.max(g.size, prev.size);
      const gap = g.x0 - prev.x1;
      if (Math.abs(g.base - prev.base) > 0.25 * em || gap > 0.2 * em || gap < -0.3 * em) flush();
    }
    if (g.ch.trim()) cur.push(g);
    else flush();
  }
  flush();
  return out;
}

/** Colours a reader would call the same (near-black greys of one generator) fall in one bucket. */
const buckets = new Map<string, string>();

function colorBucket(hex: string): string {
  let b = buckets.get(hex);
  if (b === undefined) {
    b = bucketOf(hex);
    buckets.set(hex, b);
  }
  return b;
}

function bucketOf(hex: string): string {
  const v = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
  if (Math.max(...v) < 0.3) return '#000000';
  return `#${v.map((c) => (Math.round(c * 4) * 63).toString(16).padStart(2, '0')).join('')}`;
}

const styleOf = (g: Glyph) => `${g.font}|${g.size.toFixed(1)}|${colorBucket(g.color)}`;

/** The right edge of a value where its last glyph starts: the same for every value ending in a digit when digits are tabular (a font program's advance may differ from the PDF's widths). */
const edgeOf = (t: InkToken) => t.glyphs[t.glyphs.length - 1].x0;
const edgeClass = (t: InkToken) => {
  const ch = t.glyphs[t.glyphs.length - 1].ch;
  return /\d/.test(ch) ? 'digit' : ch;
};

const styles = new WeakMap<InkToken, string>();

/** The style most of a value's digits are set in (memoised: every check asks it). */
function tokenStyle(t: InkToken): string {
  const known = styles.get(t);
  if (known) return known;
  const digits = t.glyphs.filter((g) => g.ch >= '0' && g.ch <= '9');
  const d0 = digits[0];
  if (d0 && digits.every((g) => g.font === d0.font && g.size === d0.size && g.color === d0.color)) {
    const style = styleOf(d0); // the common case: one style, one string
    styles.set(t, style);
    return style;
  }
  const counts = new Map<string, number>();
  for (const g of digits.length ? digits : t.glyphs) {
    const k = styleOf(g);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const style = [...counts].sort((a, b) => b[1] - a[1])[0][0];
  styles.set(t, style);
  return style;
}

const rowLabel = (txs: StatementTransaction[], row: number | null) => {
  if (row === null) return '';
  const t = txs[row];
  return ` (row ${row + 1}: ${t.date}${t.description ? `, ${t.description.slice(0, 40)}` : ''})`;
};

const describeStyle = (s: string) => {
  const [font, size, color] = s.split('|');
  return `${font} ${size} pt${color !== '#000000' ? ` ${color}` : ''}`;
};

function assignRows(tokens: InkToken[], txs: StatementTransaction[]): void {
  const byPage = new Map<number, Array<{ row: number; box: Box }>>();
  txs.forEach((t, row) => {
    if (!t.source) return;
    const l = byPage.get(t.source.page) ?? [];
    for (const b of t.source.boxes) l.push({ row, box: b });
    byPage.set(t.source.page, l);
  });
  for (const tok of tokens) {
    const cands = byPage.get(tok.page);
    if (!cands) continue;
    const cx = (tok.box[0] + tok.box[2]) / 2;
    const cy = (tok.box[1] + tok.box[3]) / 2;
    for (const c of cands) {
      if (cx >= c.box[0] - 2 && cx <= c.box[2] + 2 && cy >= c.box[1] - 1.5 && cy <= c.box[3] + 1.5) {
        tok.row = c.row;
        break;
      }
    }
  }
}

/** Rows' boxes by row, to name the row of a box that no token of a row holds (a covered amount). */
function rowAt(txs: StatementTransaction[], page: number, box: Box): number | null {
  let best: number | null = null;
  let bestShare = 0;
  txs.forEach((t, i) => {
    if (t.source?.page !== page) return;
    for (const b of t.source.boxes) {
      const s = shareInside(box, [b[0] - 2, b[1] - 1.5, b[2] + 2, b[3] + 1.5]);
      if (s > bestShare) {
        bestShare = s;
        best = i;
      }
    }
  });
  return bestShare >= 0.5 ? best : null;
}

const r1 = (n: number) => Math.round(n * 10) / 10;
const rbox = (b: Box): Box => [r1(b[0]), r1(b[1]), r1(b[2]), r1(b[3])];

export interface ContentInput {
  opened: OpenedDocument;
  pages: PageLayout[];
  transactions: StatementTransaction[];
  reconciliation: Reconciliation | null;
  /** printed balances the parser found misprinted on their row only (a chain break is then no sign of editing) */
  misprints: number;
  /** total glyphs read over the document (the rest of the pages are not checked) */
  maxGlyphs?: number;
}

/** Content findings of a document: glyph style, position, covered and hidden text, arithmetic. */
export async function contentFindings(input: ContentInput): Promise<TamperFinding[]> {
  const { opened, pages, transactions: txs } = input;
  const findings: TamperFinding[] = [];
  const budget = input.maxGlyphs ?? 400_000;
  const inks: PageInk[] = [];
  let used = 0;
  for (const p of pages) {
    if (p.method !== 'text' || used >= budget) continue;
    // only the text that holds a digit (amounts, dates, balances) is read glyph by glyph
    const focus: Box[] = [];
    for (const l of p.lines) for (const w of l.words) if (/\d/.test(w.text)) focus.push([w.x0 - 1, w.y0 - 1, w.x1 + 1, w.y1 + 1]);
    const ink = await readPageInk(opened, p.index, Math.min(60_000, budget - used), focus);
    used += ink.glyphs.length;
    inks.push(ink);
  }
  const visible: InkToken[] = [];
  const hidden: Array<InkToken & { why: 'covered' | 'invisible' | 'clipped' | 'off_page' }> = [];
  for (const ink of inks) {
    const page = ink.index + 1;
    const vis = ink.glyphs.filter((g) => (g.mode === 'fill' || g.mode === 'stroke') && !g.coveredBy && !g.clipped && !g.offPage);
    visible.push(...tokensOf(vis, page));
    const groups: Array<['covered' | 'invisible' | 'clipped' | 'off_page', Glyph[]]> = [
      ['covered', ink.glyphs.filter((g) => g.mode !== 'clip' && g.coveredBy !== null)],
      ['invisible', ink.glyphs.filter((g) => g.mode === 'invisible' && !g.coveredBy)],
      ['clipped', ink.glyphs.filter((g) => g.mode !== 'clip' && g.mode !== 'invisible' && g.clipped && !g.offPage && !g.coveredBy)],
      ['off_page', ink.glyphs.filter((g) => g.mode !== 'clip' && g.offPage)],
    ];
    for (const [why, gs] of groups) for (const t of tokensOf(gs, page)) hidden.push({ ...t, why });
  }
  assignRows(visible, txs);
  assignRows(hidden, txs);

  // 1. hidden amounts: under a later opaque box, invisible, clipped away or off the page
  const moneyVisible = visible.filter((t) => isMoney(t.text));
  for (const h of hidden) {
    if (!isMoney(h.text)) continue;
    const over = moneyVisible.find((v) => v.page === h.page && area(intersection(v.box, h.box)) > 0.3 * Math.min(area(v.box), area(h.box)));
    const row = h.row ?? rowAt(txs, h.page, h.box);
    if (over && money2(over.text) === money2(h.text)) continue; // the same value printed twice (shadow, fake bold)
    if (h.why === 'invisible' && !over) continue; // an OCR text layer under a scan's image
    if (h.why === 'covered' && over) {
      findings.push({
        kind: 'covered_text',
        category: 'content',
        severity: 'high',
        page: h.page,
        boxes: [rbox(over.box), rbox(h.box)],
        row: over.row ?? row,
        message: `page ${h.page}: the amount ${over.text} is printed over another amount, ${h.text}, hidden under a filled box drawn after it${rowLabel(txs, over.row ?? row)}`,
      });
    } else if (h.why === 'covered') {
      findings.push({
        kind: 'covered_text',
        category: 'content',
        severity: 'medium',
        page: h.page,
        boxes: [rbox(h.box)],
        row,
        message: `page ${h.page}: the amount ${h.text} is hidden under a filled box drawn after it${rowLabel(txs, row)}`,
      });
    } else if (over) {
      findings.push({
        kind: 'hidden_text',
        category: 'content',
        severity: 'high',
        page: h.page,
        boxes: [rbox(over.box), rbox(h.box)],
        row: over.row ?? row,
        message: `page ${h.page}: the visible amount ${over.text} has a different amount, ${h.text}, ${h.why === 'invisible' ? 'in invisible text' : 'clipped out of view'} at the same place${rowLabel(txs, over.row ?? row)}`,
      });
    } else {
      findings.push({
        kind: 'hidden_text',
        category: 'content',
        severity: 'medium',
        page: h.page,
        boxes: [rbox(h.box)],
        row,
        message: `page ${h.page}: the amount ${h.text} is ${h.why === 'off_page' ? 'printed outside the page' : 'clipped out of view'}${rowLabel(txs, row)}`,
      });
    }
  }

  // 2. visible amounts printed over each other
  const byTop = [...moneyVisible].sort((a, b) => a.page - b.page || a.box[1] - b.box[1]);
  for (let i = 0; i < byTop.length; i++) {
    for (let j = i + 1; j < byTop.length; j++) {
      const a = byTop[i];
      const b = byTop[j];
      if (b.page !== a.page || b.box[1] >= a.box[3]) break;
      if (money2(a.text) === money2(b.text)) continue;
      if (area(intersection(a.box, b.box)) <= 0.3 * Math.min(area(a.box), area(b.box))) continue;
      findings.push({
        kind: 'overlapping_text',
        category: 'content',
        severity: 'high',
        page: a.page,
        boxes: [rbox(a.box), rbox(b.box)],
        row: a.row ?? b.row,
        message: `page ${a.page}: the amounts ${a.text} and ${b.text} are printed over each other${rowLabel(txs, a.row ?? b.row)}`,
      });
    }
  }

  // 3. style and position of the amounts in the transaction rows, column by column
  findings.push(...columnFindings(moneyVisible, visible, txs));

  // 4. arithmetic the reading already did
  const rec = input.reconciliation;
  if (rec && txs.length && !input.misprints) {
    if (rec.firstBrokenRow !== null) {
      const k = rec.firstBrokenRow;
      const t = txs[k];
      // where balances are printed only at the end of a day, the row at fault is any since the last
      // printed balance: those rows of the same page are boxed too
      let from = k;
      while (from > 0 && txs[from - 1].balance === null && txs[from - 1].source?.page === t.source?.page) from--;
      const boxes = txs.slice(from, k + 1).flatMap((x) => x.source?.boxes.map(rbox) ?? []);
      findings.push({
        kind: 'balance_chain',
        category: 'arithmetic',
        severity: 'medium',
        page: t.source?.page ?? null,
        boxes,
        row: k,
        message: `the running balance does not follow at row ${k + 1} (${t.date}, ${t.amount.toFixed(2)}, printed balance ${t.balance === null ? '-' : t.balance.toFixed(2)})${from < k ? `: one of rows ${from + 1} to ${k + 1} (printed without a balance of their own) or its balance differs from what was printed` : ''}`,
      });
    }
    if (rec.totalsMatch === false && rec.difference !== null) {
      findings.push({
        kind: 'totals',
        category: 'arithmetic',
        severity: 'medium',
        page: null,
        boxes: [],
        row: null,
        message: `the printed closing balance differs from the opening balance plus the rows by ${rec.difference.toFixed(2)}`,
      });
    }
  }
  return findings;
}

const seqOf = (t: InkToken) => Math.min(...t.glyphs.map((g) => g.seq));

/**
 * Values of a column drawn out of its order: a generator writes a column top to bottom (or bottom
 * up); a value written into a finished page comes after all of them. At most two such values per
 * column, each drawn after every other value of the column, and the rest in order.
 */
function drawnLate(col: InkToken[]): InkToken[] {
  if (col.length < 5) return [];
  const byY = [...col].sort((a, b) => a.base - b.base || a.box[0] - b.box[0]);
  let inc = 0;
  for (let i = 1; i < byY.length; i++) if (seqOf(byY[i]) > seqOf(byY[i - 1])) inc++;
  const up = inc * 2 >= byY.length - 1;
  const ordered = (xs: InkToken[]) => xs.every((t, i) => i === 0 || (up ? seqOf(t) > seqOf(xs[i - 1]) : seqOf(t) < seqOf(xs[i - 1])));
  if (ordered(byY)) return [];
  const late: InkToken[] = [];
  let rest = byY;
  while (!ordered(rest)) {
    if (late.length === 2) return [];
    const last = rest.reduce((a, b) => (seqOf(b) > seqOf(a) ? b : a));
    const without = rest.filter((t) => t !== last);
    late.push(last);
    rest = without;
  }
  // the late values must not be where the order would put them anyway (the end of the column)
  return late.filter((t) => (up ? t.base < rest[rest.length - 1].base : t.base > rest[0].base));
}

/** Font, size and colour outliers, and amounts off their column's edge or their row's baseline. */
function columnFindings(money: InkToken[], all: InkToken[], txs: StatementTransaction[]): TamperFinding[] {
  const out: TamperFinding[] = [];
  const inRows = money.filter((t) => t.row !== null);
  // styles over every amount of the document: a style many amounts share is the bank's design
  const docStyles = new Map<string, number>();
  for (const t of money) docStyles.set(tokenStyle(t), (docStyles.get(tokenStyle(t)) ?? 0) + 1);
  const flagged = new Set<InkToken>();

  // a value whose digits are not all in one font/size/colour
  for (const t of inRows) {
    let first: Glyph | null = null;
    let mixed = false;
    for (const g of t.glyphs) {
      if (g.ch < '0' || g.ch > '9') continue;
      if (!first) first = g;
      else if (g.font !== first.font || Math.abs(g.size - first.size) >= 0.25 || g.color !== first.color) {
        mixed = true;
        break;
      }
    }
    if (!mixed) continue;
    const styles = new Set(t.glyphs.filter((g) => g.ch >= '0' && g.ch <= '9').map(styleOf));
    if (styles.size < 2) continue;
    flagged.add(t);
    out.push({
      kind: 'glyph_style',
      category: 'content',
      severity: 'high',
      page: t.page,
      boxes: [rbox(t.box)],
      row: t.row,
      message: `page ${t.page}: the digits of ${t.text} are not all in one font (${[...styles].map(describeStyle).join(', ')})${rowLabel(txs, t.row)}`,
    });
  }

  // columns: amounts whose right edges line up within 3 pt (tables right-align their amounts)
  const sorted = [...inRows].sort((a, b) => a.box[2] - b.box[2]);
  const columns: InkToken[][] = [];
  for (const t of sorted) {
    const last = columns[columns.length - 1];
    if (last && t.box[2] - last[last.length - 1].box[2] <= 3) last.push(t);
    else columns.push([t]);
  }
  for (const col of columns) {
    if (col.length < 4) continue;
    const counts = new Map<string, number>();
    for (const t of col) counts.set(tokenStyle(t), (counts.get(tokenStyle(t)) ?? 0) + 1);
    const [major, majorN] = [...counts].sort((a, b) => b[1] - a[1])[0];
    if (majorN / col.length >= 0.75) {
      const [mFont, mSize] = major.split('|');
      for (const t of col) {
        const s = tokenStyle(t);
        if (s === major || flagged.has(t) || (docStyles.get(s) ?? 0) > 2) continue;
        const [font, size] = s.split('|');
        const strong = font !== mFont || Math.abs(+size - +mSize) >= 0.25;
        flagged.add(t);
        out.push({
          kind: 'glyph_style',
          category: 'content',
          severity: strong ? 'high' : 'medium',
          page: t.page,
          boxes: [rbox(t.box)],
          row: t.row,
          message: `page ${t.page}: the amount ${t.text} is set in ${describeStyle(s)}, the other ${majorN} amounts of its column in ${describeStyle(major)}${rowLabel(txs, t.row)}`,
        });
      }
    }
  }

  // the document: its row amounts are set in one font; a font at most two amounts of the whole
  // document use (summary included) stands out even in a column too short to compare
  const fontOf = (t: InkToken) => tokenStyle(t).split('|')[0];
  const docFonts = new Map<string, number>();
  for (const t of money) docFonts.set(fontOf(t), (docFonts.get(fontOf(t)) ?? 0) + 1);
  const rowFonts = new Map<string, number>();
  for (const t of inRows) rowFonts.set(fontOf(t), (rowFonts.get(fontOf(t)) ?? 0) + 1);
  const [mainFont, mainN] = [...rowFonts].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
  if (inRows.length >= 5 && mainN / inRows.length >= 0.8) {
    for (const t of inRows) {
      const f = fontOf(t);
      if (f === mainFont || flagged.has(t) || (docFonts.get(f) ?? 0) > 2) continue;
      flagged.add(t);
      out.push({
        kind: 'glyph_style',
        category: 'content',
        severity: 'high',
        page: t.page,
        boxes: [rbox(t.box)],
        row: t.row,
        message: `page ${t.page}: the amount ${t.text} is set in ${f}, a font no more than two amounts of the document use; ${mainN} of its ${inRows.length} row amounts are in ${mainFont}${rowLabel(txs, t.row)}`,
      });
    }
  }

  // right edges: a generator puts a right-aligned column's values on one x; a hand-placed value lands
  // a little off. Columns here are the values of a page whose boxes overlap across (a left-aligned
  // column has ragged right edges and is not checked), grouped by the kind of their last glyph.
  const pagesOf = [...new Set(inRows.map((t) => t.page))];
  for (const page of pagesOf) {
    const ts = inRows.filter((t) => t.page === page).sort((a, b) => a.box[0] - b.box[0]);
    const spans: InkToken[][] = [];
    let right = -Infinity;
    for (const t of ts) {
      if (spans.length && t.box[0] < right) {
        spans[spans.length - 1].push(t);
        right = Math.max(right, t.box[2]);
      } else {
        spans.push([t]);
        right = t.box[2];
      }
    }
    // the table as a whole too (a generator writing row by row): catches a value of a column too short to judge
    const late = new Set<InkToken>(drawnLate(ts));
    for (const t of late)
      out.push({
        kind: 'draw_order',
        category: 'structure',
        severity: 'medium',
        page: t.page,
        boxes: [rbox(t.box)],
        row: t.row,
        message: `page ${t.page}: the amount ${t.text} was drawn after the rest of the table, out of the row-by-row order the page's other amounts were written in (as text added to a finished page is)${rowLabel(txs, t.row)}`,
      });
    for (const span of spans) {
      for (const t of drawnLate(span)) {
        if (late.has(t)) continue;
        out.push({
          kind: 'draw_order',
          category: 'structure',
          severity: 'medium',
          page: t.page,
          boxes: [rbox(t.box)],
          row: t.row,
          message: `page ${t.page}: the amount ${t.text} was drawn after the rest of its column, out of the order the page's other amounts were written in (as text added to a finished page is)${rowLabel(txs, t.row)}`,
        });
      }
      const byEnd = new Map<string, InkToken[]>();
      for (const t of span) {
        const k = edgeClass(t);
        const l = byEnd.get(k);
        if (l) l.push(t);
        else byEnd.set(k, [t]);
      }
      for (const group of byEnd.values()) {
        if (group.length < 4) continue;
        const edges = group.map(edgeOf).sort((a, b) => a - b);
        const med = edges[edges.length >> 1];
        const tight = edges.filter((e) => Math.abs(e - med) <= 0.25).length;
        if (tight / group.length < 0.8) continue;
        // right-aligned: values of different widths share the edge (a left-aligned column's values of one width would too)
        const onEdge = group.filter((t) => Math.abs(edgeOf(t) - med) <= 0.25);
        const widths = onEdge.map((t) => t.box[2] - t.box[0]).sort((a, b) => a - b);
        if (widths[widths.length - 1] - widths[0] < 1) continue;
        for (const t of group) {
          const off = edgeOf(t) - med;
          // beyond about half a digit it is another table's column (a section of its own), not a
          // misplaced value: a shift that large shows on the page and a forger would redo it
          if (Math.abs(off) <= 0.6 || Math.abs(off) > 0.3 * t.size || flagged.has(t)) continue;
          // another value on the same off edge: a second column (a section's own), not a misplaced value
          if (group.some((o) => o !== t && Math.abs(edgeOf(o) - edgeOf(t)) <= 0.25)) continue;
          flagged.add(t);
          out.push({
            kind: 'alignment',
            category: 'content',
            severity: 'medium',
            page: t.page,
            boxes: [rbox(t.box)],
            row: t.row,
            message: `page ${t.page}: the amount ${t.text} ends ${Math.abs(off).toFixed(1)} pt ${off > 0 ? 'right' : 'left'} of the edge the other ${tight} amounts of its column share${rowLabel(txs, t.row)}`,
          });
        }
      }
    }
  }

  // baseline: the other values of the row's line share one baseline; an amount off it was placed by hand
  const byRow = new Map<string, InkToken[]>();
  for (const o of all) {
    if (o.row === null) continue;
    const k = `${o.page}|${o.row}`;
    const l = byRow.get(k);
    if (l) l.push(o);
    else byRow.set(k, [o]);
  }
  for (const t of inRows) {
    if (flagged.has(t)) continue;
    const line = (byRow.get(`${t.page}|${t.row}`) ?? []).filter((o) => o !== t && Math.abs(o.base - t.base) < 0.6 * t.size);
    if (line.length < 2) continue;
    const bases = line.map((o) => o.base).sort((a, b) => a - b);
    const med = bases[bases.length >> 1];
    if (bases.filter((b) => Math.abs(b - med) <= 0.1).length < Math.max(2, bases.length * 0.8)) continue;
    const off = t.base - med;
    if (Math.abs(off) <= 0.3) continue;
    flagged.add(t);
    out.push({
      kind: 'baseline',
      category: 'content',
      severity: 'medium',
      page: t.page,
      boxes: [rbox(t.box)],
      row: t.row,
      message: `page ${t.page}: the amount ${t.text} sits ${Math.abs(off).toFixed(1)} pt ${off > 0 ? 'below' : 'above'} the baseline of the rest of its row${rowLabel(txs, t.row)}`,
    });
  }
  return out;
}
