import { type DescriptionFeatures, descriptionFeatures } from './categorize';
import { classifyFrequency } from './frequency';
import type { LenderKind, LenderMatcher } from './lenders';

/** Kinds of names whose steady debits are never a position by recurrence alone (a bank's may be a loan). */
const NO_RECURRENCE_KINDS: ReadonlySet<LenderKind> = new Set<LenderKind>([
  'fintech_bank',
  'card',
  'processor',
  'payroll',
  'broker',
  'other',
  'not_lender',
]);
import { type UnderwritingParams, resolveParams } from './params';
import type {
  DealTransaction,
  RevenueClass,
  ScreenedTransaction,
  ScreeningBucket,
  StatementTransactionInput,
  TransactionCategory,
} from './types';
import { SCREENING_BUCKETS } from './types';
import { cents, dayNumber, formatMoney, median } from './util';

export interface ScreenContext {
  /** Group id per transaction (e.g. statement index): duplicates are only looked for inside a group. */
  groups?: ArrayLike<number>;
  /** Categories decided by the caller (e.g. own-account transfers matched across statements); computed when absent. */
  categories?: (TransactionCategory | undefined)[];
  /** keyword features per transaction (see descriptionFeatures), when the caller has them already */
  features?: DescriptionFeatures[];
  /** when given, rows also carry the deal fields (statement_index, ...), i.e. are DealTransaction objects */
  deal?: {
    statementIndex: ArrayLike<number>;
    statementId: (string | number | null)[];
    statementTxIndex: ArrayLike<number>;
    index?: ArrayLike<number>;
    /** each deposit's revenue class, rule and cash flag (docs/revenue.md) */
    revenue?: { classes: (RevenueClass | null)[]; rules: (string | null)[]; cash: Uint8Array };
  };
  /** the lender names to match (the organization's entries and the directory); the directory alone when absent */
  lenders?: LenderMatcher;
  /** day numbers of the transactions (see dayNumber), when the caller has them already */
  days?: ArrayLike<number>;
}

const BUCKET_BIT = Object.fromEntries(SCREENING_BUCKETS.map((b, k) => [b, k])) as Record<ScreeningBucket, number>;
const SUSPICIOUS_MASK = (
  ['returned_item', 'duplicate_transaction', 'gambling', 'large_unusual_deposit', 'round_number_deposit', 'cash_withdrawal'] as const
).reduce((a, b) => a | (1 << BUCKET_BIT[b]), 0);

/** The buckets matched so far: bit k of mask[i] = SCREENING_BUCKETS[k], with its reason text. */
interface Matches {
  mask: Uint16Array;
  /** reason text per matched bucket, built only for flagged transactions */
  reasons: (string[] | undefined)[];
}

function flag(m: Matches, i: number, bucket: ScreeningBucket, reason: string): void {
  const bit = BUCKET_BIT[bucket];
  if (m.mask[i] & (1 << bit)) return;
  m.mask[i] |= 1 << bit;
  (m.reasons[i] ??= new Array(SCREENING_BUCKETS.length))[bit] = reason;
}

/** What the steps of one screening share. */
interface Screen {
  p: UnderwritingParams;
  out: ScreenedTransaction[];
  feats: DescriptionFeatures[];
  matches: Matches;
  dayOf: ArrayLike<number>;
  centsOf: number[];
}

/**
 * Categorise and screen a list of transactions together (the median deposit and recurring series
 * are computed over the whole list). Pure and deterministic; output order = input order.
 */
export function screenTransactions(
  transactions: StatementTransactionInput[],
  params?: Partial<UnderwritingParams>,
  ctx: ScreenContext = {},
): ScreenedTransaction[] {
  const p = resolveParams(params);
  const n = transactions.length;
  const matches: Matches = { mask: new Uint16Array(n), reasons: new Array(n) };
  const { out, feats } = categorizeRows(transactions, ctx, matches);
  flagDepositsAndKeywords(out, feats, p, matches);
  const s: Screen = { p, out, feats, matches, dayOf: ctx.days ?? dayNumbers(transactions), centsOf: out.map((t) => cents(t.amount)) };
  flagDuplicates(s, ctx.groups);
  const cpGroups = debitsByCounterparty(out);
  flagRepeatCharges(s, cpGroups);
  flagLenderPayments(s, cpGroups);
  settleBuckets(out, matches);
  return out;
}

function dayNumbers(transactions: StatementTransactionInput[]): Int32Array {
  const a = new Int32Array(transactions.length);
  for (let i = 0; i < transactions.length; i++) a[i] = dayNumber(transactions[i].date);
  return a;
}

/** Step 1: category, counterparty and fee flags of each transaction. */
function categorizeRows(
  transactions: StatementTransactionInput[],
  ctx: ScreenContext,
  matches: Matches,
): { out: ScreenedTransaction[]; feats: DescriptionFeatures[] } {
  const n = transactions.length;
  const out: ScreenedTransaction[] = new Array(n);
  const feats: DescriptionFeatures[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const tx = transactions[i];
    const amount = tx.amount;
    const f = ctx.features?.[i] ?? descriptionFeatures(tx.description ?? '', ctx.lenders);
    feats[i] = f;
    const category = ctx.categories?.[i] ?? (amount > 0 ? f.creditCategory.category : amount < 0 ? f.debitCategory.category : 'other');
    out[i] = newRow(tx, i, category, f, ctx.deal);
    if (out[i].is_nsf_fee) flag(matches, i, 'nsf_fee', `NSF (insufficient funds) fee of ${formatMoney(-amount)}`);
    if (out[i].is_overdraft_fee) flag(matches, i, 'overdraft_fee', `Overdraft fee of ${formatMoney(-amount)}`);
  }
  return { out, feats };
}

/** One unscreened row: a DealTransaction when the deal fields are given. */
function newRow(
  tx: StatementTransactionInput,
  i: number,
  category: TransactionCategory,
  f: DescriptionFeatures,
  deal: ScreenContext['deal'],
): ScreenedTransaction {
  const amount = tx.amount;
  const d = tx.description ?? '';
  const isDebit = amount < 0;
  const isNsf = isDebit && f.nsf;
  const isOd = isDebit && f.overdraft;
  const transactionType = amount < 0 ? 'debit' : amount > 0 ? 'credit' : (tx.transactionType ?? 'credit');
  const balance = tx.balance ?? null;
  // Two literal shapes on purpose: building one from the other with a spread made analyzeDeal
  // ten times slower (bench:underwriting, 12 x 2,000 transactions: ~40 ms -> ~520 ms).
  return deal
    ? ({
        index: deal.index ? deal.index[i] : i,
        date: tx.date,
        description: d,
        amount,
        balance,
        transaction_type: transactionType,
        category,
        counterparty: f.counterparty,
        is_nsf_fee: isNsf,
        is_overdraft_fee: isOd,
        is_large_deposit: false,
        is_large_strange: false,
        is_repeat_charge: false,
        is_suspicious: false,
        is_lender_payment: false,
        screening_bucket: null,
        flag_reason: null,
        statement_index: deal.statementIndex[i],
        statement_id: deal.statementId[i],
        statement_tx_index: deal.statementTxIndex[i],
        counted: true,
        revenue_class: deal.revenue ? deal.revenue.classes[i] : null,
        revenue_rule: deal.revenue ? deal.revenue.rules[i] : null,
        is_cash_deposit: deal.revenue ? deal.revenue.cash[i] === 1 : false,
      } satisfies DealTransaction as ScreenedTransaction)
    : {
        index: i,
        date: tx.date,
        description: d,
        amount,
        balance,
        transaction_type: transactionType,
        category,
        counterparty: f.counterparty,
        is_nsf_fee: isNsf,
        is_overdraft_fee: isOd,
        is_large_deposit: false,
        is_large_strange: false,
        is_repeat_charge: false,
        is_suspicious: false,
        is_lender_payment: false,
        screening_bucket: null,
        flag_reason: null,
      };
}

/** Step 2: large and round deposits (relative to the median deposit, transfers excluded), returned items, gambling, cash. */
function flagDepositsAndKeywords(out: ScreenedTransaction[], feats: DescriptionFeatures[], p: UnderwritingParams, matches: Matches): void {
  const deposits: number[] = [];
  for (const t of out) if (t.amount > 0 && t.category !== 'transfer') deposits.push(t.amount);
  const med = deposits.length >= p.largeDepositMinSample ? median(deposits) : 0;
  const roundUnit = cents(p.roundDepositMultiple);
  for (let i = 0; i < out.length; i++) {
    const t = out[i];
    if (t.amount > 0 && t.category !== 'transfer') {
      const known = feats[i].knownRevenue;
      if (med > 0 && t.amount >= p.largeDepositMultiple * med && t.amount >= p.largeDepositMinAmount) {
        t.is_large_deposit = true;
        if (!known) {
          t.is_large_strange = true;
          flag(
            matches,
            i,
            'large_unusual_deposit',
            `Deposit of ${formatMoney(t.amount)} is ${(t.amount / med).toFixed(1)}x the median deposit (${formatMoney(med)}) and not from a known revenue source`,
          );
        }
      }
      if (!known && t.amount >= p.roundDepositMinAmount && roundUnit > 0 && cents(t.amount) % roundUnit === 0) {
        flag(matches, i, 'round_number_deposit', `Round-number deposit of ${formatMoney(t.amount)} from an unidentified source`);
      }
    }
    if (!t.is_nsf_fee && !t.is_overdraft_fee && feats[i].returned) {
      flag(matches, i, 'returned_item', t.amount < 0 ? 'Returned item: a deposited item came back unpaid' : 'Returned or reversed item');
    }
    if (feats[i].gambling) {
      flag(matches, i, 'gambling', 'Gambling-related transaction');
    }
    if (t.amount < 0 && -t.amount >= p.cashWithdrawalMinAmount && feats[i].cashWithdrawal) {
      flag(matches, i, 'cash_withdrawal', `Cash withdrawal of ${formatMoney(-t.amount)}`);
    }
  }
}

/**
 * Step 3: duplicates: same group, day, amount and description; the 2nd and later copies are flagged.
 * Candidates are ordered by (group, day, input position) and compared within each day.
 */
function flagDuplicates(s: Screen, groups: ArrayLike<number> | undefined): void {
  const { out, dayOf, p } = s;
  const groupOf = (i: number) => (groups ? groups[i] : 0);
  const cand: number[] = [];
  let ordered = true;
  for (let i = 0; i < out.length; i++) {
    if (Math.abs(out[i].amount) < p.duplicateMinAmount) continue;
    if (cand.length) {
      const j = cand[cand.length - 1];
      if (groupOf(i) < groupOf(j) || (groupOf(i) === groupOf(j) && dayOf[i] < dayOf[j])) ordered = false;
    }
    cand.push(i);
  }
  if (!ordered) cand.sort((a, b) => groupOf(a) - groupOf(b) || dayOf[a] - dayOf[b] || a - b);
  for (let r = 0; r < cand.length;) {
    let e = r + 1;
    const g0 = groupOf(cand[r]);
    while (e < cand.length && dayOf[cand[e]] === dayOf[cand[r]] && groupOf(cand[e]) === g0) e++;
    const same = e - r < 2 ? null : repeatedCents(cand, r, e, s.centsOf);
    if (same) flagSameDayCopies(s, cand, r, e, same);
    r = e;
  }
}

/** For each amount seen twice or more in one day's candidates: a copy of an earlier description is a duplicate. */
function flagSameDayCopies(s: Screen, cand: number[], r: number, e: number, same: number[]): void {
  for (const c of same) {
    const members: number[] = [];
    for (let x = r; x < e; x++) if (s.centsOf[cand[x]] === c) members.push(cand[x]);
    members.sort((a, b) => a - b);
    for (let x = 1; x < members.length; x++) {
      for (let y = 0; y < x; y++) {
        if (sameText(s.out[members[y]].description, s.out[members[x]].description)) {
          flag(
            s.matches,
            members[x],
            'duplicate_transaction',
            'Possible duplicate: same day, amount and description as an earlier transaction',
          );
          break;
        }
      }
    }
  }
}

/** Debits (fees and transfers left out) grouped by counterparty, in input order. */
function debitsByCounterparty(out: ScreenedTransaction[]): Map<string, number[]> {
  const cpGroups = new Map<string, number[]>();
  for (let i = 0; i < out.length; i++) {
    const t = out[i];
    if (t.amount >= 0 || t.is_nsf_fee || t.is_overdraft_fee || t.category === 'transfer') continue;
    const g = cpGroups.get(t.counterparty);
    if (g) g.push(i);
    else cpGroups.set(t.counterparty, [i]);
  }
  return cpGroups;
}

/** Step 4: repeat charges: same counterparty and amount (to the cent), at least repeatChargeMinOccurrences debits. */
function flagRepeatCharges(s: Screen, cpGroups: Map<string, number[]>): void {
  const { out, centsOf, p } = s;
  for (const idx of cpGroups.values()) {
    if (idx.length < p.repeatChargeMinOccurrences) continue;
    const order = byAmountThenPosition(idx, centsOf);
    const m = order.length;
    for (let r = 0; r < m;) {
      let e = r + 1;
      while (e < m && centsOf[order[e]] === centsOf[order[r]]) e++;
      if (e - r >= p.repeatChargeMinOccurrences) {
        const count = e - r;
        const t0 = out[order[r]];
        const reason = `Repeated charge: ${count} debits of ${formatMoney(-t0.amount)} to '${t0.counterparty}'`;
        for (let k = r; k < e; k++) {
          out[order[k]].is_repeat_charge = true;
          flag(s.matches, order[k], 'repeat_charge', reason);
        }
      }
      r = e;
    }
  }
}

/** Debit positions by amount (largest debit first), then position. */
function byAmountThenPosition(idx: number[], centsOf: number[]): number[] {
  // sort (cents, position) packed in one float: -cents < 2^32, position < 2^21
  const m = idx.length;
  const packed = new Float64Array(m);
  let packable = m < 2 ** 21;
  for (let k = 0; k < m && packable; k++) {
    const c = -centsOf[idx[k]];
    if (c >= 2 ** 32) packable = false;
    packed[k] = c * 2 ** 21 + k;
  }
  const order: number[] = new Array(m);
  if (packable) {
    packed.sort();
    for (let k = 0; k < m; k++) order[k] = idx[packed[k] % 2 ** 21];
  } else {
    for (let k = 0; k < m; k++) order[k] = idx[k];
    order.sort((a, b) => centsOf[b] - centsOf[a] || a - b);
  }
  return order;
}

/** Step 5: lender (MCA / loan) payments: per counterparty, by lender name or by the recurrence itself. */
function flagLenderPayments(s: Screen, cpGroups: Map<string, number[]>): void {
  for (const idx of cpGroups.values()) {
    const cp = s.out[idx[0]].counterparty;
    const why = lenderEvidence(s, idx, cp);
    if (!why) continue;
    for (const i of idx) {
      const t = s.out[i];
      t.is_lender_payment = true;
      t.category = 'debt_service';
      flag(s.matches, i, 'mca_payment', `Payment to lender '${cp}' (${why})`);
    }
  }
}

/** Why one counterparty's debits are lender payments; '' when they are not. */
function lenderEvidence(s: Screen, idx: number[], cp: string): string {
  const { out, feats, p } = s;
  if (idx.some((i) => feats[i].lender !== null)) return 'known lender';
  if (idx.length >= 2 && idx.some((i) => feats[i].genericLender)) return 'loan or advance payments';
  if (idx.length < p.mcaMinOccurrences || feats[idx[0]].opex || cp === 'unknown') return '';
  // a name known as no lender (card issuer, processor, payroll, fintech account, marked so by the organization) recurs for other reasons
  if (idx.some((i) => NO_RECURRENCE_KINDS.has(feats[i].lenderMatch?.kind as LenderKind))) return '';
  // cheap pre-check: a steady series has max - min <= 2 x tolerance x median <= 2 x tolerance x max
  let lo = Infinity;
  let hi = -Infinity;
  for (const i of idx) {
    const a = -out[i].amount;
    if (a < lo) lo = a;
    if (a > hi) hi = a;
  }
  if (hi - lo > 2 * p.mcaAmountTolerance * hi) return '';
  const amounts = idx.map((i) => -out[i].amount);
  const m = median(amounts);
  if (!amounts.every((a) => Math.abs(a - m) <= p.mcaAmountTolerance * m)) return '';
  const days = [...new Set(idx.map((i) => s.dayOf[i]))].sort((a, b) => a - b);
  const freq = classifyFrequency(days);
  return freq === 'daily' || freq === 'weekly' ? `${freq} recurring debits of a steady amount` : '';
}

/** Step 6: bucket = highest-priority match; suspicious = any of the risk buckets; reasons in priority order. */
function settleBuckets(out: ScreenedTransaction[], matches: Matches): void {
  for (let i = 0; i < out.length; i++) {
    const m = matches.mask[i];
    if (m === 0) continue;
    const t = out[i];
    let k = 0;
    while (!(m & (1 << k))) k++;
    t.screening_bucket = SCREENING_BUCKETS[k];
    t.is_suspicious = (m & SUSPICIOUS_MASK) !== 0;
    t.flag_reason = (matches.reasons[i] as string[]).filter((r) => r !== undefined).join('; ');
  }
}

let scratch = new Float64Array(64);
/** amounts (cents) occurring at least twice among cand[r..e), or null (sorts a scratch copy) */
function repeatedCents(cand: number[], r: number, e: number, centsOf: number[]): number[] | null {
  const len = e - r;
  if (scratch.length < len) scratch = new Float64Array(len * 2);
  const sub = scratch.subarray(0, len);
  for (let k = 0; k < len; k++) sub[k] = centsOf[cand[r + k]];
  sub.sort();
  let found: number[] | null = null;
  for (let k = 1; k < len; k++) {
    if (sub[k] === sub[k - 1] && (k < 2 || sub[k - 2] !== sub[k])) (found ??= []).push(sub[k]);
  }
  return found;
}

function sameText(a: string, b: string): boolean {
  return a === b || a.trim().toLowerCase().replace(/\s+/g, ' ') === b.trim().toLowerCase().replace(/\s+/g, ' ');
}

export function emptyBucketCounts(): Record<ScreeningBucket, number> {
  const r = {} as Record<ScreeningBucket, number>;
  for (const b of SCREENING_BUCKETS) r[b] = 0;
  return r;
}
