import { type UnderwritingParams } from './params';
import { emptyBucketCounts, screenTransactions } from './screening';
import type { ScreenedTransaction, StatementInput, StatementMetrics } from './types';
import { cents, dayNumber, dayToDate, monthsFromDays, round2 } from './util';

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

  let opening: number | null = st.openingBalance ?? null;
  if (opening === null) {
    let acc = 0;
    for (const i of order) {
      acc += txs[i].amount;
      if (txs[i].balance !== null && txs[i].balance !== undefined) {
        opening = (txs[i].balance as number) - acc;
        break;
      }
    }
  }
  if (opening === null && st.closingBalance !== null && st.closingBalance !== undefined) {
    let acc = 0;
    for (const t of txs) acc += t.amount;
    opening = st.closingBalance - acc;
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
        running = t.balance !== null && t.balance !== undefined ? t.balance : running + t.amount;
        k++;
      }
      balances.push(running);
    }
  }
  return { start, end, opening: open, known, balances };
}

export interface StatementMetricsOptions {
  params?: Partial<UnderwritingParams>;
  /** screening results for this statement's transactions (same order); screened on its own when absent */
  screened?: ScreenedTransaction[];
  /** the statement's daily balance series when already computed */
  series?: DailyBalanceSeries;
}

/** Per-statement analysis. Money rounded to cents, counts exact. See README "Per statement". */
export function computeStatementMetrics(statement: StatementInput, opts: StatementMetricsOptions = {}): StatementMetrics {
  const screened = opts.screened ?? screenTransactions(statement.transactions, opts.params);
  const series = opts.series ?? dailyBalanceSeries(statement);
  const days = series.balances.length;
  const months = monthsFromDays(days);

  let deposits = 0;
  let withdrawals = 0;
  let depositCount = 0;
  let withdrawalCount = 0;
  let largest = 0;
  let revenue = 0;
  let nsfCount = 0;
  let nsfFees = 0;
  let odCount = 0;
  let odFees = 0;
  let flags = 0;
  let amountCents = 0;
  const depositDays = new Set<string>();
  let lastDepositDate = '';
  const buckets = emptyBucketCounts();
  for (const t of screened) {
    amountCents += cents(t.amount);
    if (t.amount > 0) {
      deposits += t.amount;
      depositCount++;
      if (t.date !== lastDepositDate) {
        depositDays.add(t.date);
        lastDepositDate = t.date;
      }
      if (t.amount > largest) largest = t.amount;
      if (t.category === 'revenue') revenue += t.amount;
    } else if (t.amount < 0) {
      withdrawals += -t.amount;
      withdrawalCount++;
    }
    if (t.is_nsf_fee) {
      nsfCount++;
      nsfFees += -t.amount;
    }
    if (t.is_overdraft_fee) {
      odCount++;
      odFees += -t.amount;
    }
    if (t.screening_bucket) {
      flags++;
      buckets[t.screening_bucket]++;
    }
  }
  let sumBal = 0;
  let minBal = Infinity;
  let maxBal = -Infinity;
  let negDays = 0;
  for (const b of series.balances) {
    sumBal += b;
    if (b < minBal) minBal = b;
    if (b > maxBal) maxBal = b;
    if (b < 0) negDays++;
  }
  const lastEod = days ? series.balances[days - 1] : null;
  const ending = statement.closingBalance ?? lastEod ?? (series.known ? series.opening : null);
  const recon =
    statement.openingBalance !== null &&
    statement.openingBalance !== undefined &&
    statement.closingBalance !== null &&
    statement.closingBalance !== undefined
      ? round2((cents(statement.openingBalance) + amountCents - cents(statement.closingBalance)) / 100)
      : null;
  return {
    statement_id: statement.id ?? null,
    period_start: series.start !== null ? dayToDate(series.start) : null,
    period_end: series.end !== null ? dayToDate(series.end) : null,
    days_covered: days,
    months_covered: months,
    transaction_count: screened.length,
    total_deposits: round2(deposits),
    total_withdrawals: round2(withdrawals),
    total_credits: round2(deposits),
    total_debits: round2(withdrawals),
    net_cash_flow: round2(deposits - withdrawals),
    opening_balance: series.known ? round2(series.opening) : null,
    avg_daily_balance: days ? round2(sumBal / days) : null,
    min_daily_balance: days ? round2(minBal) : null,
    max_daily_balance: days ? round2(maxBal) : null,
    ending_balance: ending === null ? null : round2(ending),
    negative_balance_days: negDays,
    deposit_count: depositCount,
    withdrawal_count: withdrawalCount,
    deposit_days: depositDays.size,
    deposit_frequency_per_month: months ? round2(depositCount / months) : 0,
    avg_deposit_amount: depositCount ? round2(deposits / depositCount) : 0,
    largest_deposit: round2(largest),
    revenue_deposits: round2(revenue),
    nsf_count: nsfCount,
    nsf_total_fees: round2(nsfFees),
    overdraft_count: odCount,
    overdraft_total_fees: round2(odFees),
    screening_flags: flags,
    screening_buckets: buckets,
    reconciliation_difference: recon,
    daily_balances: series.balances.map((b, i) => ({ date: dayToDate((series.start as number) + i), balance: round2(b) })),
  };
}
