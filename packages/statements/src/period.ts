/**
 * Statement periods as banks print them, in free text. Pure functions, no layout knowledge.
 * Covers, among others: "July 1, 2022 through July 31, 2022", "February 1 – April 30, 2022" (year once),
 * "12th Feb to 11th Mar 2022", "01/05/2019 - 31/05/2019" (day-first), "from 1 Feb 2026 to 28 Feb 2026",
 * "January 1 · March 31, 2024", "Jul 2018 - 30 Dec 2018", "2024-01-01 to 2024-01-31".
 */
import { daysBetween, fmtDate, isValidDate, monthFromName } from './tokens';

interface DateExpr {
  i: number;
  end: number;
  year: number | null;
  /** candidate (month, day) readings; numeric dates may have two */
  md: Array<{ month: number; day: number; dayFirst: boolean | null }>;
  /** "Jul 2018": no day printed */
  monthOnly: boolean;
}

export interface FoundPeriod {
  start: string;
  end: string;
  /** true when the period was printed day-first (DD/MM), false when month-first, null when not numeric or not telling */
  dayFirst: boolean | null;
  /** index of the line it was read from */
  line: number;
  /** a period label ("statement period", "from", ...) on the line or the line above */
  labelled: boolean;
}

const MON =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const ORD = '(?:st|nd|rd|th)?';
const fixYear = (y: string) => (y.length === 2 ? 2000 + Number(y) : Number(y));

function dateExprs(text: string): DateExpr[] {
  const out: DateExpr[] = [];
  const add = (e: DateExpr) => out.push(e);
  for (const m of text.matchAll(/(?<![\d/.-])(\d{1,2})([/.-])(\d{1,2})\2(\d{4}|\d{2})(?![\d/.-]?\d)/g)) {
    const a = Number(m[1]);
    const b = Number(m[3]);
    const md: DateExpr['md'] = [];
    if (a <= 12 && b <= 31 && a >= 1 && b >= 1) md.push({ month: a, day: b, dayFirst: a === b ? null : false });
    if (b <= 12 && a <= 31 && a >= 1 && b >= 1 && a !== b) md.push({ month: b, day: a, dayFirst: true });
    if (md.length) add({ i: m.index!, end: m.index! + m[0].length, year: fixYear(m[4]), md, monthOnly: false });
  }
  for (const m of text.matchAll(/(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)/g))
    add({
      i: m.index!,
      end: m.index! + m[0].length,
      year: Number(m[1]),
      md: [{ month: Number(m[2]), day: Number(m[3]), dayFirst: null }],
      monthOnly: false,
    });
  for (const m of text.matchAll(new RegExp(`(?<![\\d/])(\\d{1,2})${ORD}(?:\\s+of)?[\\s-]+${MON}\\b\\.?,?(?:[\\s-]+(\\d{4}))?`, 'gi'))) {
    add({
      i: m.index!,
      end: m.index! + m[0].length,
      year: m[3] ? Number(m[3]) : null,
      md: [{ month: monthFromName(m[2])!, day: Number(m[1]), dayFirst: null }],
      monthOnly: false,
    });
  }
  for (const m of text.matchAll(new RegExp(`\\b${MON}\\.?\\s+(\\d{1,2})${ORD}(?![\\d/])(?:,?\\s+(\\d{4}))?`, 'gi'))) {
    if (m[3] === undefined && /^\s*\d{4}\b/.test(text.slice(m.index! + m[0].length))) continue;
    add({
      i: m.index!,
      end: m.index! + m[0].length,
      year: m[3] ? Number(m[3]) : null,
      md: [{ month: monthFromName(m[1])!, day: Number(m[2]), dayFirst: null }],
      monthOnly: false,
    });
  }
  for (const m of text.matchAll(new RegExp(`\\b${MON}\\.?,?\\s+(\\d{4})\\b`, 'gi'))) {
    add({
      i: m.index!,
      end: m.index! + m[0].length,
      year: Number(m[2]),
      md: [{ month: monthFromName(m[1])!, day: 1, dayFirst: null }],
      monthOnly: true,
    });
  }
  // keep the longest of overlapping matches
  out.sort((a, b) => a.i - b.i || b.end - a.end);
  const kept: DateExpr[] = [];
  for (const e of out) {
    const prev = kept[kept.length - 1];
    if (prev && e.i < prev.end) {
      if (e.end - e.i > prev.end - prev.i) kept[kept.length - 1] = e;
      continue;
    }
    kept.push(e);
  }
  return kept;
}

const SEP_RE = /^[\s,:]*(?:-|–|—|·|~|to|through|thru|until|till|and)[\s,:]*$/i;
const WORD_SEP_RE = /^[\s,:]*(?:to|through|thru|until|till)[\s,:]*$/i;
const CONTEXT_RE = /period|statement|from|between|cycle|dates?\b|covering|for the/i;

const lastDay = (y: number, m: number) => [31, isValidDate(y, 2, 29) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];

/** Resolves a pair of date expressions into a period, or null when no reading gives a plausible one. */
function resolvePair(a: DateExpr, b: DateExpr): FoundPeriod | null {
  if (b.year === null && a.year === null) return null;
  let best: { p: FoundPeriod; score: number } | null = null;
  for (const mb of b.md) {
    for (const ma of a.md) {
      // both numeric dates share one order
      if (ma.dayFirst !== null && mb.dayFirst !== null && ma.dayFirst !== mb.dayFirst) continue;
      const ey = b.year ?? a.year!;
      const eDay = b.monthOnly ? lastDay(ey, mb.month) : mb.day;
      if (!isValidDate(ey, mb.month, eDay)) continue;
      const end = fmtDate(ey, mb.month, eDay);
      let sy = a.year ?? ey;
      if (a.year === null && (ma.month > mb.month || (ma.month === mb.month && ma.day > eDay))) sy = ey - 1;
      if (!isValidDate(sy, ma.month, ma.day)) continue;
      const start = fmtDate(sy, ma.month, ma.day);
      if (start > end) continue;
      const span = daysBetween(start, end);
      if (span > 400) continue;
      const score = Math.abs(span - 30);
      const dayFirst = ma.dayFirst ?? mb.dayFirst;
      if (!best || score < best.score) best = { p: { start, end, dayFirst, line: -1, labelled: false }, score };
    }
  }
  return best?.p ?? null;
}

/**
 * Finds the statement period in the document's lines (top of the document first).
 * A range needs a word separator ("to", "through") or a context word (period, statement, from...) on
 * its line or the line above; ranges on lines labelled as a period win over others.
 */
export function findPeriod(lines: string[]): FoundPeriod | null {
  let best: { p: FoundPeriod; score: number; at: number } | null = null;
  for (let li = 0; li < lines.length; li++) {
    const text = lines[li];
    const ex = dateExprs(text);
    if (ex.length < 2) continue;
    const context = CONTEXT_RE.test(text) || (li > 0 && CONTEXT_RE.test(lines[li - 1]) && lines[li - 1].length < 60);
    for (let k = 0; k + 1 < ex.length; k++) {
      const between = text.slice(ex[k].end, ex[k + 1].i);
      if (!SEP_RE.test(between)) continue;
      // a transaction row printing two dates (posting and value date, then amounts) is not a period
      const rest = text.slice(0, ex[k].i) + text.slice(ex[k + 1].end);
      if (!context && !WORD_SEP_RE.test(between) && /\d/.test(rest)) continue;
      const p = resolvePair(ex[k], ex[k + 1]);
      if (!p) continue;
      const score = (/period|cycle/i.test(text) ? 2 : 0) + (context ? 1 : 0) + (WORD_SEP_RE.test(between) ? 1 : 0);
      if (!best || score > best.score) best = { p: { ...p, line: li, labelled: context }, score, at: li };
    }
    if (best && best.score >= 3) break;
  }
  return best?.p ?? null;
}

/** The full dates (with a year) in a text, each with its day-first flag; for labels like "Statement Ending 09/21/2018". */
export function fullDatesIn(text: string): Array<{ date: string; dayFirst: boolean | null }> {
  const out: Array<{ date: string; dayFirst: boolean | null }> = [];
  for (const e of dateExprs(text)) {
    if (e.year === null || e.monthOnly) continue;
    const md = e.md[0];
    if (isValidDate(e.year, md.month, md.day))
      out.push({ date: fmtDate(e.year, md.month, md.day), dayFirst: e.md.length === 1 ? md.dayFirst : null });
  }
  return out;
}
