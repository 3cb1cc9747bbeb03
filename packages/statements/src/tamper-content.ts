/**
 * Content checks for edited statements (issue 32): signs in the printed text itself, not in the
 * file's metadata. Each finding names its page, its boxes (PDF points, origin top-left, as the
 * transactions' `source`), the row it concerns and a sentence a person can check. docs/tamper.md.
 */
import { area, Box, DOCUMENT_GLYPHS, Glyph, intersection, PAGE_GLYPHS, PageInk, readPageInk, shareInside } from './ink';
import type { DailyBreak, DailyClosing } from './bank-parser';
import type { OpenedDocument } from './open';
import { appendedFinding, appendedInk, appendedStreams, fontFindings, PageFont, pageFonts } from './tamper-structure';
import { digitFindings, MAX_DIGIT_ROWS, oneDigitApart, oneDigitRows, periodFindings, rowLabel, roundDepositFindings } from './tamper-arith';
import type { FieldSource, PageLayout, Reconciliation, StatementTransaction, TamperFinding } from './types';
import { sortedNumbers } from './tokens';

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
  /** the draw order of its first-drawn glyph */
  seq: number;
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
  for (const g of glyphs) {
    const prev = cur[cur.length - 1];
    if (prev) {
      const em = Math.max(g.size, prev.size);
      const gap = g.x0 - prev.x1;
      if (Math.abs(g.base - prev.base) > 0.25 * em || gap > 0.2 * em || gap < -0.3 * em) {
        out.push(tokenOfRun(cur, page));
        cur = [];
      }
    }
    if (g.ch.trim()) cur.push(g);
    else if (cur.length) {
      out.push(tokenOfRun(cur, page));
      cur = [];
    }
  }
  if (cur.length) out.push(tokenOfRun(cur, page));
  return out;
}

/**
 * The token of a run of glyphs (not empty). A function of its own rather than a closure made per
 * call: V8 keeps a closure's optimised code only while one of its instances lives, so a hot closure
 * of each read is optimised again after every full collection.
 */
function tokenOfRun(gs: Glyph[], page: number): InkToken {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  let text = '';
  let seq = Infinity;
  let oneSize = true;
  for (const g of gs) {
    if (g.x0 < x0) x0 = g.x0;
    if (g.y0 < y0) y0 = g.y0;
    if (g.x1 > x1) x1 = g.x1;
    if (g.y1 > y1) y1 = g.y1;
    if (g.seq < seq) seq = g.seq;
    if (g.size !== gs[0].size) oneSize = false;
    text += g.ch;
  }
  // the median size (most values are set in one size)
  const size = oneSize ? gs[0].size : sortedNumbers(gs.map(sizeOf))[gs.length >> 1];
  return { text, page, glyphs: gs, box: [x0, y0, x1, y1], base: gs[0].base, size, seq, row: null };
}

const sizeOf = (g: Glyph) => g.size;

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

/** A content finding about one printed value: its page, its box and its row. */
const tokenFinding = (kind: TamperFinding['kind'], severity: TamperFinding['severity'], t: InkToken, message: string): TamperFinding => ({
  kind,
  category: 'content',
  severity,
  page: t.page,
  boxes: [rbox(t.box)],
  row: t.row,
  message,
});

export interface ContentInput {
  opened: OpenedDocument;
  pages: PageLayout[];
  transactions: StatementTransaction[];
  reconciliation: Reconciliation | null;
  /** printed balances the parser found misprinted on their row only (a chain break is then no sign of editing) */
  misprints: number;
  /** total glyphs read over the document (the rest of the pages are not checked) */
  maxGlyphs?: number;
  /** pages' ink already read with the text (extractLayout's `inks`): used where it is what a read here would give */
  inks?: Map<number, PageInk>;
  /** the opening balance the rows' chain starts from */
  openingBalance?: number | null;
  /** the statement period as printed (null when it was not read from the page) */
  periodStart?: string | null;
  periodEnd?: string | null;
  /** where a printed daily-balance table first disagrees with the rows */
  dailyBreak?: DailyBreak | null;
  /** printed section totals that differ from their rows (printed minus read, absolute amounts) */
  totalBreaks?: Array<{ rows: number[]; difference: number }>;
  /** the last day of a printed daily-balance table that agrees with the rows on every day */
  dailyClosing?: DailyClosing | null;
  /** the closing balance as read, and where (a summary's "Closing balance" line) */
  closingBalance?: number | null;
  closingSource?: FieldSource | null;
}

/** Content findings of a document: glyph style, position, covered and hidden text, arithmetic. */
export async function contentFindings(input: ContentInput): Promise<TamperFinding[]> {
  const { opened, pages, transactions: txs } = input;
  const findings: TamperFinding[] = [];
  const budget = input.maxGlyphs ?? DOCUMENT_GLYPHS;
  const inks: PageInk[] = [];
  let used = 0;
  for (const p of pages) {
    if (p.method !== 'text' || used >= budget) continue;
    const cap = Math.min(PAGE_GLYPHS, budget - used);
    // a read with another limit gives the same glyphs when the first stopped short of both limits
    const early = input.inks?.get(p.index);
    const same = early && (early.cap === cap || (!early.truncated && (cap >= early.cap || early.glyphs.length < cap)));
    // only the text that holds a digit (amounts, dates, balances) is read glyph by glyph
    const ink = same ? early : await readPageInk(opened, p.index, cap);
    used += ink.glyphs.length;
    inks.push(ink);
  }
  const visible: InkToken[] = [];
  const hidden: Array<InkToken & { why: 'covered' | 'covered_by_image' | 'invisible' | 'clipped' | 'off_page' }> = [];
  for (const ink of inks) {
    const page = ink.index + 1;
    const vis = ink.glyphs.filter((g) => (g.mode === 'fill' || g.mode === 'stroke') && !g.coveredBy && !g.clipped && !g.offPage);
    visible.push(...tokensOf(vis, page));
    const images = new Set(ink.covers.filter((c) => c.kind === 'image').map((c) => c.seq));
    const covered = ink.glyphs.filter((g) => g.mode !== 'clip' && g.coveredBy !== null);
    const groups: Array<['covered' | 'covered_by_image' | 'invisible' | 'clipped' | 'off_page', Glyph[]]> = [
      ['covered', covered.filter((g) => !images.has(g.coveredBy!))],
      ['covered_by_image', covered.filter((g) => images.has(g.coveredBy!))],
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
    const under = h.why === 'covered_by_image' ? 'an image' : 'a filled box';
    if ((h.why === 'covered' || h.why === 'covered_by_image') && over) {
      findings.push({
        kind: 'covered_text',
        category: 'content',
        severity: 'high',
        page: h.page,
        boxes: [rbox(over.box), rbox(h.box)],
        row: over.row ?? row,
        message: `page ${h.page}: the amount ${over.text} is printed over another amount, ${h.text}, hidden under ${under} drawn after it${rowLabel(txs, over.row ?? row)}`,
      });
    } else if (h.why === 'covered' || h.why === 'covered_by_image') {
      findings.push({
        kind: 'covered_text',
        category: 'content',
        severity: 'medium',
        page: h.page,
        boxes: [rbox(h.box)],
        row,
        message: `page ${h.page}: the amount ${h.text} is hidden under ${under} drawn after it${rowLabel(txs, row)}`,
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
  findings.push(...missingGlyphFindings(visible, moneyVisible, txs));

  // 3b. how the pages' fonts are built (resource lookups: no pass over the content)
  const fontsByPage = new Map<number, PageFont[]>();
  for (const ink of inks) {
    const fonts = pageFonts(opened, ink.index);
    if (fonts?.length) fontsByPage.set(ink.index + 1, fonts);
  }
  findings.push(...fontFindings(fontsByPage, moneyVisible, txs));
  // 3c. content streams appended to a text page after the file was written: the amounts they draw
  for (const a of appendedStreams(opened)) {
    if (!inks.some((k) => k.index === a.index)) continue;
    const ink = await appendedInk(opened, a);
    if (!ink) continue;
    const page = a.index + 1;
    const drawnGlyphs = ink.glyphs.filter((g) => (g.mode === 'fill' || g.mode === 'stroke') && !g.clipped && !g.offPage);
    const own = tokensOf(drawnGlyphs, page).filter((t) => isMoney(t.text));
    const drawn = moneyVisible.filter(
      (v) =>
        v.page === page && v.row !== null && own.some((t) => area(intersection(t.box, v.box)) > 0.5 * Math.min(area(t.box), area(v.box))),
    );
    if (drawn.length) findings.push(appendedFinding(a, drawn, txs));
  }

  // 4. arithmetic the reading already did
  findings.push(...arithmeticFindings(input));
  // 5. the calendar and the deposits' pattern
  findings.push(...periodFindings(txs, input.periodStart ?? null, input.periodEnd ?? null));
  findings.push(...roundDepositFindings(txs));
  return findings;
}

/**
 * An amount with a digit its font has no glyph for (drawn with glyph 0, .notdef: a blank or a box
 * on the page). A bank's generator subsets its fonts from the text it sets, so every digit it prints
 * is in the subset; a digit written into the content afterwards, in the same font, may not be. The
 * subset's width for such a code is usually 0, so the next glyph is drawn over it and the reading
 * splits it from its amount ("7" and ",200.00"): a glyph touching an amount on its baseline joins it.
 */
function missingGlyphFindings(visible: InkToken[], money: InkToken[], txs: StatementTransaction[]): TamperFinding[] {
  const out: TamperFinding[] = [];
  const seen = new Set<InkToken>();
  for (const t of visible) {
    const missing = t.glyphs.filter((g) => g.notdef);
    if (!missing.length) continue;
    const size = missing[0].size;
    const base = missing[0].base;
    const amount = isMoney(t.text)
      ? t
      : money.find(
          (m) =>
            m.page === t.page &&
            Math.abs(m.glyphs[0].base - base) <= 0.3 * size &&
            Math.max(m.box[0] - t.box[2], t.box[0] - m.box[2]) <= 0.5 * size,
        );
    if (!amount || seen.has(amount)) continue;
    seen.add(amount);
    const text = amount === t ? t.text : t.box[0] <= amount.box[0] ? t.text + amount.text : amount.text + t.text;
    const box: Box = [
      Math.min(t.box[0], amount.box[0]),
      Math.min(t.box[1], amount.box[1]),
      Math.max(t.box[2], amount.box[2]),
      Math.max(t.box[3], amount.box[3]),
    ];
    const digits = [...new Set(missing.map((g) => g.ch))].join("', '");
    out.push({
      ...tokenFinding(
        'glyph_style',
        'high',
        amount,
        `page ${t.page}: the amount ${text} is drawn with a digit its font (${missing[0].font}) has no glyph for ('${digits}', shown blank or as a box): a font subset holds the digits the bank printed, so the digit was written in after the file was made${rowLabel(txs, amount.row)}`,
      ),
      boxes: [rbox(box)],
    });
  }
  return out;
}

/**
 * The balance chain and the totals. A break names the rows since the last printed balance (on every
 * page they are on); where exactly one of them, with one digit changed, would make the chain (or the
 * totals, within the days a daily-balance table narrows them to) hold, that row is named.
 */
function arithmeticFindings(input: ContentInput): TamperFinding[] {
  const { transactions: txs, reconciliation: rec } = input;
  const out: TamperFinding[] = [];
  if (!rec || !txs.length || input.misprints) return out;
  const chainNamed = new Set<number>();
  if (rec.firstBrokenRow !== null) {
    const k = rec.firstBrokenRow;
    const t = txs[k];
    // where balances are printed only at the end of a day, the row at fault is any since the last
    // printed balance (a day may run over a page break): those rows are boxed too, on their pages
    let from = k;
    while (from > 0 && txs[from - 1].balance === null) from--;
    const range = txs.map((_, i) => i).slice(from, k + 1);
    const before = from > 0 ? txs[from - 1].balance : (input.openingBalance ?? null);
    const sum = range.reduce((a, i) => a + txs[i].amount, 0);
    const difference = t.balance !== null && before !== null ? Math.round((t.balance - before - sum) * 100) / 100 : 0;
    const cands = oneDigitRows(txs, range, difference);
    if (cands.length && cands.length <= MAX_DIGIT_ROWS) {
      for (const c of cands) chainNamed.add(c);
      out.push(
        ...digitFindings(
          txs,
          cands,
          difference,
          'balance_chain',
          `the running balance printed at row ${k + 1} (${t.balance!.toFixed(2)})`,
          range.length,
        ),
      );
    }
    const pages = [...new Set(range.map((i) => txs[i].source?.page ?? null))];
    for (const page of pages.length ? pages : [null]) {
      const rows = range.filter((i) => (txs[i].source?.page ?? null) === page);
      const boxes = rows.flatMap((i) => txs[i].source?.boxes.map(rbox) ?? []);
      out.push({
        kind: 'balance_chain',
        category: 'arithmetic',
        severity: 'medium',
        page,
        boxes,
        row: rows.includes(k) ? k : rows[rows.length - 1],
        message: `the running balance does not follow at row ${k + 1} (${t.date}, ${t.amount.toFixed(2)}, printed balance ${t.balance === null ? '-' : t.balance.toFixed(2)})${from < k ? `: one of rows ${from + 1} to ${k + 1} (printed without a balance of their own) or its balance differs from what was printed` : ''}${page !== (t.source?.page ?? null) && page !== null ? ` (rows ${rows[0] + 1} to ${rows[rows.length - 1] + 1} on this page)` : ''}`,
      });
    }
  }
  if (rec.totalsMatch === false && rec.difference !== null) {
    const d = rec.difference;
    // the daily balances narrow the rows to those dated since the last day the table agrees on
    const brk = input.dailyBreak;
    const window =
      brk && Math.abs(brk.difference - d) < 0.005
        ? txs.map((_, i) => i).filter((i) => txs[i].date <= brk.day && (brk.lastGood === null || txs[i].date > brk.lastGood))
        : txs.map((_, i) => i);
    const cands = oneDigitRows(txs, window, d);
    // over the whole statement many rows fit by chance: one is named, within a narrowed window two
    const most = window.length < txs.length ? MAX_DIGIT_ROWS : 1;
    // a printed section total that differs by as much narrows it to the section's rows
    const section = (input.totalBreaks ?? []).find((b) => b.rows.length && Math.abs(Math.abs(b.difference) - Math.abs(d)) < 0.005);
    const inSection = section
      ? section.rows.filter((i) => oneDigitApart(Math.abs(txs[i].amount), Math.abs(txs[i].amount) + section.difference))
      : [];
    if (
      (!cands.length || cands.length > most) &&
      inSection.length &&
      inSection.length <= MAX_DIGIT_ROWS &&
      !inSection.some((c) => chainNamed.has(c))
    )
      out.push(
        ...digitFindings(
          txs,
          inSection,
          section!.difference,
          'totals',
          `the printed total of the section holding rows ${section!.rows[0] + 1} to ${section!.rows[section!.rows.length - 1] + 1}`,
          section!.rows.length,
          // section totals add the amounts as printed (unsigned): the row would print more (or less) by the difference
          (i) => (Math.sign(txs[i].amount) * Math.round((Math.abs(txs[i].amount) + section!.difference) * 100)) / 100,
        ),
      );
    else if (cands.length && cands.length <= most && !cands.some((c) => chainNamed.has(c)))
      out.push(
        ...digitFindings(
          txs,
          cands,
          d,
          'totals',
          `the printed closing balance${window.length < txs.length ? ` (and the daily balance of ${brk!.day})` : ''}`,
          window.length,
        ),
      );
    const twice = closingPrintedTwice(input);
    if (twice) out.push(twice);
    else if (brk && Math.abs(brk.difference - d) < 0.005 && !cands.length && !inSection.length)
      out.push(...editedDailyBalance(brk, d, window, txs));
    // boxed where the closing balance is printed (a summary's line), when it was read from one
    const src = input.closingSource ?? null;
    const at = src?.page != null && src.boxes?.length ? src : null;
    out.push({
      kind: 'totals',
      category: 'arithmetic',
      severity: 'medium',
      page: at?.page ?? null,
      boxes: at?.boxes?.map(rbox) ?? [],
      row: null,
      message: `the printed closing balance${at ? ` (page ${at.page}, ${at.via})` : ''} differs from the opening balance plus the rows by ${d.toFixed(2)}`,
    });
  }
  return out;
}

/** Rows of a daily-balance window small enough to box as the place to look (a day or two of rows). */
const WINDOW_ROWS = 3;

/**
 * A daily-balance table that first disagrees with the rows on a day by the closing balance's
 * difference, where no row dated since the last day it agrees on explains it with one digit changed
 * (or no row is dated there at all): a row there was changed by more than one digit, the printed
 * balances were changed (the table's day with the summary's closing balance), or rows were added or
 * removed there. Boxed where that day is printed; where at most WINDOW_ROWS rows are dated there, they
 * are boxed too (on their pages), as the balance chain boxes the rows since the last printed balance.
 */
function editedDailyBalance(brk: DailyBreak, d: number, window: number[], txs: StatementTransaction[]): TamperFinding[] {
  const since = brk.lastGood ? `between ${brk.lastGood}, the last day the table agrees on, and ${brk.day}` : `up to ${brk.day}`;
  const rows = window.length;
  const out: TamperFinding[] = [
    {
      kind: 'totals',
      category: 'arithmetic',
      severity: 'medium',
      page: brk.page && brk.box ? brk.page : null,
      boxes: brk.page && brk.box ? [rbox(brk.box)] : [],
      row: null,
      message: `the daily balance printed for ${brk.day}${brk.page ? ` (page ${brk.page})` : ''} differs from the opening balance plus the rows by ${d.toFixed(2)}, as the closing balance does, and ${rows ? `${rows === 1 ? 'the one row' : `none of the ${rows} rows`} dated ${since} ${rows === 1 ? 'does not explain' : 'explains'} it with one digit changed: ${rows === 1 ? 'that row' : 'one of them'} was changed by more than one digit, the printed balances were changed, or rows were added or removed there` : `no row is dated ${since}: the printed balances were changed, or rows were added or removed there`}`,
    },
  ];
  if (!rows || rows > WINDOW_ROWS) return out;
  const pages = [...new Set(window.map((i) => txs[i].source?.page ?? null))];
  for (const page of pages) {
    if (page === null) continue;
    const here = window.filter((i) => (txs[i].source?.page ?? null) === page);
    const boxes = here.flatMap((i) => txs[i].source?.boxes.map(rbox) ?? []);
    if (!boxes.length) continue;
    const t = txs[window[0]];
    const fit = Math.round((t.amount + d) * 100) / 100;
    out.push({
      kind: 'totals',
      category: 'arithmetic',
      severity: 'medium',
      page,
      boxes,
      row: here[0],
      message:
        rows === 1
          ? `the daily balances first disagree with the rows on ${brk.day}, by ${d.toFixed(2)}, and row ${window[0] + 1} is the only row dated ${since}: it prints ${Math.abs(t.amount).toFixed(2)}${Math.sign(fit) === Math.sign(t.amount) ? `, where ${Math.abs(fit).toFixed(2)} would make them agree` : ''}; its amount was changed, or the printed balances were, or rows were added or removed there${rowLabel(txs, window[0])}`
          : `the daily balances first disagree with the rows on ${brk.day}, by ${d.toFixed(2)}, and rows ${window.map((i) => i + 1).join(', ')} are the only rows dated ${since}${page !== brk.page ? ` (${here.map((i) => `row ${i + 1}`).join(', ')} on this page)` : ''}: one of their amounts was changed, or the printed balances were, or rows were added or removed there`,
    });
  }
  return out;
}

/**
 * The closing balance printed twice with different values: in the summary, and as the running
 * balance of the last row where the rows' chain holds from the opening balance to that row (so the
 * rows agree with the last balance, and the summary's figure is the one that does not add up, or
 * the rows and balances were all changed together); or, where the rows print no balance of their
 * own, as the last day of a daily-balance table that agrees with the rows on every day. Boxed on the
 * summary's page, with the other printing when it is on the same page.
 */
function closingPrintedTwice(input: ContentInput): TamperFinding | null {
  const { transactions: txs, reconciliation: rec } = input;
  const closing = input.closingBalance ?? null;
  const src = input.closingSource ?? null;
  const lastIndex = txs.length - 1;
  const last = txs[lastIndex];
  if (!rec || rec.firstBrokenRow !== null || !last || closing === null) return null;
  if (src?.page == null || !src.boxes?.length) return null;
  if (last.balance !== null) {
    if (Math.abs(last.balance - closing) < 0.005) return null;
    const lastPage = last.source?.page ?? null;
    const samePage = lastPage === src.page && !!last.source;
    return {
      kind: 'totals',
      category: 'arithmetic',
      severity: 'medium',
      page: src.page,
      boxes: [...src.boxes.map(rbox), ...(samePage ? last.source!.boxes.map(rbox) : [])],
      row: samePage ? lastIndex : null,
      message: `the closing balance is printed twice with different values: ${closing.toFixed(2)} on page ${src.page} (${src.via}) and ${last.balance.toFixed(2)} as the running balance of the last row (row ${lastIndex + 1}, ${last.date}${lastPage !== null ? `, page ${lastPage}` : ''}); the rows add up to ${last.balance.toFixed(2)}`,
    };
  }
  const day = input.dailyClosing ?? null;
  // the rows print no balance: a daily-balance table that holds on every day is the other printing
  if (!day || txs.some((t) => t.balance !== null) || Math.abs(day.balance - closing) < 0.005) return null;
  const samePage = day.page === src.page && !!day.box;
  return {
    kind: 'totals',
    category: 'arithmetic',
    severity: 'medium',
    page: src.page,
    boxes: [...src.boxes.map(rbox), ...(samePage ? [rbox(day.box!)] : [])],
    row: null,
    message: `the closing balance is printed twice with different values: ${closing.toFixed(2)} on page ${src.page} (${src.via}) and ${day.balance.toFixed(2)} as the daily balance of ${day.day} (page ${day.page}), the table's last day; the opening balance and the rows give every day of that table, and ${day.balance.toFixed(2)} at its end`,
  };
}

const seqOf = (t: InkToken) => t.seq;

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
    out.push(
      tokenFinding(
        'glyph_style',
        'high',
        t,
        `page ${t.page}: the digits of ${t.text} are not all in one font (${[...styles].map(describeStyle).join(', ')})${rowLabel(txs, t.row)}`,
      ),
    );
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
        out.push(
          tokenFinding(
            'glyph_style',
            strong ? 'high' : 'medium',
            t,
            `page ${t.page}: the amount ${t.text} is set in ${describeStyle(s)}, the other ${majorN} amounts of its column in ${describeStyle(major)}${rowLabel(txs, t.row)}`,
          ),
        );
      }
    }
  }

  // the document: its row amounts are set in one font; a font at most two amounts of the whole
  // document use (summary included) stands out even in a column too short to compare
  const fontOf = (t: InkToken) => {
    const style = tokenStyle(t);
    return style.slice(0, style.indexOf('|'));
  };
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
      out.push(
        tokenFinding(
          'glyph_style',
          'high',
          t,
          `page ${t.page}: the amount ${t.text} is set in ${f}, a font no more than two amounts of the document use; ${mainN} of its ${inRows.length} row amounts are in ${mainFont}${rowLabel(txs, t.row)}`,
        ),
      );
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
        const edges = sortedNumbers(group.map(edgeOf));
        const med = edges[edges.length >> 1];
        const tight = edges.filter((e) => Math.abs(e - med) <= 0.25).length;
        if (tight / group.length < 0.8) continue;
        // right-aligned: values of different widths share the edge (a left-aligned column's values of one width would too)
        const onEdge = group.filter((t) => Math.abs(edgeOf(t) - med) <= 0.25);
        const widths = sortedNumbers(onEdge.map((t) => t.box[2] - t.box[0]));
        if (widths[widths.length - 1] - widths[0] < 1) continue;
        for (const t of group) {
          const off = edgeOf(t) - med;
          // beyond about half a digit it is another table's column (a section of its own), not a
          // misplaced value: a shift that large shows on the page and a forger would redo it
          if (Math.abs(off) <= 0.6 || Math.abs(off) > 0.3 * t.size || flagged.has(t)) continue;
          // another value on the same off edge: a second column (a section's own), not a misplaced value
          if (group.some((o) => o !== t && Math.abs(edgeOf(o) - edgeOf(t)) <= 0.25)) continue;
          flagged.add(t);
          out.push(
            tokenFinding(
              'alignment',
              'medium',
              t,
              `page ${t.page}: the amount ${t.text} ends ${Math.abs(off).toFixed(1)} pt ${off > 0 ? 'right' : 'left'} of the edge the other ${tight} amounts of its column share${rowLabel(txs, t.row)}`,
            ),
          );
        }
      }
    }
  }

  out.push(...pitchFindings(inRows, txs, flagged));

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
    const bases = sortedNumbers(line.map((o) => o.base));
    const med = bases[bases.length >> 1];
    if (bases.filter((b) => Math.abs(b - med) <= 0.1).length < Math.max(2, bases.length * 0.8)) continue;
    const off = t.base - med;
    if (Math.abs(off) <= 0.3) continue;
    flagged.add(t);
    out.push(
      tokenFinding(
        'baseline',
        'medium',
        t,
        `page ${t.page}: the amount ${t.text} sits ${Math.abs(off).toFixed(1)} pt ${off > 0 ? 'below' : 'above'} the baseline of the rest of its row${rowLabel(txs, t.row)}`,
      ),
    );
  }
  return out;
}

/** Pairs of glyphs a column must show this often before their spacing is judged. */
const PITCH_MIN = 8;

/**
 * Spacing of the digits inside the row amounts: a generator places the same pair of glyphs of one
 * font and size the same distance apart every time (its widths and kerning); a digit changed inside
 * the content stream keeps the position or kerning written for the old digit, so its pair with the
 * next glyph is spaced unlike every other such pair. Only pairs seen at least PITCH_MIN times, nearly
 * all at one distance, are judged.
 */
function pitchFindings(inRows: InkToken[], txs: StatementTransaction[], flagged: Set<InkToken>): TamperFinding[] {
  // groups by font, size and the two characters, in the order first seen (the findings' order);
  // keyed without building a string per pair: a page of amounts holds thousands of pairs
  interface Pairs {
    pair: string;
    font: string;
    size: number;
    d: number[];
    t: InkToken[];
  }
  const groups: Pairs[] = [];
  const byFont = new Map<string, Map<number, Map<number, Pairs>>>();
  for (const t of inRows) {
    const gs = t.glyphs;
    for (let i = 0; i + 1 < gs.length; i++) {
      const g = gs[i];
      const h = gs[i + 1];
      if (g.font !== h.font || g.size !== h.size || g.base !== h.base) continue;
      let bySize = byFont.get(g.font);
      if (!bySize) byFont.set(g.font, (bySize = new Map()));
      let byPair = bySize.get(g.size);
      if (!byPair) bySize.set(g.size, (byPair = new Map()));
      const code = g.ch.codePointAt(0)! * 0x110000 + h.ch.codePointAt(0)!;
      let l = byPair.get(code);
      if (!l) {
        byPair.set(code, (l = { pair: g.ch + h.ch, font: g.font, size: g.size, d: [], t: [] }));
        groups.push(l);
      }
      l.d.push(h.x0 - g.x0);
      l.t.push(t);
    }
  }
  const out: TamperFinding[] = [];
  for (const l of groups) {
    const n = l.d.length;
    if (n < PITCH_MIN) continue;
    const ds = sortedNumbers(l.d);
    const med = ds[n >> 1];
    let odd = 0;
    let close = 0;
    for (const d of l.d) {
      if (Math.abs(d - med) > 0.3) odd++;
      if (Math.abs(d - med) <= 0.05) close++;
    }
    // a generator that spaces pairs its own way each time (justified, hand-kerned) is not judged
    if (odd > 2 || close < 0.9 * n) continue;
    for (let i = 0; i < n; i++) {
      const d = l.d[i];
      if (!(Math.abs(d - med) > 0.3)) continue;
      const t = l.t[i];
      if (flagged.has(t)) continue;
      flagged.add(t);
      out.push(
        tokenFinding(
          'alignment',
          'medium',
          t,
          `page ${t.page}: in the amount ${t.text}, "${l.pair}" is spaced ${(d - med).toFixed(1)} pt ${d > med ? 'wider' : 'narrower'} than the other ${n - odd} times the row amounts print it in ${describeStyle(`${l.font}|${l.size.toFixed(1)}|#000000`)}: a digit changed after the page was set${rowLabel(txs, t.row)}`,
        ),
      );
    }
  }
  return out;
}
