import { matchKnownLender } from './categorize';
import { PAYMENTS_PER_MONTH, type PaymentFrequency, classifyFrequency } from './frequency';
import type { ScreenedTransaction } from './types';
import { dayNumber, dayToDate, median, round2 } from './util';

export interface LenderPosition {
  counterparty: string;
  /** true when the counterparty is a known funder name (otherwise found by recurrence or loan wording) */
  known_lender: boolean;
  frequency: PaymentFrequency;
  payment_amount: number;
  payment_count: number;
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
}

export interface LenderPositionSummary {
  positions: LenderPosition[];
  position_count: number;
  active_count: number;
  /** largest number of positions being paid at the same time (first_seen..last_seen intervals overlapping) */
  stacking_count: number;
  estimated_monthly_total: number;
}

export interface PositionOptions {
  /** as-of day (day number) for is_active */
  asOf: number;
  monthsCovered: number;
  avgMonthlyDeposits: number;
  positionActiveDays: number;
}

/**
 * Group lender payments (is_lender_payment) by counterparty into positions.
 * payment_amount = median payment; estimated_monthly_total = payment_amount x payments per month
 * of the cadence (daily 21.75, weekly 4.3333, bi-weekly 2.1667, monthly 1); irregular =
 * total_paid / months covered.
 */
export function detectLenderPositions(txs: ScreenedTransaction[], o: PositionOptions): LenderPositionSummary {
  const groups = new Map<string, ScreenedTransaction[]>();
  for (const t of txs) {
    if (!t.is_lender_payment) continue;
    const g = groups.get(t.counterparty);
    if (g) g.push(t);
    else groups.set(t.counterparty, [t]);
  }
  const positions: LenderPosition[] = [];
  for (const [cp, g] of groups) {
    const days = [...new Set(g.map((t) => dayNumber(t.date)))].sort((a, b) => a - b);
    const amounts = g.map((t) => -t.amount);
    const payment = median(amounts);
    const total = amounts.reduce((a, b) => a + b, 0);
    const freq = classifyFrequency(days);
    const monthly = freq === 'irregular' ? (o.monthsCovered > 0 ? total / o.monthsCovered : total) : payment * PAYMENTS_PER_MONTH[freq];
    const last = days[days.length - 1];
    positions.push({
      counterparty: cp,
      known_lender: g.some((t) => matchKnownLender(t.description) !== null),
      frequency: freq,
      payment_amount: round2(payment),
      payment_count: g.length,
      total_paid: round2(total),
      first_seen: dayToDate(days[0]),
      last_seen: dayToDate(last),
      estimated_monthly_total: round2(monthly),
      estimated_daily_debit: round2(monthly / PAYMENTS_PER_MONTH.daily),
      estimated_weekly_debit: round2(monthly / PAYMENTS_PER_MONTH.weekly),
      share_of_deposits: o.avgMonthlyDeposits > 0 ? Math.round((monthly / o.avgMonthlyDeposits) * 10000) / 10000 : null,
      is_active: o.asOf - last <= o.positionActiveDays,
    });
  }
  positions.sort((a, b) => b.estimated_monthly_total - a.estimated_monthly_total || a.counterparty.localeCompare(b.counterparty));
  // sweep over interval starts/ends for the largest overlap
  const events: [number, number][] = [];
  for (const p of positions) {
    events.push([dayNumber(p.first_seen), 1]);
    events.push([dayNumber(p.last_seen) + 1, -1]);
  }
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let cur = 0;
  let stacking = 0;
  for (const [, d] of events) {
    cur += d;
    if (cur > stacking) stacking = cur;
  }
  return {
    positions,
    position_count: positions.length,
    active_count: positions.filter((p) => p.is_active).length,
    stacking_count: stacking,
    estimated_monthly_total: round2(positions.reduce((a, p) => a + p.estimated_monthly_total, 0)),
  };
}
