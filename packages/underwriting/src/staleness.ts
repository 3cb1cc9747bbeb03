import type { StatementInput } from './types';

/** A statement left out of every figure because it lies outside the look-back window. */
export interface StaleStatement {
  statement_id: string | number | null;
  period_start: string | null;
  period_end: string | null;
  /** calendar months between this statement's last month and the newest statement's last month */
  months_before_newest: number;
}

export interface StalenessSummary {
  /** the window (UnderwritingParams.lookbackMonths) */
  lookback_months: number;
  /** the newest statement's period end, from which the window is measured; null when no statement is dated */
  newest_period_end: string | null;
  /** the oldest month a statement must reach into to count (YYYY-MM); null when no statement is dated */
  window_start_month: string | null;
  stale_statements: StaleStatement[];
}

/** A statement's last day: its printed period end, else its latest transaction date; null when undated. */
function lastDate(s: StatementInput): string | null {
  if (s.periodEnd) return s.periodEnd;
  let last: string | null = null;
  for (const t of s.transactions) if (!last || t.date > last) last = t.date;
  return last;
}

const monthOrdinal = (date: string) => Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1;
const monthOf = (ordinal: number) => `${Math.floor(ordinal / 12)}-${String((ordinal % 12) + 1).padStart(2, '0')}`;

/**
 * Statements older than the window: a statement whose last month (period end, else latest
 * transaction) lies lookbackMonths or more calendar months before the newest statement's last month
 * is stale. With 6, a deal ending in June keeps statements ending January..June and names the
 * December one stale. An undated statement is never stale (nothing to measure).
 */
export function splitStale(
  statements: StatementInput[],
  lookbackMonths: number,
): { fresh: StatementInput[]; stale: StatementInput[]; summary: StalenessSummary } {
  const ends = statements.map(lastDate);
  const newest = ends.reduce<string | null>((a, d) => (d && (!a || d > a) ? d : a), null);
  const summary: StalenessSummary = {
    lookback_months: lookbackMonths,
    newest_period_end: newest,
    window_start_month: newest ? monthOf(monthOrdinal(newest) - lookbackMonths + 1) : null,
    stale_statements: [],
  };
  const fresh: StatementInput[] = [];
  const stale: StatementInput[] = [];
  statements.forEach((s, i) => {
    const end = ends[i];
    const behind = newest && end ? monthOrdinal(newest) - monthOrdinal(end) : 0;
    if (behind < lookbackMonths) {
      fresh.push(s);
      return;
    }
    stale.push(s);
    summary.stale_statements.push({
      statement_id: s.id ?? null,
      period_start: s.periodStart ?? (s.transactions.length ? s.transactions.reduce((a, t) => (t.date < a ? t.date : a), end!) : null),
      period_end: end,
      months_before_newest: behind,
    });
  });
  return { fresh, stale, summary };
}
