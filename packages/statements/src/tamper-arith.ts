/**
 * Arithmetic and calendar checks for edited statements (issue 32): the rows a broken balance or total
 * points at when one digit was changed, rows dated outside the printed period, and round deposits an
 * account does not otherwise receive. They read the parsed figures only (no pass over the page).
 * docs/tamper.md.
 */
import type { StatementTransaction, TamperFinding } from './types';
import { sortedNumbers } from './tokens';

const r1 = (n: number) => Math.round(n * 10) / 10;
const rbox = (b: [number, number, number, number]): [number, number, number, number] => [r1(b[0]), r1(b[1]), r1(b[2]), r1(b[3])];

export const rowLabel = (txs: StatementTransaction[], row: number | null) => {
  if (row === null) return '';
  const t = txs[row];
  return ` (row ${row + 1}: ${t.date}${t.description ? `, ${t.description.slice(0, 40)}` : ''})`;
};

/**
 * True when `alt` is `read` with exactly one digit changed: the same sign and the same number of
 * digits (a fraudster's edit of a digit in place keeps the width of the value).
 */
export function oneDigitApart(read: number, alt: number): boolean {
  if (Math.sign(read) !== Math.sign(alt) || read === 0) return false;
  const a = Math.abs(read).toFixed(2);
  const b = Math.abs(alt).toFixed(2);
  if (a.length !== b.length) return false;
  let n = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && ++n > 1) return false;
  return n === 1;
}

/**
 * Rows among `rows` whose amount, with one digit changed, would make up `difference` (printed minus
 * what the rows give): the rows a one-digit edit could have made.
 */
export function oneDigitRows(txs: StatementTransaction[], rows: number[], difference: number): number[] {
  if (Math.abs(difference) < 0.005) return [];
  return rows.filter((i) => oneDigitApart(txs[i].amount, Math.round((txs[i].amount + difference) * 100) / 100));
}

const money = (n: number) => n.toFixed(2);

/** Candidates a one-digit edit explains that are named (more would be a guess). */
export const MAX_DIGIT_ROWS = 2;

/** Findings naming the rows a one-digit edit explains (each on its page, with its boxes). */
export function digitFindings(
  txs: StatementTransaction[],
  rows: number[],
  difference: number,
  kind: 'balance_chain' | 'totals',
  what: string,
  of: number,
  /** the amount row i would need (default: its amount plus the difference) */
  fit: (i: number) => number = (i) => Math.round((txs[i].amount + difference) * 100) / 100,
): TamperFinding[] {
  const list = rows
    .map((i) => `row ${i + 1} prints ${money(Math.abs(txs[i].amount))}, where ${money(Math.abs(fit(i)))} would fit`)
    .join('; ');
  return rows.map((i) => ({
    kind,
    category: 'arithmetic',
    severity: 'medium',
    page: txs[i].source?.page ?? null,
    boxes: txs[i].source?.boxes.map(rbox) ?? [],
    row: i,
    message: `${what} is off by ${money(Math.abs(difference))}; of ${of === 1 ? 'the row' : `the ${of} rows`} that could cause it, ${rows.length === 1 ? 'only this one' : `only these ${rows.length}`} would make it hold with one digit changed (${list})${rowLabel(txs, i)}`,
  }));
}

const DAY = 86_400_000;
const dayOf = (iso: string) => Date.parse(`${iso}T00:00:00Z`);

/** Days a row may be dated before or after the printed period (posting and value dates lag). */
export const PERIOD_LAG_DAYS = 3;

/**
 * The printed statement period against the rows' dates: rows dated outside it (beyond the posting
 * lag), and a period no bank prints (ending before it starts, or longer than a year and a month).
 * Only a period read from the page is checked (one taken from the rows agrees with them by making).
 */
export function periodFindings(txs: StatementTransaction[], start: string | null, end: string | null): TamperFinding[] {
  if (!start || !end || !txs.length) return [];
  const s = dayOf(start);
  const e = dayOf(end);
  if (!Number.isFinite(s) || !Number.isFinite(e)) return [];
  const out: TamperFinding[] = [];
  const days = Math.round((e - s) / DAY) + 1;
  if (days < 1 || days > 400) {
    out.push({
      kind: 'period_dates',
      category: 'arithmetic',
      severity: 'medium',
      page: null,
      boxes: [],
      row: null,
      message: `the printed statement period ${start} to ${end} ${days < 1 ? 'ends before it starts' : `spans ${days} days, longer than any statement period a bank prints`}`,
    });
    return out;
  }
  const outside: number[] = [];
  txs.forEach((t, i) => {
    const d = dayOf(t.date);
    if (!Number.isFinite(d)) return;
    if (d < s - PERIOD_LAG_DAYS * DAY || d > e + PERIOD_LAG_DAYS * DAY) outside.push(i);
  });
  if (!outside.length) return out;
  // most rows outside: the period (or the year placed from it) is misread, not the rows edited
  if (outside.length > Math.max(2, txs.length * 0.2)) return out;
  const byPage = new Map<number | null, number[]>();
  for (const i of outside) {
    const p = txs[i].source?.page ?? null;
    byPage.set(p, [...(byPage.get(p) ?? []), i]);
  }
  for (const [page, rows] of byPage)
    out.push({
      kind: 'period_dates',
      category: 'arithmetic',
      severity: 'medium',
      page,
      boxes: rows.flatMap((i) => txs[i].source?.boxes.map(rbox) ?? []),
      row: rows[0],
      message: `${rows.length === 1 ? 'a row is' : `${rows.length} rows are`} dated outside the printed statement period ${start} to ${end} (more than ${PERIOD_LAG_DAYS} days): ${rows
        .slice(0, 4)
        .map((i) => `row ${i + 1} on ${txs[i].date} (${money(txs[i].amount)})`)
        .join(', ')}${rows.length > 4 ? ` and ${rows.length - 4} more` : ''}`,
    });
  return out;
}

/** Deposits that move the account's own money or a lender's: often round by nature. */
const ROUND_BY_NATURE =
  /transfer|xfer|trf|tfr|from (sav|chk|check|acct|account)|own account|loan|advance|funding|capital|proceeds|payroll|salary|wages|refund|reversal|cash dep|atm|mobile dep|branch dep|counter/i;

/** Round: a whole multiple of 500 (and at least 1,000). */
const isRound = (a: number) => a >= 1000 && Math.abs(a / 500 - Math.round(a / 500)) < 1e-9;

/** Credits an account must hold besides the round ones before the round ones are judged against them. */
export const ROUND_MIN_OTHERS = 8;

/**
 * Round deposits that do not fit the account: one or two credits of an exact multiple of 500 (at
 * least 1,000), among the largest the account receives, where none of its other credits is even a
 * multiple of 100. An account whose deposits are often round (payroll, transfers between own
 * accounts, cash) has such others and is not judged; a deposit whose description names a transfer,
 * a loan or cash is round by nature and is not counted.
 */
export function roundDepositFindings(txs: StatementTransaction[]): TamperFinding[] {
  const credits = txs.map((t, i) => i).filter((i) => txs[i].amount > 0);
  const round = credits.filter((i) => isRound(txs[i].amount));
  if (!round.length || round.length > 2) return [];
  const others = credits.filter((i) => !round.includes(i));
  if (others.length < ROUND_MIN_OTHERS) return [];
  if (others.some((i) => txs[i].amount >= 100 && Math.abs(txs[i].amount / 100 - Math.round(txs[i].amount / 100)) < 1e-9)) return [];
  const sorted = sortedNumbers(others.map((i) => txs[i].amount));
  const high = sorted[Math.floor(sorted.length * 0.9)];
  const out: TamperFinding[] = [];
  for (const i of round) {
    const t = txs[i];
    if (t.amount < high || ROUND_BY_NATURE.test(t.description ?? '')) continue;
    const largest = t.amount > sorted[sorted.length - 1];
    out.push({
      kind: 'round_amount',
      category: 'arithmetic',
      severity: 'medium',
      page: t.source?.page ?? null,
      boxes: t.source?.boxes.map(rbox) ?? [],
      row: i,
      message: `the deposit ${money(t.amount)} is a round amount, ${largest ? 'larger than any other deposit' : 'among the largest deposits'} of the account, whose ${others.length} other deposits include no multiple of 100: check it against the payer's record${rowLabel(txs, i)}`,
    });
  }
  return out;
}
