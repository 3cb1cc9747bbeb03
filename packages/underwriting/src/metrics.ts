import { type UnderwritingParams } from './params';
import { emptyBucketCounts, screenTransactions } from './screening';
import type { BucketCounts, ScreenedTransaction, StatementInput, StatementMetrics } from './types';
import { cents, dayNumber, dayToDate, divCents, fromCents, monthsFromDays, round2 } from './util';

export interface DailyBalanceSeries {
  /** first and last day (day numbers) of the series; null when the statement has no dates at all */
  start: number | null;
  end: number | null;
  opening: number;
  /** false when neither an opening, a closing nor any printed balance was available (the series then starts at 0) */
  known: boolean;
  /** end-of-day balances, one per day from start to end */
  balances: number[];
}

/** Transactions sorted by date, keeping the printed order within a day. Returns indexes. */
export function chronologicalOrder(st: StatementInput, days: ArrayLike<number> = st.transactions.map((t) => dayNumber(t.date))): number[] {
  const idx: number[] = new Array(days.length);
  let sorted = true;
  for (let i = 0; i < days.length; i++) {
    idx[i] = i;
    if (i > 0 && days[i] < days[i - 1]) sorted = false;
  }
  return sorted ? idx : idx.sort((a, b) => days[a] - days[b] || a - b);
}

/**
 * Day-by-day end-of-day balance.
 * Opening = openingBalance; else (first printed balance - amounts up to and including it);
 * else (closingBalance - sum of all amounts); else 0 (known = false).
 * Each day: previous end-of-day balance + that day's amounts, where a printed running balance
 * replaces the computed one. Days without transactions carry the previous balance over.
 */
export function dailyBalanceSeries(
  st: StatementInput,
  order = chronologicalOrder(st),
  days: ArrayLike<number> = st.transactions.map((t) => dayNumber(t.date)),
): DailyBalanceSeries {
  const txs = st.transactions;
  let start: number | null = st.periodStart ? dayNumber(st.periodStart) : null;
  let end: number | null = st.periodEnd ? dayNumber(st.periodEnd) : null;
  if (order.length) {
    const first = days[order[0]];
    const last = days[order[order.length - 1]];
    start = start === null ? first : Math.min(start, first);
    end = end === null ? last : Math.max(end, last);
  }
  if (start !== null && end === null) end = start;
  if (end !== null && start === null) start = end;

  // in integer cents: a running balance adds exactly
  let opening: number | null = st.openingBalance != null ? cents(st.openingBalance) : null;
  if (opening === null) {
    let acc = 0;
    for (const i of order) {
      acc += cents(txs[i].amount);
      if (txs[i].balance !== null && txs[i].balance !== undefined) {
        opening = cents(txs[i].balance as number) - acc;
        break;
      }
    }
  }
  if (opening === null && st.closingBalance !== null && st.closingBalance !== undefined) {
    let acc = 0;
    for (const t of txs) acc += cents(t.amount);
    opening = cents(st.closingBalance) - acc;
  }
  const known = opening !== null;
  const open = opening ?? 0;
  const balances: number[] = [];
  if (start !== null && end !== null) {
    let running = open;
    let k = 0;
    for (let day = start; day <= end; day++) {
      while (k < order.length && days[order[k]] === day) {
        const t = txs[order[k]];
        running = t.balance !== null && t.balance !== undefined ? cents(t.balance) : running + cents(t.amount);
        k++;
      }
      balances.push(fromCents(running));
    }
  }
  return { start, end, opening: fromCents(open), known, balances };
}

export interface StatementMetricsOptions {
  params?: Partial<UnderwritingParams>;
  /** screening results for this statement's transactions (same order); screened on its own when absent */
  screened?: ScreenedTransaction[];
  /** the statement's daily balance series when already computed */
  series?: DailyBalanceSeries;
}

/** Sums over a statement's screened transactions: money in integer cents. */
interface TransactionTotals {
  deposits: number;
  withdrawals: number;
  depositCount: number;
  withdrawalCount: number;
  largest: number;
  revenue: number;
  nsfCount: number;
  nsfFees: number;
  odCount: number;
  odFees: number;
  flags: number;
  amountCents: number;
  depositDays: number;
  buckets: BucketCounts;
}

function transactionTotals(screened: ScreenedTransaction[]): TransactionTotals {
  const r: TransactionTotals = {
    deposits: 0,
    withdrawals: 0,
    depositCount: 0,
    withdrawalCount: 0,
    largest: 0,
    revenue: 0,
    nsfCount: 0,
    nsfFees: 0,
    odCount: 0,
    odFees: 0,
    flags: 0,
    amountCents: 0,
    depositDays: 0,
    buckets: emptyBucketCounts(),
  };
  const depositDays = new Set<string>();
  let lastDepositDate = '';
  for (const t of screened) {
    const c = cents(t.amount);
    r.amountCents += c;
    if (c > 0) {
      r.deposits += c;
      r.depositCount++;
      if (t.date !== lastDepositDate) {
        depositDays.add(t.date);
        lastDepositDate = t.date;
      }
      if (c > r.largest) r.largest = c;
      if (t.category === 'revenue') r.revenue += c;
    } else if (c < 0) {
      r.withdrawals -= c;
      r.withdrawalCount++;
    }
    if (t.is_nsf_fee) {
      r.nsfCount++;
      r.nsfFees -= c;
    }
    if (t.is_overdraft_fee) {
      r.odCount++;
      r.odFees -= c;
    }
    if (t.screening_bucket) {
      r.flags++;
      r.buckets[t.screening_bucket]++;
    }
  }
  r.depositDays = depositDays.size;
  return r;
}

/** Sum (in cents), lowest, highest and negative days of a daily balance series. */
function balanceStats(balances: number[]): { sum: number; min: number; max: number; negativeDays: number } {
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  let negativeDays = 0;
  for (const b of balances) {
    sum += cents(b);
    if (b < min) min = b;
    if (b > max) max = b;
    if (b < 0) negativeDays++;
  }
  return { sum, min, max, negativeDays };
}

/** opening + sum(amounts) - closing, null when either balance is missing. */
function reconciliationDifference(statement: StatementInput, amountCents: number): number | null {
  const { openingBalance, closingBalance } = statement;
  if (openingBalance === null || openingBalance === undefined || closingBalance === null || closingBalance === undefined) return null;
  return fromCents(cents(openingBalance) + amountCents - cents(closingBalance));
}

/** Per-statement analysis. Money rounded to cents, counts exact. See README "Per statement". */
export function computeStatementMetrics(statement: StatementInput, opts: StatementMetricsOptions = {}): StatementMetrics {
  const screened = opts.screened ?? screenTransactions(statement.transactions, opts.params);
  const series = opts.series ?? dailyBalanceSeries(statement);
  const days = series.balances.length;
  const months = monthsFromDays(days);
  const t = transactionTotals(screened);
  const bal = balanceStats(series.balances);
  const lastEod = days ? series.balances[days - 1] : null;
  const ending = statement.closingBalance ?? lastEod ?? (series.known ? series.opening : null);
  return {
    statement_id: statement.id ?? null,
    period_start: series.start !== null ? dayToDate(series.start) : null,
    period_end: series.end !== null ? dayToDate(series.end) : null,
    days_covered: days,
    months_covered: months,
    transaction_count: screened.length,
    total_deposits: fromCents(t.deposits),
    total_withdrawals: fromCents(t.withdrawals),
    total_credits: fromCents(t.deposits),
    total_debits: fromCents(t.withdrawals),
    net_cash_flow: fromCents(t.deposits - t.withdrawals),
    opening_balance: series.known ? round2(series.opening) : null,
    avg_daily_balance: days ? fromCents(divCents(bal.sum, days)) : null,
    min_daily_balance: days ? round2(bal.min) : null,
    max_daily_balance: days ? round2(bal.max) : null,
    ending_balance: ending === null ? null : round2(ending),
    negative_balance_days: bal.negativeDays,
    deposit_count: t.depositCount,
    withdrawal_count: t.withdrawalCount,
    deposit_days: t.depositDays,
    deposit_frequency_per_month: months ? round2(t.depositCount / months) : 0,
    avg_deposit_amount: fromCents(divCents(t.deposits, t.depositCount)),
    largest_deposit: fromCents(t.largest),
    revenue_deposits: fromCents(t.revenue),
    nsf_count: t.nsfCount,
    nsf_total_fees: fromCents(t.nsfFees),
    overdraft_count: t.odCount,
    overdraft_total_fees: fromCents(t.odFees),
    screening_flags: t.flags,
    screening_buckets: t.buckets,
    reconciliation_difference: reconciliationDifference(statement, t.amountCents),
    daily_balances: series.balances.map((b, i) => ({ date: dayToDate((series.start as number) + i), balance: round2(b) })),
  };
}
