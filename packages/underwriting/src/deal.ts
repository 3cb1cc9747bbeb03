import { type AccountGroups, type DealAccount, groupAccounts } from './accounts';
import { type Affordability, affordabilityOf } from './affordability';
import { type DescriptionFeatures, descriptionFeatures } from './categorize';
import { type LenderMatcher, type OrgLenderEntry, lenderMatcher } from './lenders';
import { type CrossDocResult, type CrossDocStatement, crossDocumentCheck } from './crossdoc';
import { chronologicalOrder, computeStatementMetrics, dailyBalanceSeries, type DailyBalanceSeries } from './metrics';
import { type UnderwritingParams, resolveParams } from './params';
import type { Authenticity, Reliability } from './report';
import { type LenderPositionSummary, detectLenderPositions, markUnnamedFundings } from './positions';
import { type DepositClasses, type RevenueTable, applyOverrides, classifyDeposit, newDepositClasses, revenueTable } from './revenue';
import { emptyBucketCounts, screenTransactions } from './screening';
import { type AllScores, type FactorInputs, computeScores } from './scores';
import { type StalenessSummary, splitStale } from './staleness';
import { type TransferSummary, matchOwnTransfers } from './transfers';
import type {
  BucketCounts,
  DealTransaction,
  StatementInput,
  StatementMetrics,
  StatementTransactionInput,
  TransactionCategory,
} from './types';
import { cents, dayNumber, dayToDate, divCents, fromCents, monthsFromDays, round2 } from './util';

export interface AnalyzeDealInput {
  statements: StatementInput[];
  fundingAmountRequested: number;
  /** YYYY-MM-DD; defaults to the last covered day (never the clock) */
  asOf?: string;
  params?: Partial<UnderwritingParams>;
  /** the organization's own lender names (API /v1/lenders): they win over the shipped directory */
  lenders?: readonly OrgLenderEntry[];
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
  /** true revenue: per month, gross deposits, what each non-revenue class excluded, true revenue, cash deposits */
  revenue: RevenueTable;
  currency: CurrencySummary;
  lender_positions: LenderPositionSummary;
  /** the bank accounts the analysed statements belong to */
  accounts: DealAccount[];
  /** statements outside the look-back window, left out of every figure */
  staleness: StalenessSummary;
  /** transfers between the merchant's own accounts (neither revenue nor expense) */
  own_transfers: TransferSummary;
  affordability: Affordability;
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

/** What the evaluations read of an analysis: everything but its per-transaction and per-statement detail. */
export type ScoredDeal = Omit<DealAnalysis, 'transactions' | 'statements'>;

/** The analysis as a server stores it: without the per-transaction rows and the per-statement daily series. */
export type StoredDealAnalysis = ScoredDeal & { statements: Omit<StatementMetrics, 'daily_balances'>[] };

/** An analysis without what a server does not store. */
export function storedAnalysis(analysis: DealAnalysis): StoredDealAnalysis {
  const { transactions: _transactions, statements, ...rest } = analysis;
  return { ...rest, statements: statements.map(({ daily_balances: _daily, ...s }) => s) };
}

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
  const { currency, statements: inCurrency, excluded } = splitByCurrency(input.statements);
  const { fresh: statements, summary: staleness } = splitStale(inCurrency, p.lookbackMonths);
  const matcher = lenderMatcher(input.lenders);
  const screening = screenStatements(statements, p, matcher);
  const { shapes, dups, flat, ownTransfers, screened, features, transactions, statementMetrics, overridden } = screening;
  const coverage = coverageOf(shapes.series);
  const asOf = input.asOf ? dayNumber(input.asOf) : (coverage.periodEnd ?? lastTransactionDay(flat.txs));
  const dealDay = dealDailyBalance(shapes);
  const balances = balanceFigures(dealDay, p);
  const ending = endingBalance(statements, shapes, statementMetrics);
  const grid = monthGrid(coverage.coveredDays, flat.days);
  const totals = dealTotals(screened, flat.days, grid, asOf, p);
  const days = depositDayCounts(grid, totals.dayFlags);
  const dailyBalances = [...dealDay.entries()].sort((a, b) => a[0] - b[0]);
  const monthly = finishMonthly(grid, dailyBalances);
  const weeks = weekBlockCounts(coverage.coveredDays, grid, totals.dayFlags);
  const avgMonthlyDeposits = fromCents(divCents(totals.deposits, coverage.months));
  const avgMonthlyRevenue = fromCents(divCents(totals.revenue, coverage.months));
  const positions = positionsOf(screened, features, { asOf: asOf ?? 0, monthsCovered: coverage.months, avgMonthlyDeposits }, p, input);
  const crossDocInput = { statements: crossDocStatements(statements, excluded, shapes, statementMetrics), ownTransfers };
  const crossDoc = crossDocumentCheck({ ...crossDocInput, duplicates: [...dups.dupPairs.values()], reportingCurrency: currency }, p);
  const cashFlow = cashFlowOf(totals, coverage.months, funding, avgMonthlyRevenue, p);
  const scores = computeScores(
    {
      fundingRequested: funding,
      monthsCovered: coverage.months,
      daysCovered: dealDay.size,
      avgMonthlyDeposits,
      avgMonthlyRevenue,
      avgDailyBalance: fromCents(balances.adb),
      endingBalance: fromCents(ending),
      lowBalanceDays: balances.lowDays,
      negativeBalanceDays: balances.negDays,
      nsfOverdraftEvents: totals.nsfCount + totals.odCount,
      recentNsfOverdraft: totals.recentFee,
      revenueDepositDays: days.revenueDays,
      monthlyRevenueRates: revenueRates(monthly),
      monthlyDebtService: cashFlow.monthlyDebt,
      transactionCount: screened.length,
      flaggedCount: totals.flagged,
      weekBlocks: weeks.blocks,
      weekBlocksWithDeposit: weeks.withDeposit,
      crossDocScore: crossDoc.score,
    } satisfies FactorInputs,
    p,
  );
  return {
    as_of: asOf !== null ? dayToDate(asOf) : null,
    funding_amount_requested: funding,
    coverage: coverageSection(coverage, statements.length),
    financials: financialsOf({ totals, balances, ending, days, months: coverage.months, dealDays: dealDay.size, p }),
    nsf_overdraft: nsfOverdraftOf(totals, grid),
    screening: screeningSection(totals, screened.length),
    monthly,
    daily_balances: dailyBalances.map(([d, b]) => ({ date: dayToDate(d), balance: fromCents(b) })),
    nsf_events: feeEvents(screened),
    revenue_sources: revenueSources(screened, totals.revenue),
    revenue: revenueTable(screened, monthly, overridden),
    currency: currencySummary(currency, input.statements, excluded),
    lender_positions: positions,
    accounts: shapes.groups.accounts,
    staleness,
    own_transfers: ownTransfers,
    affordability: affordabilityAt(avgMonthlyRevenue, positions, p),
    cross_doc: crossDoc,
    cash_flow: cashFlow.section,
    health: scores.health,
    factor_scores: scores.factors,
    form_b_scores: scores.form_b,
    statements: statementMetrics,
    transactions,
  };
}

/** Lender positions; the factor rate of the remaining-balance estimates is the params' when given, else the default. */
function positionsOf(
  screened: DealTransaction[],
  features: DescriptionFeatures[],
  o: { asOf: number; monthsCovered: number; avgMonthlyDeposits: number },
  p: UnderwritingParams,
  input: AnalyzeDealInput,
): LenderPositionSummary {
  return detectLenderPositions(screened, {
    ...o,
    positionActiveDays: p.positionActiveDays,
    features,
    factorRate: p.positionFactorRate,
    factorRateSource: input.params?.positionFactorRate !== undefined ? 'params' : 'default',
    amountTolerance: p.mcaAmountTolerance,
  });
}

/**
 * The counted transactions of the deal (copies across statements of one account left out, own-account
 * transfers matched), screened together, and each statement's figures from that one screening.
 */
function screenStatements(statements: StatementInput[], p: UnderwritingParams, matcher: LenderMatcher) {
  const shapes = statementShapes(statements, p);
  const dups = crossFileDuplicates(statements, shapes);
  const flat = flattenCounted(statements, shapes.txDays, dups.twinOf);
  const { features, categories, classes } = initialCategories(flat.txs, flat.st, statements, matcher);
  const ownTransfers = matchOwnTransfers(flat, features, categories, shapes.accounts, p);
  applyOverrides(flat.txs, classes, categories, ownTransfers.count);
  const screened = screenTransactions(flat.txs, p, {
    groups: flat.st,
    categories,
    days: flat.days,
    features,
    deal: { statementIndex: flat.st, statementId: flat.id, statementTxIndex: flat.tx, index: flat.pos, revenue: classes },
  }) as DealTransaction[];
  markUnnamedFundings(screened, classes.overridden);
  const { transactions, perStatement } = statementRows(statements, flat, dups.twinOf, screened);
  const statementMetrics = statements.map((s, si) =>
    computeStatementMetrics(s, { params: p, screened: perStatement[si], series: shapes.series[si] }),
  );
  return { shapes, dups, flat, ownTransfers, screened, features, transactions, statementMetrics, overridden: classes.overridden };
}

/** The affordability at the parameters' holdback cap, factor rate and term. */
function affordabilityAt(monthlyRevenue: number, positions: LenderPositionSummary, p: UnderwritingParams): Affordability {
  return affordabilityOf(monthlyRevenue, positions, {
    maxTotalHoldback: p.maxTotalHoldback,
    factorRate: p.proposedFactorRate,
    termMonths: p.proposedTermMonths,
  });
}

/** The last day with a transaction; null without any. */
function lastTransactionDay(txs: StatementTransactionInput[]): number | null {
  return txs.length ? Math.max(...txs.map((t) => dayNumber(t.date))) : null;
}

function screeningSection(totals: DealTotals, transactionCount: number): DealAnalysis['screening'] {
  return {
    total_flags: totals.flagged,
    buckets: totals.buckets,
    transaction_count: transactionCount,
    flagged_ratio: transactionCount ? Math.round((totals.flagged / transactionCount) * 10000) / 10000 : 0,
  };
}

/** The reporting currency, the statements in it (analysed) and the others (named, left out of every figure). */
function splitByCurrency(all: StatementInput[]): { currency: string; statements: StatementInput[]; excluded: StatementInput[] } {
  const currency = reportingCurrency(all);
  const inCurrency = (s: StatementInput) => !s.currency || s.currency === currency;
  return { currency, statements: all.filter(inCurrency), excluded: all.filter((s) => !inCurrency(s)) };
}

/** Per statement: its transactions' day numbers, its daily balance series, account and label. */
interface StatementShapes {
  txDays: Int32Array[];
  series: DailyBalanceSeries[];
  accounts: string[];
  groups: AccountGroups;
  labels: string[];
  /** statement indexes in order of period start */
  byStart: number[];
}

function statementShapes(statements: StatementInput[], p: UnderwritingParams): StatementShapes {
  const txDays = statements.map((s) => {
    const a = new Int32Array(s.transactions.length);
    for (let i = 0; i < a.length; i++) a[i] = dayNumber(s.transactions[i].date);
    return a;
  });
  const orders = statements.map((s, si) => chronologicalOrder(s, txDays[si]));
  const series = statements.map((s, si) => dailyBalanceSeries(s, orders[si], txDays[si]));
  const labels = statements.map((s, i) => {
    const sr = series[i];
    const period = sr.start !== null ? `${dayToDate(sr.start)}..${dayToDate(sr.end!)}` : 'undated';
    return `statement ${s.id ?? i + 1} (${period})`;
  });
  const byStart = statements.map((_, i) => i).sort((a, b) => (series[a].start ?? 0) - (series[b].start ?? 0) || a - b);
  const groups = groupAccounts(
    statements.map((statement, i) => ({ statement, start: series[i].start, end: series[i].end })),
    p,
  );
  return { txDays, series, accounts: groups.keys, groups, labels, byStart };
}

type TxRef = { st: number; tx: number };
interface CrossFileDuplicates {
  /** per statement, per transaction: the transaction of an earlier statement it copies, or null */
  twinOf: (TxRef | null)[][];
  dupPairs: Map<string, { kept: number; dropped: number; count: number }>;
}

/**
 * Cross-file duplicates: the k-th copy of a (day, amount, description) in a statement is a
 * duplicate when an earlier statement of the same account (by period start) holds at least k copies.
 * Only days inside an earlier statement's period can repeat, and only such days are indexed.
 */
function crossFileDuplicates(statements: StatementInput[], shapes: StatementShapes): CrossFileDuplicates {
  const found: CrossFileDuplicates = {
    twinOf: statements.map((s) => new Array<TxRef | null>(s.transactions.length).fill(null)),
    dupPairs: new Map(),
  };
  const accountOrder = new Map<string, number[]>();
  for (const si of shapes.byStart) {
    const g = accountOrder.get(shapes.accounts[si]);
    if (g) g.push(si);
    else accountOrder.set(shapes.accounts[si], [si]);
  }
  for (const group of accountOrder.values()) if (group.length >= 2) accountDuplicates(statements, shapes, group, found);
  return found;
}

/** One account's statements, in order of period start. */
function accountDuplicates(statements: StatementInput[], shapes: StatementShapes, group: number[], found: CrossFileDuplicates): void {
  const seen = new Map<string, TxRef[]>();
  let earlierMin = Infinity;
  let earlierMax = -Infinity;
  group.forEach((si, pos) => {
    // days a later statement of this account can reach: from the next statement's start on
    let laterMin = Infinity;
    for (let q = pos + 1; q < group.length; q++) laterMin = Math.min(laterMin, shapes.series[group[q]].start ?? Infinity);
    const extra = matchTwins(statements[si], si, shapes.txDays[si], { earlierMin, earlierMax, laterMin }, seen, found);
    for (const [key, ref] of extra) {
      const pool = seen.get(key);
      if (pool) pool.push(ref);
      else seen.set(key, [ref]);
    }
    const sr = shapes.series[si];
    if (sr.start !== null) {
      earlierMin = Math.min(earlierMin, sr.start);
      earlierMax = Math.max(earlierMax, sr.end!);
    }
  });
}

/** Marks a statement's copies of earlier transactions; returns the keys a later statement may copy. */
function matchTwins(
  statement: StatementInput,
  si: number,
  days: Int32Array,
  bounds: { earlierMin: number; earlierMax: number; laterMin: number },
  seen: Map<string, TxRef[]>,
  found: CrossFileDuplicates,
): [string, TxRef][] {
  const counts = new Map<string, number>();
  const extra: [string, TxRef][] = [];
  statement.transactions.forEach((t, ti) => {
    const day = days[ti];
    const lookup = day >= bounds.earlierMin && day <= bounds.earlierMax;
    if (!lookup && day < bounds.laterMin) return;
    const key = txKey(t);
    const k = (counts.get(key) ?? 0) + 1;
    counts.set(key, k);
    const pool = lookup ? seen.get(key) : undefined;
    if (pool && k <= pool.length) {
      const twin = pool[k - 1];
      found.twinOf[si][ti] = twin;
      const pk = `${twin.st}|${si}`;
      const d = found.dupPairs.get(pk) ?? { kept: twin.st, dropped: si, count: 0 };
      d.count++;
      found.dupPairs.set(pk, d);
    } else if (day >= bounds.laterMin) extra.push([key, { st: si, tx: ti }]);
  });
  return extra;
}

/** The counted transactions of the deal (copies left out), flat, with where each came from. */
interface FlatTransactions {
  txs: StatementTransactionInput[];
  st: Int32Array;
  tx: Int32Array;
  /** position among all the deal's transactions, copies included */
  pos: Int32Array;
  id: (string | number | null)[];
  days: number[];
  /** per statement, per transaction: its index in the flat list, -1 for a copy */
  index: Int32Array[];
  /** the deal's transactions, copies included */
  total: number;
}

function flattenCounted(statements: StatementInput[], txDays: Int32Array[], twinOf: (TxRef | null)[][]): FlatTransactions {
  let total = 0;
  for (let si = 0; si < statements.length; si++) {
    const twins = twinOf[si];
    for (let ti = 0; ti < twins.length; ti++) if (!twins[ti]) total++;
  }
  const flat: FlatTransactions = {
    txs: new Array<StatementTransactionInput>(total),
    st: new Int32Array(total),
    tx: new Int32Array(total),
    pos: new Int32Array(total),
    id: new Array<string | number | null>(total),
    days: new Array<number>(total),
    index: [],
    total: 0,
  };
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
      flat.pos[w] = pos;
      fi[ti] = w;
      flat.txs[w] = txs[ti];
      flat.st[w] = si;
      flat.tx[w] = ti;
      flat.id[w] = id;
      flat.days[w] = days[ti];
      w++;
    }
    flat.index.push(fi);
  }
  flat.total = pos;
  return flat;
}

/** Keyword features and categories of the counted transactions, and each deposit's revenue class (docs/revenue.md). */
function initialCategories(
  txs: StatementTransactionInput[],
  statementOf: Int32Array,
  statements: StatementInput[],
  matcher: LenderMatcher,
): { features: DescriptionFeatures[]; categories: TransactionCategory[]; classes: DepositClasses } {
  const features: DescriptionFeatures[] = new Array(txs.length);
  const categories: TransactionCategory[] = new Array(txs.length);
  const classes = newDepositClasses(txs.length, statements);
  for (let i = 0; i < txs.length; i++) {
    const t = txs[i];
    const f = (features[i] = descriptionFeatures(t.description ?? '', matcher));
    categories[i] = t.amount > 0 ? classifyDeposit(classes, i, t, f, statementOf[i]) : t.amount < 0 ? f.debitCategory.category : 'other';
  }
  return { features, categories, classes };
}

/** Every transaction of each statement; a copy takes the screening of the transaction it copies, uncounted. */
function statementRows(
  statements: StatementInput[],
  flat: FlatTransactions,
  twinOf: (TxRef | null)[][],
  screened: DealTransaction[],
): { transactions: DealTransaction[]; perStatement: DealTransaction[][] } {
  const transactions: DealTransaction[] = new Array(flat.total);
  const perStatement: DealTransaction[][] = [];
  let at = 0;
  for (let si = 0; si < statements.length; si++) {
    const txs = statements[si].transactions;
    const rows: DealTransaction[] = new Array(txs.length);
    const fis = flat.index[si];
    for (let ti = 0; ti < txs.length; ti++, at++) {
      const fi = fis[ti];
      let row: DealTransaction;
      if (fi >= 0) row = screened[fi];
      else {
        const twin = twinOf[si][ti]!;
        const t = txs[ti];
        row = {
          ...screened[flat.index[twin.st][twin.tx]],
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
  return { transactions, perStatement };
}

/** The union of the statement periods. */
interface Coverage {
  coveredDays: number[];
  months: number;
  periodStart: number | null;
  periodEnd: number | null;
}

function coverageOf(series: DailyBalanceSeries[]): Coverage {
  const ranges = series.filter((s) => s.start !== null).map((s) => [s.start!, s.end!] as [number, number]);
  ranges.sort((a, b) => a[0] - b[0]);
  const coveredDays: number[] = [];
  let lastDay = -Infinity;
  for (const [a, b] of ranges) {
    for (let d = Math.max(a, lastDay + 1); d <= b; d++) coveredDays.push(d);
    if (b > lastDay) lastDay = b;
  }
  const n = coveredDays.length;
  return {
    coveredDays,
    months: monthsFromDays(n),
    periodStart: n ? coveredDays[0] : null,
    periodEnd: n ? coveredDays[n - 1] : null,
  };
}

function coverageSection(c: Coverage, statementCount: number): DealAnalysis['coverage'] {
  return {
    months_covered: c.months,
    days_covered: c.coveredDays.length,
    statement_count: statementCount,
    period_start: c.periodStart !== null ? dayToDate(c.periodStart) : null,
    period_end: c.periodEnd !== null ? dayToDate(c.periodEnd) : null,
  };
}

/**
 * The deal's daily balance: per account, the first statement (by period start) covering a day
 * wins; the deal's balance on a day is the sum over the accounts covering that day (integer cents).
 */
function dealDailyBalance(shapes: StatementShapes): Map<number, number> {
  const perAccountDay = new Map<string, Map<number, number>>();
  for (const si of shapes.byStart) {
    const sr = shapes.series[si];
    if (sr.start === null) continue;
    let m = perAccountDay.get(shapes.accounts[si]);
    if (!m) perAccountDay.set(shapes.accounts[si], (m = new Map()));
    sr.balances.forEach((b, k) => {
      const d = sr.start! + k;
      if (!m!.has(d)) m!.set(d, b);
    });
  }
  const dealDay = new Map<number, number>();
  for (const m of perAccountDay.values()) for (const [d, b] of m) dealDay.set(d, (dealDay.get(d) ?? 0) + cents(b));
  return dealDay;
}

/** The deal's daily balance figures, in integer cents. */
interface BalanceFigures {
  adb: number;
  min: number;
  max: number;
  negDays: number;
  lowDays: number;
  known: boolean;
}

function balanceFigures(dealDay: Map<number, number>, p: UnderwritingParams): BalanceFigures {
  let sum = 0;
  const low = cents(p.lowBalanceThreshold);
  const f: BalanceFigures = { adb: 0, min: Infinity, max: -Infinity, negDays: 0, lowDays: 0, known: dealDay.size > 0 };
  for (const b of dealDay.values()) {
    sum += b;
    if (b < f.min) f.min = b;
    if (b > f.max) f.max = b;
    if (b < 0) f.negDays++;
    if (b < low) f.lowDays++;
  }
  f.adb = divCents(sum, dealDay.size);
  return f;
}

/** Ending balance in cents: per account, the statement with the latest period end, summed. */
function endingBalance(statements: StatementInput[], shapes: StatementShapes, metrics: StatementMetrics[]): number {
  const { accounts, series } = shapes;
  const latestByAccount = new Map<string, number>();
  statements.forEach((_, si) => {
    const cur = latestByAccount.get(accounts[si]);
    if (cur === undefined || (series[si].end ?? -Infinity) >= (series[cur].end ?? -Infinity)) latestByAccount.set(accounts[si], si);
  });
  let ending = 0;
  for (const si of latestByAccount.values()) ending += cents(metrics[si].ending_balance ?? 0);
  return ending;
}

/** Calendar months over the span of covered and transaction days, looked up by day number. */
interface MonthGrid {
  spanStart: number;
  spanEnd: number;
  spanLen: number;
  /** month of each day of the span */
  monthIdx: Int32Array;
  months: MonthSummary[];
  /** per month, bit 1: has a covered day or a transaction, 2: an NSF fee, 4: an overdraft fee */
  has: Uint8Array;
}

function monthGrid(coveredDays: number[], flatDays: number[]): MonthGrid {
  let spanStart = coveredDays.length ? coveredDays[0] : Infinity;
  let spanEnd = coveredDays.length ? coveredDays[coveredDays.length - 1] : -Infinity;
  for (const d of flatDays) {
    if (d < spanStart) spanStart = d;
    if (d > spanEnd) spanEnd = d;
  }
  const spanLen = spanEnd >= spanStart ? spanEnd - spanStart + 1 : 0;
  const monthIdx = new Int32Array(spanLen);
  const months: MonthSummary[] = [];
  for (let k = 0; k < spanLen; k++) {
    const key = dayToDate(spanStart + k).slice(0, 7);
    if (!months.length || months[months.length - 1].month !== key) months.push(emptyMonth(key));
    monthIdx[k] = months.length - 1;
  }
  const has = new Uint8Array(months.length);
  for (const d of coveredDays) {
    months[monthIdx[d - spanStart]].days_covered++;
    has[monthIdx[d - spanStart]] |= 1;
  }
  return { spanStart, spanEnd, spanLen, monthIdx, months, has };
}

function emptyMonth(month: string): MonthSummary {
  return {
    month,
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
  };
}

/** Sums over the counted transactions: money in integer cents. */
interface DealTotals {
  deposits: number;
  withdrawals: number;
  revenue: number;
  opex: number;
  debt: number;
  largest: number;
  depositCount: number;
  withdrawalCount: number;
  nsfCount: number;
  odCount: number;
  flagged: number;
  nsfAmount: number;
  odAmount: number;
  /** an NSF or overdraft fee within nsfRecentDays of the as-of day */
  recentFee: boolean;
  buckets: BucketCounts;
  /** per day of the span, bit 1: a deposit, 2: a revenue deposit */
  dayFlags: Uint8Array;
}

/** Adds up the counted transactions, into the deal's totals and its months. */
function dealTotals(
  screened: DealTransaction[],
  flatDays: number[],
  grid: MonthGrid,
  asOf: number | null,
  p: UnderwritingParams,
): DealTotals {
  const r: DealTotals = {
    ...{ deposits: 0, withdrawals: 0, revenue: 0, opex: 0, debt: 0, largest: 0, depositCount: 0, withdrawalCount: 0 },
    ...{ nsfCount: 0, odCount: 0, flagged: 0, nsfAmount: 0, odAmount: 0, recentFee: false },
    buckets: emptyBucketCounts(),
    dayFlags: new Uint8Array(grid.spanLen),
  };
  for (let i = 0; i < screened.length; i++) {
    const t = screened[i];
    const rel = flatDays[i] - grid.spanStart;
    const mi = grid.monthIdx[rel];
    const m = grid.months[mi];
    grid.has[mi] |= 1;
    const c = cents(t.amount);
    if (c > 0) {
      r.deposits += c;
      r.depositCount++;
      r.dayFlags[rel] |= 1;
      m.deposits += c;
      m.deposit_count++;
      if (c > r.largest) r.largest = c;
      if (t.category === 'revenue') {
        r.revenue += c;
        m.revenue += c;
        r.dayFlags[rel] |= 2;
      }
    } else if (c < 0) {
      r.withdrawals -= c;
      r.withdrawalCount++;
      m.withdrawals -= c;
      if (t.category === 'operating_expense') r.opex -= c;
      else if (t.category === 'debt_service') r.debt -= c;
    }
    if (t.is_nsf_fee || t.is_overdraft_fee) {
      countFee(r, t, c, grid, mi);
      if (asOf !== null && asOf - flatDays[i] < p.nsfRecentDays) r.recentFee = true;
    }
    if (t.screening_bucket !== null) {
      r.flagged++;
      r.buckets[t.screening_bucket]++;
    }
  }
  return r;
}

function countFee(r: DealTotals, t: DealTransaction, c: number, grid: MonthGrid, mi: number): void {
  const m = grid.months[mi];
  if (t.is_nsf_fee) {
    r.nsfCount++;
    r.nsfAmount -= c;
    grid.has[mi] |= 2;
    m.nsf_count++;
  } else {
    r.odCount++;
    r.odAmount -= c;
    grid.has[mi] |= 4;
    m.overdraft_count++;
  }
}

/** Days with a deposit and with a revenue deposit (also per month). */
function depositDayCounts(grid: MonthGrid, dayFlags: Uint8Array): { depositDays: number; revenueDays: number } {
  let depositDays = 0;
  let revenueDays = 0;
  for (let k = 0; k < grid.spanLen; k++) {
    if (dayFlags[k] & 1) depositDays++;
    if (dayFlags[k] & 2) {
      revenueDays++;
      grid.months[grid.monthIdx[k]].revenue_deposit_days++;
    }
  }
  return { depositDays, revenueDays };
}

/** The months with a covered day or a transaction, with their balances (from the deal's daily series) and rates, rounded. */
function finishMonthly(grid: MonthGrid, dailyBalances: [number, number][]): MonthSummary[] {
  const monthBalance = new Map<number, { sum: number; n: number; last: number }>();
  for (const [d, b] of dailyBalances) {
    if (d < grid.spanStart || d > grid.spanEnd) continue;
    const mi = grid.monthIdx[d - grid.spanStart];
    const acc = monthBalance.get(mi) ?? { sum: 0, n: 0, last: 0 };
    acc.sum += b;
    acc.n++;
    acc.last = b;
    monthBalance.set(mi, acc);
  }
  for (const [mi, acc] of monthBalance) {
    grid.months[mi].ending_balance = fromCents(acc.last);
    grid.months[mi].avg_daily_balance = fromCents(divCents(acc.sum, acc.n));
  }
  const monthly = grid.months.filter((_, k) => grid.has[k] & 1);
  for (const m of monthly) {
    // revenue / days x 30.4375, and 30.4375 = 487 / 16: one exact integer quotient
    m.revenue_rate = fromCents(divCents(m.revenue * 487, m.days_covered * 16));
    m.deposits = fromCents(m.deposits);
    m.revenue = fromCents(m.revenue);
    m.withdrawals = fromCents(m.withdrawals);
  }
  return monthly;
}

/** The revenue rate of each month covered for 15 days or more (the revenue trend's input). */
function revenueRates(monthly: MonthSummary[]): FactorInputs['monthlyRevenueRates'] {
  return monthly
    .filter((m) => m.days_covered >= 15)
    .map((m) => ({ ordinal: Number(m.month.slice(0, 4)) * 12 + Number(m.month.slice(5, 7)) - 1, rate: m.revenue_rate }));
}

/** 7-day blocks of covered days, and those holding a revenue deposit. */
function weekBlockCounts(coveredDays: number[], grid: MonthGrid, dayFlags: Uint8Array): { blocks: number; withDeposit: number } {
  const isRevenueDay = (d: number) => d >= grid.spanStart && d <= grid.spanEnd && (dayFlags[d - grid.spanStart] & 2) !== 0;
  let blocks = 0;
  let withDeposit = 0;
  for (let k = 0; k < coveredDays.length; k += 7) {
    blocks++;
    for (let j = k; j < Math.min(k + 7, coveredDays.length); j++) {
      if (isRevenueDay(coveredDays[j])) {
        withDeposit++;
        break;
      }
    }
  }
  return { blocks, withDeposit };
}

/** What the cross-document check reads of each statement, those in another currency after the others. */
function crossDocStatements(
  statements: StatementInput[],
  excluded: StatementInput[],
  shapes: StatementShapes,
  metrics: StatementMetrics[],
): CrossDocStatement[] {
  const { series } = shapes;
  const out: CrossDocStatement[] = statements.map((s, si) => ({
    index: si,
    id: s.id ?? null,
    label: shapes.labels[si],
    account: shapes.accounts[si],
    start: series[si].start !== null ? dayToDate(series[si].start!) : null,
    end: series[si].end !== null ? dayToDate(series[si].end!) : null,
    openingBalance: s.openingBalance ?? null,
    closingBalance: s.closingBalance ?? null,
    reconciliationDifference: metrics[si].reconciliation_difference,
    currency: s.currency ?? null,
  }));
  excluded.forEach((s, k) => {
    const sr = dailyBalanceSeries(s, chronologicalOrder(s));
    const start = sr.start !== null ? dayToDate(sr.start) : null;
    const end = sr.end !== null ? dayToDate(sr.end!) : null;
    out.push({
      index: statements.length + k,
      id: s.id ?? null,
      label: `statement ${s.id ?? statements.length + k + 1} (${start ? `${start}..${end}` : 'undated'})`,
      account: `other-currency:${k}`,
      start,
      end,
      openingBalance: null,
      closingBalance: null,
      reconciliationDifference: null,
      currency: s.currency ?? null,
    });
  });
  return out;
}

/** Cash flow coverage: revenue less operating expenses over existing plus proposed monthly debt service. */
function cashFlowOf(
  totals: DealTotals,
  months: number,
  funding: number,
  avgMonthlyRevenue: number,
  p: UnderwritingParams,
): { monthlyDebt: number; section: DealAnalysis['cash_flow'] } {
  // monthly figures in whole cents, each rounded once; the ratio from those
  const monthlyDebt = divCents(totals.debt, months);
  const monthlyOpex = divCents(totals.opex, months);
  const proposed = cents(round2((funding * p.proposedFactorRate) / p.proposedTermMonths));
  const cfa = cents(avgMonthlyRevenue) - monthlyOpex;
  const cfcr = cfa / (monthlyDebt + proposed);
  return {
    monthlyDebt: fromCents(monthlyDebt),
    section: {
      monthly_revenue: avgMonthlyRevenue,
      monthly_operating_expenses: fromCents(monthlyOpex),
      cash_flow_available: fromCents(cfa),
      existing_monthly_debt_service: fromCents(monthlyDebt),
      proposed_monthly_payment: fromCents(proposed),
      cfcr: round2(cfcr),
    },
  };
}

function financialsOf(f: {
  totals: DealTotals;
  balances: BalanceFigures;
  ending: number;
  days: { depositDays: number; revenueDays: number };
  months: number;
  dealDays: number;
  p: UnderwritingParams;
}): DealAnalysis['financials'] {
  const { totals: t, balances: b } = f;
  return {
    avg_monthly_deposits: fromCents(divCents(t.deposits, f.months)),
    avg_monthly_revenue: fromCents(divCents(t.revenue, f.months)),
    avg_daily_balance: fromCents(b.adb),
    min_daily_balance: f.dealDays ? fromCents(b.min) : 0,
    max_daily_balance: f.dealDays ? fromCents(b.max) : 0,
    ending_balance: fromCents(f.ending),
    total_deposits: fromCents(t.deposits),
    total_withdrawals: fromCents(t.withdrawals),
    total_revenue: fromCents(t.revenue),
    net_cash_flow: fromCents(t.deposits - t.withdrawals),
    deposit_count: t.depositCount,
    withdrawal_count: t.withdrawalCount,
    deposit_frequency_per_month: round2(div(t.depositCount, f.months)),
    avg_deposit_amount: fromCents(divCents(t.deposits, t.depositCount)),
    largest_deposit: fromCents(t.largest),
    deposit_days: f.days.depositDays,
    revenue_deposit_days: f.days.revenueDays,
    negative_balance_days: b.negDays,
    low_balance_days: b.lowDays,
    low_balance_threshold: f.p.lowBalanceThreshold,
    total_operating_expenses: fromCents(t.opex),
    total_debt_service: fromCents(t.debt),
  };
}

function nsfOverdraftOf(t: DealTotals, grid: MonthGrid): DealAnalysis['nsf_overdraft'] {
  let nsfMonths = 0;
  let odMonths = 0;
  for (const h of grid.has) {
    if (h & 2) nsfMonths++;
    if (h & 4) odMonths++;
  }
  return {
    total_nsf_fees: t.nsfCount,
    total_overdraft_fees: t.odCount,
    nsf_months: nsfMonths,
    overdraft_months: odMonths,
    nsf_fee_amount: fromCents(t.nsfAmount),
    overdraft_fee_amount: fromCents(t.odAmount),
  };
}

function currencySummary(currency: string, all: StatementInput[], excluded: StatementInput[]): CurrencySummary {
  return {
    reporting_currency: currency,
    currencies: [...new Set([currency, ...all.map((s) => s.currency).filter((c): c is string => !!c)])].sort(),
    excluded_statement_ids: excluded.map((s) => s.id ?? null),
    unstated_statement_ids: all.filter((s) => !s.currency).map((s) => s.id ?? null),
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

/** Revenue by counterparty; totals in cents (totalRevenue too). */
function revenueSources(txs: DealTransaction[], totalRevenue: number): RevenueSource[] {
  const groups = new Map<string, { total: number; count: number; first: string; last: string }>();
  for (const t of txs) {
    if (t.amount <= 0 || t.category !== 'revenue') continue;
    const g = groups.get(t.counterparty);
    const c = cents(t.amount);
    if (!g) groups.set(t.counterparty, { total: c, count: 1, first: t.date, last: t.date });
    else {
      g.total += c;
      g.count++;
      if (t.date < g.first) g.first = t.date;
      if (t.date > g.last) g.last = t.date;
    }
  }
  return [...groups.entries()]
    .map(([counterparty, g]) => ({
      counterparty,
      total: fromCents(g.total),
      deposit_count: g.count,
      share_of_revenue: totalRevenue > 0 ? Math.round((g.total / totalRevenue) * 10000) / 10000 : 0,
      first_seen: g.first,
      last_seen: g.last,
    }))
    .sort((a, b) => b.total - a.total || a.counterparty.localeCompare(b.counterparty))
    .slice(0, REVENUE_SOURCE_LIMIT);
}
