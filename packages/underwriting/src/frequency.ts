import { median } from './util';

export type PaymentFrequency = 'daily' | 'weekly' | 'biweekly' | 'monthly' | 'irregular';

/**
 * Cadence of a payment series from the median gap (days) between consecutive distinct payment days:
 * <= 3 daily (business-day debits leave 3-day weekend gaps), 5-9 weekly, 12-16 bi-weekly,
 * 26-35 monthly, anything else (or fewer than 2 payment days) irregular.
 */
export function classifyFrequency(sortedDistinctDays: number[]): PaymentFrequency {
  if (sortedDistinctDays.length < 2) return 'irregular';
  const gaps: number[] = [];
  for (let i = 1; i < sortedDistinctDays.length; i++) gaps.push(sortedDistinctDays[i] - sortedDistinctDays[i - 1]);
  const g = median(gaps);
  if (g <= 3) return 'daily';
  if (g >= 5 && g <= 9) return 'weekly';
  if (g >= 12 && g <= 16) return 'biweekly';
  if (g >= 26 && g <= 35) return 'monthly';
  return 'irregular';
}

/** Payments per month for each cadence: 21.75 business days (261/12), 52/12 weeks, 26/12 fortnights, 1. */
export const PAYMENTS_PER_MONTH: Record<Exclude<PaymentFrequency, 'irregular'>, number> = {
  daily: 261 / 12,
  weekly: 52 / 12,
  biweekly: 26 / 12,
  monthly: 1,
};
