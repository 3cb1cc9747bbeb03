/** Small numeric and date helpers. Dates are handled as UTC day numbers (days since 1970-01-01). */

const MS_PER_DAY = 86_400_000;
const dayCache = new Map<string, number>();

/**
 * 'YYYY-MM-DD' -> integer day number. A day past the end of its month (statements sometimes print
 * "02/30") is read as the month's last day; anything else malformed throws a RangeError.
 */
export function dayNumber(date: string): number {
  let n = dayCache.get(date);
  if (n !== undefined) return n;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) throw new RangeError(`invalid date '${date}', expected YYYY-MM-DD`);
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1 || d > 31) throw new RangeError(`invalid date '${date}'`);
  const last = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  n = Date.UTC(y, mo - 1, Math.min(d, last)) / MS_PER_DAY;
  if (dayCache.size > 100_000) dayCache.clear();
  dayCache.set(date, n);
  return n;
}

const dateCache = new Map<number, string>();
export function dayToDate(n: number): string {
  let s = dateCache.get(n);
  if (s === undefined) {
    s = new Date(n * MS_PER_DAY).toISOString().slice(0, 10);
    if (dateCache.size > 100_000) dateCache.clear();
    dateCache.set(n, s);
  }
  return s;
}

/** Average length of a month in days (365.25 / 12). */
export const DAYS_PER_MONTH = 30.4375;

/** Whole months a span of days represents: round(days / 30.4375), at least 1 when days > 0. */
export function monthsFromDays(days: number): number {
  if (days <= 0) return 0;
  return Math.max(1, Math.round(days / DAYS_PER_MONTH));
}

/** Round half away from zero to 2 decimals (money, scores, ratios). */
export function round2(x: number): number {
  const r = Math.round(Math.abs(x) * 100 + 1e-9) / 100;
  return x < 0 && r !== 0 ? -r : r;
}

export function clamp(x: number, lo = 0, hi = 100): number {
  if (Number.isNaN(x)) return lo;
  return x < lo ? lo : x > hi ? hi : x;
}

export function median(values: number[]): number {
  if (values.length === 0) return 0;
  const s = Float64Array.from(values).sort();
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

export function sum(values: number[]): number {
  let t = 0;
  for (const v of values) t += v;
  return t;
}

/**
 * Money: an amount becomes integer cents once, where it enters (Math.round(x x 100)); sums and
 * comparisons are then exact integers, a quotient is rounded once (divCents: half away from zero),
 * and a figure leaves as dollars (fromCents). See docs/money.md.
 */
export function cents(x: number): number {
  return Math.round(x * 100);
}

/** Integer cents -> dollars with 2 decimals (the nearest double to the exact decimal). */
export function fromCents(c: number): number {
  return c / 100 + 0;
}

/**
 * num / den rounded to whole cents, half away from zero (1.005 -> 1.01, -1.005 -> -1.01), exact for
 * integer num and den (|num| < 2^53); 0 when den <= 0. A non-integer den falls back to a float quotient.
 */
export function divCents(num: number, den: number): number {
  if (!(den > 0)) return 0;
  const a = Math.abs(num);
  let q: number;
  if (Number.isInteger(den) && Number.isInteger(a)) {
    q = Math.floor(a / den);
    let r = a - q * den;
    // a / den in floating point may land one off the true floor for large values
    if (r < 0) {
      q--;
      r += den;
    } else if (r >= den) {
      q++;
      r -= den;
    }
    if (2 * r >= den) q++;
  } else q = Math.round(a / den + 1e-9);
  return num < 0 && q !== 0 ? -q : q;
}

/** "$1,234.50" / "-$1,234.50" (fast; no Intl) */
export function formatMoney(x: number): string {
  const c = Math.round(Math.abs(x) * 100);
  const whole = Math.floor(c / 100).toString();
  const frac = (c % 100).toString().padStart(2, '0');
  let grouped = '';
  for (let i = whole.length; i > 0; i -= 3) grouped = whole.slice(Math.max(0, i - 3), i) + (grouped ? ',' + grouped : '');
  return `${x < 0 && c > 0 ? '-' : ''}$${grouped}.${frac}`;
}
