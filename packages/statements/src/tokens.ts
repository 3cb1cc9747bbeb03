/** Number and date notations found in statements. Pure functions, no layout knowledge. */

export interface ParsedAmount {
  value: number; // absolute value
  /** -1 when the notation itself marks a debit/negative, +1 when it marks a credit, 0 when unsigned */
  sign: -1 | 0 | 1;
}

// currency marks banks print before amounts ($, £, €, ₹, ¥, Rs, A$/NZ$/C$/US$)
const CUR = '(?:[$£€₹¥]|Rs\\.?|[A-Z]{1,2}\\$)';
const AMOUNT_RE = new RegExp(
  `^([+-])?${CUR}?\\s?([+-])?\\(?${CUR}?\\s?((?:\\d{1,3}(?:,\\d{3})+|\\d+)?\\.\\d{2})\\)?\\s?(-\\s?OD|OD|-|CR|DR|Cr|Dr|cr|dr|\\+)?$`,
);
// trailing zero dropped by the statement's generator ("1935.3", "10158.4"): no thousands separators
const SHORT_AMOUNT_RE = /^(-)?(\d{1,9}\.\d)$/;

/** Parses "$1,234.56", "£1,234.56", "-1,234.56", "(1,234.56)", "1,234.56-", "1,234.56 CR", "12.00DR", "1935.3". */
export function parseAmount(token: string): ParsedAmount | null {
  const t = token.trim();
  if (!t || t.length > 24) return null;
  const m = AMOUNT_RE.exec(t);
  if (!m) {
    const s = SHORT_AMOUNT_RE.exec(t);
    return s ? { value: Number(s[2]), sign: s[1] ? -1 : 0 } : null;
  }
  const paren = t.includes('(') || t.includes(')');
  if (paren && !(t.includes('(') && t.includes(')'))) return null;
  // ".15": an amount under a dollar printed without its leading zero
  const value = Number(`0${m[3].replace(/,/g, '')}`);
  if (!Number.isFinite(value)) return null;
  const pre = m[1] ?? m[2];
  const suf = m[4]?.toUpperCase();
  let sign: -1 | 0 | 1 = 0;
  // "123.34-OD", "998.28 OD": an overdrawn balance
  if (pre === '-' || paren || suf === '-' || suf === 'DR' || suf?.endsWith('OD')) sign = -1;
  else if (suf === 'CR' || pre === '+' || suf === '+') sign = 1;
  return { value, sign };
}

/**
 * A grouped amount whose glyphs were split into two words by letter spacing ("3,0" "03.49"): the
 * joined text when the first part is a broken thousands group and the whole reads as one amount.
 */
export function joinSplitAmount(a: string, b: string): string | null {
  if (!/^[-$£€]?\d{1,3}(,\d{0,3})+$/.test(a) || /^\d{1,3}(,\d{3})+$/.test(a) || !/^[\d,]*\d\.\d{2}\b/.test(b)) return null;
  const joined = a + b;
  return /^[-$£€]?\d{1,3}(,\d{3})+\.\d{2}/.test(joined) && parseAmount(joined) ? joined : null;
}

export function isAmount(token: string): boolean {
  return parseAmount(token) !== null;
}

export const round2 = (n: number): number => Math.round(n * 100) / 100;

/**
 * The numbers in ascending order, in a typed array: the sorts of the hot paths go through one
 * element type (a plain array of whole numbers and one of fractions have different shapes, and code
 * optimised for one is thrown away when the other arrives) and need no comparator.
 */
export const sortedNumbers = (xs: ArrayLike<number>): Float64Array => Float64Array.from(xs).sort();

const MONTHS: Record<string, number> = {
  jan: 1,
  january: 1,
  feb: 2,
  february: 2,
  mar: 3,
  march: 3,
  apr: 4,
  april: 4,
  may: 5,
  jun: 6,
  june: 6,
  jul: 7,
  july: 7,
  aug: 8,
  august: 8,
  sep: 9,
  sept: 9,
  september: 9,
  oct: 10,
  october: 10,
  nov: 11,
  november: 11,
  dec: 12,
  december: 12,
};

export function monthFromName(s: string): number | null {
  return MONTHS[s.toLowerCase().replace(/[.,]/g, '')] ?? null;
}

export interface ParsedDate {
  month: number;
  day: number;
  year: number | null;
  /** numeric date whose two first fields could be read either way (05/03): month/day are the MM/DD reading */
  ambiguous?: boolean;
  /** numeric date only valid day-first (19/05/19): month/day already hold the DD/MM reading */
  dayFirst?: boolean;
}

/** Reads the first two fields of a numeric date: month-first when valid, else day-first. */
function numericMonthDay(a: number, b: number): { month: number; day: number; ambiguous?: boolean; dayFirst?: boolean } | null {
  if (a >= 1 && a <= 12 && b >= 1 && b <= 31) return b <= 12 && a !== b ? { month: a, day: b, ambiguous: true } : { month: a, day: b };
  if (b >= 1 && b <= 12 && a >= 1 && a <= 31) return { month: b, day: a, dayFirst: true };
  return null;
}

function fixYear(y: string): number {
  const n = Number(y);
  return y.length === 2 ? 2000 + n : n;
}

/**
 * Parses one date token: MM/DD, DD/MM, MM-DD, MM/DD/YY(YY), DD.MM.YYYY, YYYY-MM-DD, "Jan 05", "Jan 5, 2025",
 * "05-Jan-2025", "12th Feb", "02Apr". Numeric dates are read month-first when valid; `ambiguous` marks those
 * the document-level date order may swap.
 */
const HAS_DIGIT = /\d/;

export function parseDateToken(token: string): ParsedDate | null {
  // every form below holds a digit: most words of a line (descriptions, headings) end here
  if (!HAS_DIGIT.test(token)) return null;
  const t = token.trim().replace(/[,.]$/, '');
  let m = /^(\d{1,2})([/-])(\d{1,2})(?:\2(\d{2}|\d{4}))?$/.exec(t) ?? /^(\d{1,2})(\.)(\d{1,2})\.(\d{2}|\d{4})$/.exec(t);
  if (m) {
    const md = numericMonthDay(Number(m[1]), Number(m[3]));
    if (!md) return null;
    return { ...md, year: m[4] ? fixYear(m[4]) : null };
  }
  m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t);
  if (m) {
    const month = Number(m[2]);
    const day = Number(m[3]);
    if (month < 1 || month > 12 || day < 1 || day > 31) return null;
    return { month, day, year: Number(m[1]) };
  }
  m = /^([A-Za-z]{3,9})\.?\s+(\d{1,2}),?(?:\s+(\d{4}))?$/.exec(t);
  if (m) {
    const month = monthFromName(m[1]);
    const day = Number(m[2]);
    if (!month || day < 1 || day > 31) return null;
    return { month, day, year: m[3] ? Number(m[3]) : null };
  }
  // the day glued to the month ("02Apr", "02APR24"): printed so by some banks, and OCR drops the space
  m = /^(\d{1,2})(?:st|nd|rd|th)?[\s-]?([A-Za-z]{3,9})\.?,?(?:[\s-]?(\d{2}|\d{4}))?$/.exec(t);
  if (m) {
    const month = monthFromName(m[2]);
    const day = Number(m[1]);
    if (!month || day < 1 || day > 31) return null;
    return { month, day, year: m[3] ? fixYear(m[3]) : null };
  }
  return null;
}

export function isValidDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const dim = [31, (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return d <= dim[m - 1];
}

export function fmtDate(y: number, m: number, d: number): string {
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** Finds full dates (with a year) in free text, in order. */
export function findFullDates(text: string): string[] {
  const out: Array<{ i: number; d: string }> = [];
  const push = (i: number, y: number, m: number, d: number) => {
    if (m >= 1 && m <= 12 && d >= 1 && d <= 31) out.push({ i, d: fmtDate(y, m, d) });
  };
  for (const m of text.matchAll(/(?<![\d/.-])(\d{1,2})([/-])(\d{1,2})\2(\d{4}|\d{2})(?![\d/])/g)) {
    const md = numericMonthDay(Number(m[1]), Number(m[3]));
    if (md) push(m.index!, fixYear(m[4]), md.month, md.day);
  }
  for (const m of text.matchAll(/(?<![\d/.-])(\d{1,2})(?:st|nd|rd|th)?[\s-]([A-Za-z]{3,9})\.?,?[\s-](\d{4})\b/g)) {
    const mo = monthFromName(m[2]);
    if (mo) push(m.index!, Number(m[3]), mo, Number(m[1]));
  }
  for (const m of text.matchAll(/(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)/g)) push(m.index!, Number(m[1]), Number(m[2]), Number(m[3]));
  for (const m of text.matchAll(/\b([A-Za-z]{3,9})\.?\s*(\d{1,2}),?\s+(\d{4})\b/g)) {
    const mo = monthFromName(m[1]);
    if (mo) push(m.index!, Number(m[3]), mo, Number(m[2]));
  }
  return out.sort((a, b) => a.i - b.i).map((x) => x.d);
}

/**
 * Chooses the year of a date printed without one, from the statement period.
 * A period crossing Dec->Jan puts late months in the start year and early months in the end year.
 */
export function resolveYear(
  month: number,
  day: number,
  periodStart: string | null,
  periodEnd: string | null,
  fallbackYear: number,
): number {
  if (!periodStart && !periodEnd) return fallbackYear;
  if (!periodStart || !periodEnd) {
    // one end of the period only (a "statement date"): the rows lie before the end, or after the start
    const known = (periodStart ?? periodEnd)!;
    const y = Number(known.slice(0, 4));
    const k = fmtDate(y, month, day);
    if (!periodStart && k > known && daysBetween(known, k) > 31) return y - 1;
    if (!periodEnd && k < known && daysBetween(k, known) > 31) return y + 1;
    return y;
  }
  const s = periodStart ?? periodEnd!;
  const e = periodEnd ?? periodStart!;
  const sy = Number(s.slice(0, 4));
  const ey = Number(e.slice(0, 4));
  if (sy === ey) return sy;
  // candidate years: pick the one whose date is closest to the period
  const key = (y: number) => fmtDate(y, month, day);
  let best = sy;
  let bestDist = Infinity;
  for (let y = sy - 1; y <= ey + 1; y++) {
    const k = key(y);
    const dist = k < s ? daysBetween(k, s) : k > e ? daysBetween(e, k) : 0;
    if (dist < bestDist) {
      bestDist = dist;
      best = y;
    }
  }
  return best;
}

export function daysBetween(a: string, b: string): number {
  const pa = Date.UTC(+a.slice(0, 4), +a.slice(5, 7) - 1, +a.slice(8, 10));
  const pb = Date.UTC(+b.slice(0, 4), +b.slice(5, 7) - 1, +b.slice(8, 10));
  return Math.abs(pb - pa) / 86_400_000;
}
