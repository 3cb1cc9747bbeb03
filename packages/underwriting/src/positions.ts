import type { DescriptionFeatures } from './categorize';
import { PAYMENTS_PER_MONTH, type PaymentFrequency, classifyFrequency } from './frequency';
import { LENDER_DIRECTORY_VERSION, type LenderKind } from './lenders';
import type { DealTransaction, ScreenedTransaction } from './types';
import { cents, dayNumber, dayToDate, fromCents, median, round2 } from './util';

/** How a position began: the lender's first seen; a new funding deposit after an earlier one (renewal); a lasting change of payment (modification). */
export type PositionStart = 'new' | 'renewal' | 'modification';
export type PositionEvidenceRole = 'funding' | 'payment' | 'returned_payment' | 'return';

/** A transaction a position stands on. index = the transaction's index in the analysis (DealTransaction.index). */
export interface PositionEvidence {
  index: number;
  role: PositionEvidenceRole;
  date: string;
  amount: number;
  statement_id: string | number | null;
  statement_tx_index: number | null;
  /** the stored transaction's id: set by the server that stores the rows (null from the package alone) */
  transaction_id: string | number | null;
}

export interface LenderPosition {
  counterparty: string;
  /** true when the counterparty is a known funder name (otherwise found by recurrence or loan wording) */
  known_lender: boolean;
  /** the directory entry's id (or "org:<id>" for an organization's entry); null when found by recurrence */
  lender_id: string | null;
  lender_name: string | null;
  lender_kind: LenderKind | null;
  /** 1, 2, ... per counterparty in time order (a renewal or modification is a new position of the same lender) */
  sequence: number;
  start_reason: PositionStart;
  frequency: PaymentFrequency;
  payment_amount: number;
  /** payment debits, returned ones included */
  payment_count: number;
  /** sum of the payments, returned (bounced) ones left out */
  total_paid: number;
  first_seen: string;
  last_seen: string;
  estimated_monthly_total: number;
  /** estimated_monthly_total spread over 21.75 business days a month */
  estimated_daily_debit: number;
  /** estimated_monthly_total spread over 52/12 weeks a month */
  estimated_weekly_debit: number;
  /** estimated_monthly_total / average monthly deposits (fraction, 4 decimals); null without deposits */
  share_of_deposits: number | null;
  is_active: boolean;
  /** the deposit from the lender that started the position; null when none was seen */
  funding_amount: number | null;
  funding_date: string | null;
  /** funding_amount x factor rate (lender_positions.factor_rate); null without a funding deposit */
  estimated_payback: number | null;
  /** estimated_payback - total_paid, not below 0; null without a funding deposit */
  estimated_remaining_balance: number | null;
  /** expected payment days (by the cadence) between the first and last payment with no payment; null in reports stored before it was counted */
  missed_payments: number | null;
  /** payments followed within 10 days by a return of the same amount; null in reports stored before it was counted */
  bounced_payments: number | null;
  /** another position was being paid at some time in first_seen..last_seen; null in reports stored before it was marked */
  stacked: boolean | null;
  transactions: PositionEvidence[];
}

export interface LenderPositionSummary {
  positions: LenderPosition[];
  position_count: number;
  active_count: number;
  /** largest number of positions being paid at the same time (first_seen..last_seen intervals overlapping) */
  stacking_count: number;
  estimated_monthly_total: number;
  /** version of the lender directory the names were matched with; null in reports stored before the directory */
  directory_version: string | null;
  /** factor rate of the remaining-balance estimates, and whether it came from the params or the default (1.35); null in reports stored before */
  factor_rate: number | null;
  factor_rate_source: 'params' | 'default' | null;
}

export interface PositionOptions {
  /** as-of day (day number) for is_active */
  asOf: number;
  monthsCovered: number;
  avgMonthlyDeposits: number;
  positionActiveDays: number;
  /** keyword features per transaction (same order as the transactions): funding deposits are credits naming a funder */
  features?: DescriptionFeatures[];
  /** funding x factorRate = estimated payback (default 1.35) */
  factorRate?: number;
  factorRateSource?: 'params' | 'default';
  /** payments within this fraction of each other are one amount (default 0.05) */
  amountTolerance?: number;
  directoryVersion?: string;
}

const DEFAULT_FACTOR_RATE = 1.35;
/** a payment returned within this many days is bounced */
const BOUNCE_WINDOW_DAYS = 10;
/** a new payment amount must hold for this many payments to start a new position */
const LASTING_PAYMENTS = 3;
const RETURN_WORDS_RE = /\brevers|\breturn|\bunpaid\b|\bnsf\b/i;

/** One lender's money movements, in day order. */
interface LenderEvents {
  key: string;
  payments: number[];
  fundings: number[];
  /** payment index -> the credit that returned it */
  returns: Map<number, number>;
}

/** One position being built: its funding (if any) and payments. */
interface Segment {
  start: PositionStart;
  funding: number | null;
  payments: number[];
}

/**
 * Lender positions. Per counterparty: the debits flagged as lender payments (is_lender_payment)
 * and the credits naming a funder (funding deposits; a credit returning a payment of the same
 * amount within 10 days is a bounce, not a funding). A funding deposit starts a position, so does
 * a lasting change of the payment amount (3 payments at a new amount); the earlier position ends
 * there. payment_amount = median payment; estimated_monthly_total = payment_amount x payments per
 * month of the cadence (daily 21.75, weekly 4.3333, bi-weekly 2.1667, monthly 1); irregular =
 * total_paid / months covered.
 */
export function detectLenderPositions(txs: ScreenedTransaction[], o: PositionOptions): LenderPositionSummary {
  const factor = o.factorRate ?? DEFAULT_FACTOR_RATE;
  const positions: LenderPosition[] = [];
  for (const ev of lenderEvents(txs, o.features)) {
    const segments = splitSegments(txs, ev, o.amountTolerance ?? 0.05);
    segments.forEach((seg, k) => positions.push(positionOf(txs, ev, seg, k + 1, { ...o, factorRate: factor })));
  }
  positions.sort(
    (a, b) =>
      b.estimated_monthly_total - a.estimated_monthly_total || a.counterparty.localeCompare(b.counterparty) || a.sequence - b.sequence,
  );
  const stacking = markStacking(positions);
  return {
    positions,
    position_count: positions.length,
    active_count: positions.filter((p) => p.is_active).length,
    stacking_count: stacking,
    estimated_monthly_total: fromCents(positions.reduce((a, p) => a + cents(p.estimated_monthly_total), 0)),
    directory_version: o.directoryVersion ?? LENDER_DIRECTORY_VERSION,
    factor_rate: factor,
    factor_rate_source: o.factorRateSource ?? 'default',
  };
}

const dayOf = (t: ScreenedTransaction) => dayNumber(t.date);
const byDay = (txs: ScreenedTransaction[]) => (a: number, b: number) => dayOf(txs[a]) - dayOf(txs[b]) || a - b;

/** Payments and funding deposits grouped by counterparty; returned payments paired with their return. */
function lenderEvents(txs: ScreenedTransaction[], features: DescriptionFeatures[] | undefined): LenderEvents[] {
  const groups = new Map<string, LenderEvents>();
  const group = (key: string) => {
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { key, payments: [], fundings: [], returns: new Map() }));
    return g;
  };
  const creditsByCents = new Map<number, number[]>();
  for (let i = 0; i < txs.length; i++) {
    const t = txs[i];
    if (t.is_lender_payment && t.amount < 0) group(t.counterparty).payments.push(i);
    else if (t.amount > 0) {
      const c = cents(t.amount);
      const list = creditsByCents.get(c);
      if (list) list.push(i);
      else creditsByCents.set(c, [i]);
    }
  }
  const usedCredits = new Set<number>();
  for (const g of groups.values()) {
    g.payments.sort(byDay(txs));
    pairReturns(txs, g, creditsByCents, usedCredits, features);
  }
  if (features) {
    for (let i = 0; i < txs.length; i++) {
      const t = txs[i];
      const unnamedFunding = (t as Partial<DealTransaction>).revenue_rule === UNNAMED_FUNDING_RULE && groups.has(t.counterparty);
      if (t.amount > 0 && !usedCredits.has(i) && (features[i]?.lender || unnamedFunding) && t.category !== 'transfer')
        group(t.counterparty).fundings.push(i);
    }
  }
  for (const g of groups.values()) g.fundings.sort(byDay(txs));
  return [...groups.values()].sort((a, b) => a.key.localeCompare(b.key));
}

/** A payment is bounced when a credit of the same amount, reading as a return or naming the lender, follows within 10 days. */
function pairReturns(
  txs: ScreenedTransaction[],
  g: LenderEvents,
  creditsByCents: Map<number, number[]>,
  used: Set<number>,
  features: DescriptionFeatures[] | undefined,
): void {
  for (const p of g.payments) {
    const day = dayOf(txs[p]);
    const candidates = creditsByCents.get(-cents(txs[p].amount)) ?? [];
    const r = candidates.find((c) => {
      if (used.has(c)) return false;
      const gap = dayOf(txs[c]) - day;
      if (gap < 0 || gap > BOUNCE_WINDOW_DAYS) return false;
      const t = txs[c];
      return t.counterparty === g.key || !!features?.[c]?.returned || RETURN_WORDS_RE.test(t.description);
    });
    if (r !== undefined) {
      used.add(r);
      g.returns.set(p, r);
    }
  }
}

/** Payments the reference amount of a position is the median of (the latest ones kept, not returned). */
const REFERENCE_PAYMENTS = 5;

/** Splits a lender's payments into positions at funding deposits and lasting payment changes. */
function splitSegments(txs: ScreenedTransaction[], ev: LenderEvents, tol: number): Segment[] {
  const segments: Segment[] = [];
  let cur: Segment | null = null;
  let recent: number[] = [];
  let f = 0;
  const amount = (i: number) => -txs[i].amount;
  const order = byDay(txs);
  const open = (start: PositionStart, funding: number | null): Segment => {
    if (cur) segments.push(cur);
    cur = { start: cur ? start : 'new', funding, payments: [] };
    recent = [];
    return cur;
  };
  const ps = ev.payments;
  for (let k = 0; k < ps.length; k++) {
    while (f < ev.fundings.length && order(ev.fundings[f], ps[k]) < 0) open('renewal', ev.fundings[f++]);
    let seg: Segment = cur ?? open('new', null);
    const returned = ev.returns.has(ps[k]);
    if (recent.length && !returned && lastingChange(ps, k, median(recent), amount, ev, tol)) seg = open('modification', null);
    seg.payments.push(ps[k]);
    if (!returned) {
      recent.push(amount(ps[k]));
      if (recent.length > REFERENCE_PAYMENTS) recent.shift();
    }
  }
  while (f < ev.fundings.length) open('renewal', ev.fundings[f++]);
  if (cur) segments.push(cur);
  return segments;
}

/** Payment k differs from the reference by more than tol, and the next payments (returned ones skipped) keep its amount. */
function lastingChange(ps: number[], k: number, ref: number, amount: (i: number) => number, ev: LenderEvents, tol: number): boolean {
  const a = amount(ps[k]);
  if (Math.abs(a - ref) <= tol * ref) return false;
  let kept = 0;
  for (let j = k + 1; j < ps.length && kept < LASTING_PAYMENTS - 1; j++) {
    if (ev.returns.has(ps[j])) continue;
    if (Math.abs(amount(ps[j]) - a) > tol * a) return false;
    kept++;
  }
  return kept === LASTING_PAYMENTS - 1;
}

/** Expected payment days with no payment: weekdays between daily payments; whole missed periods otherwise. */
function missedPayments(days: number[], freq: PaymentFrequency): number {
  let missed = 0;
  for (let i = 1; i < days.length; i++) {
    const gap = days[i] - days[i - 1];
    if (freq === 'daily') {
      for (let d = days[i - 1] + 1; d < days[i]; d++) {
        const weekday = (((d + 4) % 7) + 7) % 7;
        if (weekday >= 1 && weekday <= 5) missed++;
      }
    } else if (freq !== 'irregular') {
      const period = freq === 'weekly' ? 7 : freq === 'biweekly' ? 14 : 365.25 / 12;
      missed += Math.max(0, Math.round(gap / period) - 1);
    }
  }
  return missed;
}

function evidence(t: ScreenedTransaction, role: PositionEvidenceRole): PositionEvidence {
  const deal =
    'statement_tx_index' in t ? (t as ScreenedTransaction & { statement_id: string | number | null; statement_tx_index: number }) : null;
  return {
    index: t.index,
    role,
    date: t.date,
    amount: t.amount,
    statement_id: deal ? deal.statement_id : null,
    statement_tx_index: deal ? deal.statement_tx_index : null,
    transaction_id: null,
  };
}

function positionOf(
  txs: ScreenedTransaction[],
  ev: LenderEvents,
  seg: Segment,
  sequence: number,
  o: PositionOptions & { factorRate: number },
): LenderPosition {
  const kept = seg.payments.filter((i) => !ev.returns.has(i));
  const amounts = kept.map((i) => -txs[i].amount);
  const payment = amounts.length ? median(amounts) : 0;
  const total = fromCents(amounts.reduce((a, b) => a + cents(b), 0));
  const days = [...new Set(seg.payments.map((i) => dayOf(txs[i])))].sort((a, b) => a - b);
  const freq = classifyFrequency(days);
  const monthly = freq === 'irregular' ? (o.monthsCovered > 0 ? total / o.monthsCovered : total) : payment * PAYMENTS_PER_MONTH[freq];
  const fundingTx = seg.funding !== null ? txs[seg.funding] : null;
  const allDays = fundingTx ? [dayOf(fundingTx), ...days] : days;
  const first = Math.min(...allDays);
  const last = Math.max(...allDays);
  const match =
    [seg.funding, ...seg.payments].map((i) => (i === null ? null : (o.features?.[i]?.lenderMatch ?? null))).find((m) => m?.is_funder) ??
    null;
  const payback = fundingTx ? fundingTx.amount * o.factorRate : null;
  return {
    counterparty: ev.key,
    known_lender: match !== null,
    lender_id: match?.id ?? null,
    lender_name: match?.name ?? null,
    lender_kind: match?.kind ?? null,
    sequence,
    start_reason: seg.start,
    frequency: freq,
    payment_amount: round2(payment),
    payment_count: seg.payments.length,
    total_paid: round2(total),
    first_seen: dayToDate(first),
    last_seen: dayToDate(last),
    estimated_monthly_total: round2(monthly),
    estimated_daily_debit: round2(monthly / PAYMENTS_PER_MONTH.daily),
    estimated_weekly_debit: round2(monthly / PAYMENTS_PER_MONTH.weekly),
    share_of_deposits: o.avgMonthlyDeposits > 0 ? Math.round((monthly / o.avgMonthlyDeposits) * 10000) / 10000 : null,
    is_active: o.asOf - last <= o.positionActiveDays,
    funding_amount: fundingTx ? round2(fundingTx.amount) : null,
    funding_date: fundingTx ? fundingTx.date : null,
    estimated_payback: payback !== null ? round2(payback) : null,
    estimated_remaining_balance: payback !== null ? round2(Math.max(0, payback - total)) : null,
    missed_payments: missedPayments(days, freq),
    bounced_payments: seg.payments.length - kept.length,
    stacked: false,
    transactions: positionEvidence(txs, ev, seg),
  };
}

function positionEvidence(txs: ScreenedTransaction[], ev: LenderEvents, seg: Segment): PositionEvidence[] {
  const out: PositionEvidence[] = [];
  if (seg.funding !== null) out.push(evidence(txs[seg.funding], 'funding'));
  for (const i of seg.payments) {
    const r = ev.returns.get(i);
    out.push(evidence(txs[i], r === undefined ? 'payment' : 'returned_payment'));
    if (r !== undefined) out.push(evidence(txs[r], 'return'));
  }
  return out.sort((a, b) => a.date.localeCompare(b.date) || a.index - b.index);
}

/** Largest number of positions open at once (sweep over first_seen..last_seen); marks the positions that overlap another. */
function markStacking(positions: LenderPosition[]): number {
  const span = positions.map((p) => [dayNumber(p.first_seen), dayNumber(p.last_seen)] as const);
  for (let a = 0; a < positions.length; a++) {
    for (let b = a + 1; b < positions.length; b++) {
      if (span[a][0] <= span[b][1] && span[b][0] <= span[a][1]) positions[a].stacked = positions[b].stacked = true;
    }
  }
  const events: [number, number][] = [];
  for (const [s, e] of span) events.push([s, 1], [e + 1, -1]);
  events.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  let cur = 0;
  let stacking = 0;
  for (const [, d] of events) {
    cur += d;
    if (cur > stacking) stacking = cur;
  }
  return stacking;
}

/** The rule of a deposit from a lender no name list knows, whose repayments follow it. */
export const UNNAMED_FUNDING_RULE = 'funding from a lender its recurring payments go to (no name list knows it)';

/**
 * A lump credit from a counterparty the deal pays as a lender (at least 3 lender payments found by
 * recurrence), at least 5 times its typical payment and not after its last payment, is that lender's
 * funding: loan proceeds, not revenue, even when no name list knows the lender. A class a person set
 * (`overridden`) is left as it is. Runs on the deal's screened rows, before any figure is summed.
 */
export function markUnnamedFundings(screened: DealTransaction[], overridden: Uint8Array): void {
  const lenders = new Map<string, { amounts: number[]; last: number }>();
  for (const t of screened) {
    if (!t.is_lender_payment || t.amount >= 0 || t.counterparty === 'unknown') continue;
    const g = lenders.get(t.counterparty) ?? { amounts: [], last: -Infinity };
    g.amounts.push(-t.amount);
    g.last = Math.max(g.last, dayNumber(t.date));
    lenders.set(t.counterparty, g);
  }
  screened.forEach((t, i) => {
    const g = lenders.get(t.counterparty);
    if (!g || t.amount <= 0 || overridden[i] || t.revenue_class !== 'revenue' || g.amounts.length < 3) return;
    if (t.amount < 5 * median(g.amounts) || dayNumber(t.date) > g.last) return;
    t.category = 'non_revenue';
    t.revenue_class = 'loan_proceeds';
    t.revenue_rule = UNNAMED_FUNDING_RULE;
    t.is_cash_deposit = false;
  });
}
