import { type DescriptionFeatures, descriptionFeatures } from './categorize';
import { type CrossDocResult, type CrossDocStatement, crossDocumentCheck } from './crossdoc';
import { chronologicalOrder, computeStatementMetrics, dailyBalanceSeries } from './metrics';
import { type UnderwritingParams, resolveParams } from './params';
import type { Authenticity, Reliability } from './report';
import { type LenderPositionSummary, detectLenderPositions } from './positions';
import { emptyBucketCounts, screenTransactions } from './screening';
import { type AllScores, type FactorInputs, computeScores } from './scores';
import type {
  BucketCounts,
  DealTransaction,
  StatementInput,
  StatementMetrics,
  StatementTransactionInput,
  TransactionCategory,
} from './types';
import { DAYS_PER_MONTH, cents, dayNumber, dayToDate, monthsFromDays, round2 } from './util';

export interface AnalyzeDealInput {
  statements: StatementInput[];
  fundingAmountRequested: number;
  /** YYYY-MM-DD; defaults to the last covered day (never the clock) */
  asOf?: string;
  params?: Partial<UnderwritingParams>;
}

export interface MonthSummary {
  month: string;
  days_covered: number;
  deposits: number;
  revenue: number;
  /** revenue / days_covered x 30.4375 */
  revenue_rate: number;
  deposit_count: number;
  revenue_deposit_days: number;
  nsf_count: number;
  overdraft_count: number;
  withdrawals: number;
  /** end-of-day balance of the month's last covered day (sum over accounts); null without a covered day */
  ending_balance: number | null;
  /** mean end-of-day balance over the month's covered days; null without a covered day */
  avg_daily_balance: number | null;
}

/** One NSF or overdraft fee (the NSF/overdraft list of the report). */
export interface FeeEvent {
  date: string;
  description: string;
  amount: number;
  type: 'nsf' | 'overdraft';
  statement_id: string | number | null;
}

/** Revenue grouped by normalised counterparty, largest first. */
export interface RevenueSource {
  counterparty: string;
  total: number;
  deposit_count: number;
  /** total / total revenue, 4 decimals */
  share_of_revenue: number;
  first_seen: string;
  last_seen: string;
}

export interface CurrencySummary {
  /** every figure of the analysis is in this currency */
  reporting_currency: string;
  /** currencies seen, sorted */
  currencies: string[];
  /** statements in another currency: left out of every sum (a cross_doc finding says so) */
  excluded_statement_ids: (string | number | null)[];
  /** statements naming no currency (none printed, none declared at upload): counted in the reporting currency */
  unstated_statement_ids: (string | number | null)[];
}

export interface DealAnalysis {
  as_of: string | null;
  funding_amount_requested: number;
  coverage: {
    months_covered: number;
    days_covered: number;
    statement_count: number;
    period_start: string | null;
    period_end: string | null;
  };
  financials: {
    avg_monthly_deposits: number;
    avg_monthly_revenue: number;
    avg_daily_balance: number;
    min_daily_balance: number;
    max_daily_balance: number;
    ending_balance: number;
    total_deposits: number;
    total_withdrawals: number;
    total_revenue: number;
    net_cash_flow: number;
    deposit_count: number;
    withdrawal_count: number;
    deposit_frequency_per_month: number;
    avg_deposit_amount: number;
    largest_deposit: number;
    deposit_days: number;
    revenue_deposit_days: number;
    negative_balance_days: number;
    low_balance_days: number;
    /** the low-balance threshold used (USD) */
    low_balance_threshold: number;
    total_operating_expenses: number;
    total_debt_service: number;
  };
  nsf_overdraft: {
    /** number of NSF fee transactions (integer, as in the deal report) */
    total_nsf_fees: number;
    /** number of overdraft fee transactions */
    total_overdraft_fees: number;
    /** calendar months with at least one NSF fee */
    nsf_months: number;
    overdraft_months: number;
    nsf_fee_amount: number;
    overdraft_fee_amount: number;
  };
  screening: { total_flags: number; buckets: BucketCounts; transaction_count: number; flagged_ratio: number };
  monthly: MonthSummary[];
  /** deal end-of-day balance (sum over accounts) for every covered day */
  daily_balances: { date: string; balance: number }[];
  nsf_events: FeeEvent[];
  /** revenue by counterparty, largest first (at most REVENUE_SOURCE_LIMIT) */
  revenue_sources: RevenueSource[];
  currency: CurrencySummary;
  lender_positions: LenderPositionSummary;
  cross_doc: CrossDocResult;
  cash_flow: {
    monthly_revenue: number;
    monthly_operating_expenses: number;
    cash_flow_available: number;
    existing_monthly_debt_service: number;
    proposed_monthly_payment: number;
    cfcr: number;
  };
  health: AllScores['health'];
  /** the nine ruleset factors (Form A) */
  factor_scores: AllScores['factors'];
  /** the six factor-list factors (Form B) */
  form_b_scores: AllScores['form_b'];
  statements: StatementMetrics[];
  transactions: DealTransaction[];
  /** set by buildDealReport: the documents' tamper risk, which every ruleset evaluation respects */
  authenticity?: Authenticity;
  /** set by buildDealReport: statements that fail to reconcile or need review (no firm recommendation then) */
  reliability?: Reliability;
}

/** Same account = same last 4 digits (bank names are printed inconsistently); without them, same bank name. */
const accountKey = (s: StatementInput) => {
  const last4 = (s.accountNumberLast4 ?? '').trim();
  return last4 ? `#${last4}` : `bank:${(s.bankName ?? '').trim().toLowerCase()}`;
};
const txKey = (t: StatementTransactionInput) =>
  `${t.date}|${cents(t.amount)}|${(t.description ?? '').trim().toLowerCase().replace(/\s+/g, ' ')}`;

const div = (a: number, b: number) => (b > 0 ? a / b : 0);

export const REVENUE_SOURCE_LIMIT = 10;

/**
 * The currency the deal is reported in: the one most statements carry (a tie goes to USD, then
 * alphabetical); USD when no statement names one. Statements without a currency count as it.
 */
export function reportingCurrency(statements: Pick<StatementInput, 'currency'>[]): string {
  const counts = new Map<string, number>();
  for (const s of statements) if (s.currency) counts.set(s.currency, (counts.get(s.currency) ?? 0) + 1);
  if (!counts.size) return 'USD';
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] === 'USD' ? -1 : b[0] === 'USD' ? 1 : a[0].localeCompare(b[0])))[0][0];
}

/** The whole deal picture. Pure: same input, same output. See README for every formula. */
export function analyzeDeal(input: AnalyzeDealInput): DealAnalysis {
  const p = resolveParams(input.params);
  const funding = input.fundingAmountRequested;
  if (!(typeof funding === 'number' && Number.isFinite(funding) && funding > 0)) {
    throw new RangeError('fundingAmountRequested must be a number greater than 0');
  }
  const currency = reportingCurrency(input.statements);
  const inCurrency = (s: StatementInput) => !s.currency || s.currency === currency;
  const statements = input.statements.filter(inCurrency);
  const excluded = input.statements.filter((s) => !inCurrency(s));

  // --- statement periods and accounts
  const txDays = statements.map((s) => {
    const a = new Int32Array(s.transactions.length);
    for (let i = 0; i < a.length; i++) a[i] = dayNumber(s.transactions[i].date);
    return a;
  });
  const orders = statements.map((s, si) => chronologicalOrder(s, txDays[si]));
  const series = statements.map((s, si) => dailyBalanceSeries(s, orders[si], txDays[si]));
  const accounts = statements.map(accountKey);
  const labels = statements.map((s, i) => {
    const sr = series[i];
    const period = sr.start !== null ? `${dayToDate(sr.start)}..${dayToDate(sr.end!)}` : 'undated';
    return `statement ${s.id ?? i + 1} (${period})`;
  });

  // --- cross-file duplicates: the k-th copy of a (day, amount, description) in a statement is a
  // duplicate when an earlier statement of the same account (by period start) holds at least k copies.
  // Only days inside an earlier statement's period can repeat, and only such days are indexed.
  const byStart = statements.map((_, i) => i).sort((a, b) => (series[a].start ?? 0) - (series[b].start ?? 0) || a - b);
  const twinOf: ({ st: number; tx: number } | null)[][] = statements.map((s) => new Array(s.transactions.length).fill(null));
  const dupPairs = new Map<string, { kept: number; dropped: number; count: number }>();
  const accountOrder = new Map<string, number[]>();
  for (const si of byStart) {
    const g = accountOrder.get(accounts[si]);
    if (g) g.push(si);
    else accountOrder.set(accounts[si], [si]);
  }
  for (const group of accountOrder.values()) {
    if (group.length < 2) continue;
    const seen = new Map<string, { st: number; tx: number }[]>();
    let earlierMin = Infinity;
    let earlierMax = -Infinity;
    group.forEach((si, pos) => {
      // days a later statement of this account can reach: from the next statement's start on
      let laterMin = Infinity;
      for (let q = pos + 1; q < group.length; q++) laterMin = Math.min(laterMin, series[group[q]].start ?? Infinity);
      const counts = new Map<string, number>();
      const extra: [string, { st: number; tx: number }][] = [];
      const days = txDays[si];
      statements[si].transactions.forEach((t, ti) => {
        const day = days[ti];
        const lookup = day >= earlierMin && day <= earlierMax;
        if (!lookup && day < laterMin) return;
        const key = txKey(t);
        const k = (counts.get(key) ?? 0) + 1;
        counts.set(key, k);
        const pool = lookup ? seen.get(key) : undefined;
        if (pool && k <= pool.length) {
          const twin = pool[k - 1];
          twinOf[si][ti] = twin;
          const pk = `${twin.st}|${si}`;
          const d = dupPairs.get(pk) ?? { kept: twin.st, dropped: si, count: 0 };
          d.count++;
          dupPairs.set(pk, d);
        } else if (day >= laterMin) extra.push([key, { st: si, tx: ti }]);
      });
      for (const [key, ref] of extra) {
        const pool = seen.get(key);
        if (pool) pool.push(ref);
        else seen.set(key, [ref]);
      }
      const sr = series[si];
      if (sr.start !== null) {
        earlierMin = Math.min(earlierMin, sr.start);
        earlierMax = Math.max(earlierMax, sr.end!);
      }
    });
  }

  // --- flatten counted transactions
  let total = 0;
  for (let si = 0; si < statements.length; si++) {
    const twins = twinOf[si];
    for (let ti = 0; ti < twins.length; ti++) if (!twins[ti]) total++;
  }
  const flat: StatementTransactionInput[] = new Array(total);
  const flatSt = new Int32Array(total);
  const flatTx = new Int32Array(total);
  const flatPos = new Int32Array(total);
  const flatId: (string | number | null)[] = new Array(total);
  const flatDays: number[] = new Array(total);
  const flatIndex: Int32Array[] = [];
  let w = 0;
  let pos = 0;
  for (let si = 0; si < statements.length; si++) {
    const txs = statements[si].transactions;
    const id = statements[si].id ?? null;
    const fi = new Int32Array(txs.length);
    const twins = twinOf[si];
    const days = txDays[si];
    for (let ti = 0; ti < txs.length; ti++, pos++) {
      if (twins[ti]) {
        fi[ti] = -1;
        continue;
      }
      flatPos[w] = pos;
      fi[ti] = w;
      flat[w] = txs[ti];
      flatSt[w] = si;
      flatTx[w] = ti;
      flatId[w] = id;
      flatDays[w] = days[ti];
      w++;
    }
    flatIndex.push(fi);
  }
  const features: DescriptionFeatures[] = new Array(flat.length);
  const categories: TransactionCategory[] = new Array(flat.length);
  for (let i = 0; i < flat.length; i++) {
    const t = flat[i];
    const f = (features[i] = descriptionFeatures(t.description ?? ''));
    categories[i] = t.amount > 0 ? f.creditCategory.category : t.amount < 0 ? f.debitCategory.category : 'other';
  }

  // --- own-account transfers: a debit in one account and a credit of the same amount in another,
  // within transferMatchDays days, where at least one side reads as a transfer
  let ownCount = 0;
  let ownTotal = 0;
  if (new Set(accounts).size > 1) {
    const debitsByCents = new Map<number, number[]>();
    flat.forEach((t, i) => {
      if (t.amount < 0 && categories[i] !== 'debt_service') {
        const k = -cents(t.amount);
        const g = debitsByCents.get(k);
        if (g) g.push(i);
        else debitsByCents.set(k, [i]);
      }
    });
    const used = new Set<number>();
    flat.forEach((t, i) => {
      if (t.amount <= 0 || features[i].knownRevenue) return;
      const cands = debitsByCents.get(cents(t.amount));
      if (!cands) return;
      const day = flatDays[i];
      for (const j of cands) {
        if (used.has(j) || accounts[flatSt[j]] === accounts[flatSt[i]]) continue;
        if (Math.abs(flatDays[j] - day) > p.transferMatchDays) continue;
        if (categories[i] !== 'transfer' && categories[j] !== 'transfer') continue;
        used.add(j);
        categories[i] = 'transfer';
        categories[j] = 'transfer';
        ownCount++;
        ownTotal += t.amount;
        break;
      }
    });
  }

  // --- screening over the counted transactions of the whole deal
  const screened = screenTransactions(flat, p, {
    groups: flatSt,
    categories,
    days: flatDays,
    features,
    deal: { statementIndex: flatSt, statementId: flatId, statementTxIndex: flatTx, index: flatPos },
  }) as DealTransaction[];

  const transactions: DealTransaction[] = new Array(pos);
  const perStatement: DealTransaction[][] = [];
  let at = 0;
  for (let si = 0; si < statements.length; si++) {
    const txs = statements[si].transactions;
    const rows: DealTransaction[] = new Array(txs.length);
    const fis = flatIndex[si];
    for (let ti = 0; ti < txs.length; ti++, at++) {
      const fi = fis[ti];
      let row: DealTransaction;
      if (fi >= 0) row = screened[fi];
      else {
        const twin = twinOf[si][ti]!;
        const t = txs[ti];
        row = {
          ...screened[flatIndex[twin.st][twin.tx]],
          index: at,
          date: t.date,
          description: t.description,
          amount: t.amount,
          balance: t.balance ?? null,
          statement_index: si,
          statement_id: statements[si].id ?? null,
          statement_tx_index: ti,
          counted: false,
        };
      }
      transactions[at] = row;
      rows[ti] = row;
    }
    perStatement.push(rows);
  }
  const statementMetrics = statements.map((s, si) =>
    computeStatementMetrics(s, { params: p, screened: perStatement[si], series: series[si] }),
  );

  // --- coverage: union of statement periods
  const ranges = series.filter((s) => s.start !== null).map((s) => [s.start!, s.end!] as [number, number]);
  ranges.sort((a, b) => a[0] - b[0]);
  const coveredDays: number[] = [];
  let lastDay = -Infinity;
  for (const [a, b] of ranges) {
    for (let d = Math.max(a, lastDay + 1); d <= b; d++) coveredDays.push(d);
    if (b > lastDay) lastDay = b;
  }
  const daysCovered = coveredDays.length;
  const months = monthsFromDays(daysCovered);
  const periodStart = daysCovered ? coveredDays[0] : null;
  const periodEnd = daysCovered ? coveredDays[daysCovered - 1] : null;
  const asOf = input.asOf ? dayNumber(input.asOf) : (periodEnd ?? (flat.length ? Math.max(...flat.map((t) => dayNumber(t.date))) : null));

  // --- deal daily balance: per account, the first statement (by period start) covering a day wins;
  // the deal's balance on a day is the sum over accounts covering that day
  const perAccountDay = new Map<string, Map<number, number>>();
  for (const si of byStart) {
    const sr = series[si];
    if (sr.start === null) continue;
    let m = perAccountDay.get(accounts[si]);
    if (!m) perAccountDay.set(accounts[si], (m = new Map()));
    sr.balances.forEach((b, k) => {
      const d = sr.start! + k;
      if (!m!.has(d)) m!.set(d, b);
    });
  }
  const dealDay = new Map<number, number>();
  for (const m of perAccountDay.values()) for (const [d, b] of m) dealDay.set(d, (dealDay.get(d) ?? 0) + b);
  let balSum = 0;
  let balMin = Infinity;
  let balMax = -Infinity;
  let negDays = 0;
  let lowDays = 0;
  for (const b of dealDay.values()) {
    balSum += b;
    if (b < balMin) balMin = b;
    if (b > balMax) balMax = b;
    if (b < 0) negDays++;
    if (b < p.lowBalanceThreshold) lowDays++;
  }
  const adb = div(balSum, dealDay.size);
  // ending balance: per account, the statement with the latest period end
  const latestByAccount = new Map<string, number>();
  statements.forEach((_, si) => {
    const cur = latestByAccount.get(accounts[si]);
    if (cur === undefined || (series[si].end ?? -Infinity) >= (series[cur].end ?? -Infinity)) latestByAccount.set(accounts[si], si);
  });
  let ending = 0;
  for (const si of latestByAccount.values()) ending += statementMetrics[si].ending_balance ?? 0;

  // --- totals over counted transactions
  let deposits = 0,
    withdrawals = 0,
    revenue = 0,
    opex = 0,
    debt = 0,
    largest = 0;
  let depositCount = 0,
    withdrawalCount = 0,
    nsfCount = 0,
    odCount = 0,
    flagged = 0;
  let nsfAmount = 0,
    odAmount = 0;
  let recentFee = false;
  const buckets = emptyBucketCounts();
  // calendar-month lookup by day number over the span of covered and transaction days
  let spanStart = daysCovered ? coveredDays[0] : Infinity;
  let spanEnd = daysCovered ? coveredDays[daysCovered - 1] : -Infinity;
  for (const d of flatDays) {
    if (d < spanStart) spanStart = d;
    if (d > spanEnd) spanEnd = d;
  }
  const spanLen = spanEnd >= spanStart ? spanEnd - spanStart + 1 : 0;
  const monthIdx = new Int32Array(spanLen);
  const months_: MonthSummary[] = [];
  for (let k = 0; k < spanLen; k++) {
    const key = dayToDate(spanStart + k).slice(0, 7);
    if (!months_.length || months_[months_.length - 1].month !== key) {
      months_.push({
        month: key,
        days_covered: 0,
        deposits: 0,
        revenue: 0,
        revenue_rate: 0,
        deposit_count: 0,
        revenue_deposit_days: 0,
        nsf_count: 0,
        overdraft_count: 0,
        withdrawals: 0,
        ending_balance: null,
        avg_daily_balance: null,
      });
    }
    monthIdx[k] = months_.length - 1;
  }
  const monthHas = new Uint8Array(months_.length); // bit 1: has a transaction, 2: NSF, 4: overdraft
  for (const d of coveredDays) {
    months_[monthIdx[d - spanStart]].days_covered++;
    monthHas[monthIdx[d - spanStart]] |= 1;
  }
  const dayFlags = new Uint8Array(spanLen); // bit 1: deposit, 2: revenue deposit
  for (let i = 0; i < screened.length; i++) {
    const t = screened[i];
    const rel = flatDays[i] - spanStart;
    const mi = monthIdx[rel];
    const m = months_[mi];
    monthHas[mi] |= 1;
    if (t.amount > 0) {
      deposits += t.amount;
      depositCount++;
      dayFlags[rel] |= 1;
      m.deposits += t.amount;
      m.deposit_count++;
      if (t.amount > largest) largest = t.amount;
      if (t.category === 'revenue') {
        revenue += t.amount;
        m.revenue += t.amount;
        dayFlags[rel] |= 2;
      }
    } else if (t.amount < 0) {
      withdrawals += -t.amount;
      withdrawalCount++;
      m.withdrawals += -t.amount;
      if (t.category === 'operating_expense') opex += -t.amount;
      else if (t.category === 'debt_service') debt += -t.amount;
    }
    if (t.is_nsf_fee || t.is_overdraft_fee) {
      if (t.is_nsf_fee) {
        nsfCount++;
        nsfAmount += -t.amount;
        monthHas[mi] |= 2;
        m.nsf_count++;
      } else {
        odCount++;
        odAmount += -t.amount;
        monthHas[mi] |= 4;
        m.overdraft_count++;
      }
      if (asOf !== null && asOf - flatDays[i] < p.nsfRecentDays) recentFee = true;
    }
    if (t.screening_bucket !== null) {
      flagged++;
      buckets[t.screening_bucket]++;
    }
  }
  let depositDayCount = 0;
  let revenueDayCount = 0;
  for (let k = 0; k < spanLen; k++) {
    if (dayFlags[k] & 1) depositDayCount++;
    if (dayFlags[k] & 2) {
      revenueDayCount++;
      months_[monthIdx[k]].revenue_deposit_days++;
    }
  }
  let nsfMonthCount = 0;
  let odMonthCount = 0;
  for (const h of monthHas) {
    if (h & 2) nsfMonthCount++;
    if (h & 4) odMonthCount++;
  }
  const revenueDays = { has: (d: number) => d >= spanStart && d <= spanEnd && (dayFlags[d - spanStart] & 2) !== 0 };
  // month balances from the deal's daily series, walked in day order
  const dailyBalances = [...dealDay.entries()].sort((a, b) => a[0] - b[0]);
  const monthBalance = new Map<number, { sum: number; n: number; last: number }>();
  for (const [d, b] of dailyBalances) {
    if (d < spanStart || d > spanEnd) continue;
    const mi = monthIdx[d - spanStart];
    const acc = monthBalance.get(mi) ?? { sum: 0, n: 0, last: 0 };
    acc.sum += b;
    acc.n++;
    acc.last = b;
    monthBalance.set(mi, acc);
  }
  for (const [mi, acc] of monthBalance) {
    months_[mi].ending_balance = round2(acc.last);
    months_[mi].avg_daily_balance = round2(acc.sum / acc.n);
  }
  const monthly = months_.filter((_, k) => monthHas[k] & 1);
  for (const m of monthly) {
    m.revenue_rate = round2(m.days_covered > 0 ? (m.revenue / m.days_covered) * DAYS_PER_MONTH : 0);
    m.deposits = round2(m.deposits);
    m.revenue = round2(m.revenue);
    m.withdrawals = round2(m.withdrawals);
  }
  const rates = monthly
    .filter((m) => m.days_covered >= 15)
    .map((m) => ({ ordinal: Number(m.month.slice(0, 4)) * 12 + Number(m.month.slice(5, 7)) - 1, rate: m.revenue_rate }));

  // 7-day blocks of covered days holding a revenue deposit
  let weekBlocks = 0;
  let weekWithDeposit = 0;
  for (let k = 0; k < coveredDays.length; k += 7) {
    weekBlocks++;
    for (let j = k; j < Math.min(k + 7, coveredDays.length); j++) {
      if (revenueDays.has(coveredDays[j])) {
        weekWithDeposit++;
        break;
      }
    }
  }

  const avgMonthlyDeposits = div(deposits, months);
  const avgMonthlyRevenue = div(revenue, months);
  const positions = detectLenderPositions(screened, {
    asOf: asOf ?? 0,
    monthsCovered: months,
    avgMonthlyDeposits,
    positionActiveDays: p.positionActiveDays,
  });

  const crossDocStatements: CrossDocStatement[] = statements.map((s, si) => ({
    index: si,
    id: s.id ?? null,
    label: labels[si],
    account: accounts[si],
    start: series[si].start !== null ? dayToDate(series[si].start!) : null,
    end: series[si].end !== null ? dayToDate(series[si].end!) : null,
    openingBalance: s.openingBalance ?? null,
    closingBalance: s.closingBalance ?? null,
    reconciliationDifference: statementMetrics[si].reconciliation_difference,
    currency: s.currency ?? null,
  }));
  excluded.forEach((s, k) => {
    const o = chronologicalOrder(s);
    const sr = dailyBalanceSeries(s, o);
    const start = sr.start !== null ? dayToDate(sr.start) : null;
    const end = sr.end !== null ? dayToDate(sr.end!) : null;
    crossDocStatements.push({
      index: statements.length + k,
      id: s.id ?? null,
      label: `statement ${s.id ?? statements.length + k + 1} (${start ? `${start}..${end}` : 'undated'})`,
      account: accountKey(s),
      start,
      end,
      openingBalance: null,
      closingBalance: null,
      reconciliationDifference: null,
      currency: s.currency ?? null,
    });
  });
  const crossDoc = crossDocumentCheck(
    {
      statements: crossDocStatements,
      duplicates: [...dupPairs.values()],
      ownTransfers: { count: ownCount, total: ownTotal },
      reportingCurrency: currency,
    },
    p,
  );

  const monthlyDebt = div(debt, months);
  const monthlyOpex = div(opex, months);
  const proposed = (funding * p.proposedFactorRate) / p.proposedTermMonths;
  const cfa = avgMonthlyRevenue - monthlyOpex;
  const cfcr = cfa / (monthlyDebt + proposed);

  const inputs: FactorInputs = {
    fundingRequested: funding,
    monthsCovered: months,
    daysCovered: dealDay.size,
    avgMonthlyDeposits,
    avgMonthlyRevenue,
    avgDailyBalance: adb,
    endingBalance: ending,
    lowBalanceDays: lowDays,
    negativeBalanceDays: negDays,
    nsfOverdraftEvents: nsfCount + odCount,
    recentNsfOverdraft: recentFee,
    revenueDepositDays: revenueDayCount,
    monthlyRevenueRates: rates,
    monthlyDebtService: monthlyDebt,
    transactionCount: screened.length,
    flaggedCount: flagged,
    weekBlocks,
    weekBlocksWithDeposit: weekWithDeposit,
    crossDocScore: crossDoc.score,
  };
  const scores = computeScores(inputs, p);

  return {
    as_of: asOf !== null ? dayToDate(asOf) : null,
    funding_amount_requested: funding,
    coverage: {
      months_covered: months,
      days_covered: daysCovered,
      statement_count: statements.length,
      period_start: periodStart !== null ? dayToDate(periodStart) : null,
      period_end: periodEnd !== null ? dayToDate(periodEnd) : null,
    },
    financials: {
      avg_monthly_deposits: round2(avgMonthlyDeposits),
      avg_monthly_revenue: round2(avgMonthlyRevenue),
      avg_daily_balance: round2(adb),
      min_daily_balance: dealDay.size ? round2(balMin) : 0,
      max_daily_balance: dealDay.size ? round2(balMax) : 0,
      ending_balance: round2(ending),
      total_deposits: round2(deposits),
      total_withdrawals: round2(withdrawals),
      total_revenue: round2(revenue),
      net_cash_flow: round2(deposits - withdrawals),
      deposit_count: depositCount,
      withdrawal_count: withdrawalCount,
      deposit_frequency_per_month: round2(div(depositCount, months)),
      avg_deposit_amount: round2(div(deposits, depositCount)),
      largest_deposit: round2(largest),
      deposit_days: depositDayCount,
      revenue_deposit_days: revenueDayCount,
      negative_balance_days: negDays,
      low_balance_days: lowDays,
      low_balance_threshold: p.lowBalanceThreshold,
      total_operating_expenses: round2(opex),
      total_debt_service: round2(debt),
    },
    nsf_overdraft: {
      total_nsf_fees: nsfCount,
      total_overdraft_fees: odCount,
      nsf_months: nsfMonthCount,
      overdraft_months: odMonthCount,
      nsf_fee_amount: round2(nsfAmount),
      overdraft_fee_amount: round2(odAmount),
    },
    screening: {
      total_flags: flagged,
      buckets,
      transaction_count: screened.length,
      flagged_ratio: screened.length ? Math.round((flagged / screened.length) * 10000) / 10000 : 0,
    },
    monthly,
    daily_balances: dailyBalances.map(([d, b]) => ({ date: dayToDate(d), balance: round2(b) })),
    nsf_events: feeEvents(screened),
    revenue_sources: revenueSources(screened, revenue),
    currency: {
      reporting_currency: currency,
      currencies: [...new Set([currency, ...input.statements.map((s) => s.currency).filter((c): c is string => !!c)])].sort(),
      excluded_statement_ids: excluded.map((s) => s.id ?? null),
      unstated_statement_ids: input.statements.filter((s) => !s.currency).map((s) => s.id ?? null),
    },
    lender_positions: positions,
    cross_doc: crossDoc,
    cash_flow: {
      monthly_revenue: round2(avgMonthlyRevenue),
      monthly_operating_expenses: round2(monthlyOpex),
      cash_flow_available: round2(cfa),
      existing_monthly_debt_service: round2(monthlyDebt),
      proposed_monthly_payment: round2(proposed),
      cfcr: round2(cfcr),
    },
    health: scores.health,
    factor_scores: scores.factors,
    form_b_scores: scores.form_b,
    statements: statementMetrics,
    transactions,
  };
}

function feeEvents(txs: DealTransaction[]): FeeEvent[] {
  return txs
    .filter((t) => t.is_nsf_fee || t.is_overdraft_fee)
    .map((t) => ({
      date: t.date,
      description: t.description,
      amount: t.amount,
      type: t.is_nsf_fee ? ('nsf' as const) : ('overdraft' as const),
      statement_id: t.statement_id,
    }))
    .sort((a, b) => a.date.localeCompare(b.date));
}

function revenueSources(txs: DealTransaction[], totalRevenue: number): RevenueSource[] {
  const groups = new Map<string, { total: number; count: number; first: string; last: string }>();
  for (const t of txs) {
    if (t.amount <= 0 || t.category !== 'revenue') continue;
    const g = groups.get(t.counterparty);
    if (!g) groups.set(t.counterparty, { total: t.amount, count: 1, first: t.date, last: t.date });
    else {
      g.total += t.amount;
      g.count++;
      if (t.date < g.first) g.first = t.date;
      if (t.date > g.last) g.last = t.date;
    }
  }
  return [...groups.entries()]
    .map(([counterparty, g]) => ({
      counterparty,
      total: round2(g.total),
      deposit_count: g.count,
      share_of_revenue: totalRevenue > 0 ? Math.round((g.total / totalRevenue) * 10000) / 10000 : 0,
      first_seen: g.first,
      last_seen: g.last,
    }))
    .sort((a, b) => b.total - a.total || a.counterparty.localeCompare(b.counterparty))
    .slice(0, REVENUE_SOURCE_LIMIT);
}
