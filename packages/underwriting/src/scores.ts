import type { UnderwritingParams } from './params';
import { clamp, round2 } from './util';

/** Inputs of the factor formulas, all already computed at deal level. */
export interface FactorInputs {
  fundingRequested: number;
  monthsCovered: number;
  daysCovered: number;
  avgMonthlyDeposits: number;
  avgMonthlyRevenue: number;
  avgDailyBalance: number;
  endingBalance: number;
  lowBalanceDays: number;
  negativeBalanceDays: number;
  nsfOverdraftEvents: number;
  /** true when an NSF/overdraft fee is dated fewer than nsfRecentDays days before the as-of date */
  recentNsfOverdraft: boolean;
  revenueDepositDays: number;
  /** revenue per month normalised to a full month, months with >= 15 covered days, oldest first */
  monthlyRevenueRates: { ordinal: number; rate: number }[];
  monthlyDebtService: number;
  transactionCount: number;
  flaggedCount: number;
  /** number of 7-day blocks of covered days, and how many hold a revenue deposit */
  weekBlocks: number;
  weekBlocksWithDeposit: number;
  crossDocScore: number;
}

export type HealthFactor = 'revenue' | 'balance_health' | 'nsf_overdraft' | 'deposit_frequency' | 'revenue_trend' | 'debt_service';
export const HEALTH_FACTORS: readonly HealthFactor[] = [
  'revenue',
  'balance_health',
  'nsf_overdraft',
  'deposit_frequency',
  'revenue_trend',
  'debt_service',
];

export type RulesetFactor = HealthFactor | 'transaction_screening' | 'health_score' | 'cross_doc';
export const RULESET_FACTORS: readonly RulesetFactor[] = [...HEALTH_FACTORS, 'transaction_screening', 'health_score', 'cross_doc'];

export type FormBFactor =
  'revenue_stability' | 'average_daily_balance' | 'deposit_consistency' | 'nsf_frequency' | 'negative_days' | 'high_risk_transactions';
export const FORM_B_FACTORS: readonly FormBFactor[] = [
  'revenue_stability',
  'average_daily_balance',
  'deposit_consistency',
  'nsf_frequency',
  'negative_days',
  'high_risk_transactions',
];

/** score for a balance against target = balanceTargetRatio x avg monthly deposits */
export function balanceScore(balance: number, avgMonthlyDeposits: number, p: UnderwritingParams): number {
  const target = p.balanceTargetRatio * avgMonthlyDeposits;
  if (target <= 0) return balance > 0 ? 100 : 0;
  return clamp((100 * balance) / target);
}

export function revenueScore(i: FactorInputs, p: UnderwritingParams): number {
  const ratio = i.avgMonthlyRevenue / i.fundingRequested;
  return clamp((100 * ratio) / p.revenueFullScoreRatio);
}

export function balanceHealthScore(i: FactorInputs, p: UnderwritingParams): number {
  const adb = balanceScore(i.avgDailyBalance, i.avgMonthlyDeposits, p);
  const end = balanceScore(i.endingBalance, i.avgMonthlyDeposits, p);
  const low = i.daysCovered > 0 ? 100 * (1 - i.lowBalanceDays / i.daysCovered) : 0;
  return clamp(0.4 * adb + 0.2 * end + 0.4 * low);
}

export function nsfOverdraftScore(i: FactorInputs, p: UnderwritingParams): number {
  const perMonth = i.monthsCovered > 0 ? i.nsfOverdraftEvents / i.monthsCovered : i.nsfOverdraftEvents;
  return clamp(100 - p.nsfPenaltyPerEventPerMonth * perMonth - (i.recentNsfOverdraft ? p.nsfRecentPenalty : 0));
}

export function depositFrequencyScore(i: FactorInputs, p: UnderwritingParams): number {
  if (i.monthsCovered <= 0) return 0;
  return clamp((100 * (i.revenueDepositDays / i.monthsCovered)) / p.depositDaysTarget);
}

/** least-squares slope of rate over month ordinal, as % of the mean rate per month */
export function revenueTrendPct(rates: { ordinal: number; rate: number }[]): number | null {
  if (rates.length < 2) return null;
  const n = rates.length;
  const mx = rates.reduce((a, r) => a + r.ordinal, 0) / n;
  const my = rates.reduce((a, r) => a + r.rate, 0) / n;
  if (my <= 0) return null;
  let sxy = 0;
  let sxx = 0;
  for (const r of rates) {
    sxy += (r.ordinal - mx) * (r.rate - my);
    sxx += (r.ordinal - mx) ** 2;
  }
  return (sxy / sxx / my) * 100;
}

/**
 * True when two or more months are measured but fewer than two of them have any revenue: a trend
 * on no revenue ("$0 -> $0") is not applicable and scores nothing (0), where it used to read the
 * slope of a lone month as growth.
 */
export function revenueTrendNotApplicable(rates: { rate: number }[]): boolean {
  return rates.length >= 2 && rates.filter((r) => r.rate > 0).length < 2;
}

export function revenueTrendScore(i: FactorInputs, p: UnderwritingParams): number {
  if (revenueTrendNotApplicable(i.monthlyRevenueRates)) return 0;
  const pct = revenueTrendPct(i.monthlyRevenueRates);
  return pct === null ? 50 : clamp(50 + p.trendPointsPerPct * pct);
}

export function debtServiceScore(i: FactorInputs, p: UnderwritingParams): number {
  if (i.avgMonthlyRevenue <= 0) return i.monthlyDebtService > 0 ? 0 : 100;
  const ratio = i.monthlyDebtService / i.avgMonthlyRevenue;
  return clamp(100 * (1 - ratio / p.debtServiceMaxRatio));
}

export function screeningScore(i: FactorInputs, p: UnderwritingParams): number {
  if (i.transactionCount === 0) return 100;
  return clamp(100 * (1 - i.flaggedCount / i.transactionCount / p.screeningMaxRatio));
}

export function revenueStabilityScore(i: FactorInputs): number {
  const r = i.monthlyRevenueRates;
  const mean = r.length ? r.reduce((a, x) => a + x.rate, 0) / r.length : 0;
  if (mean <= 0) return 0;
  if (r.length < 2) return 50;
  const sd = Math.sqrt(r.reduce((a, x) => a + (x.rate - mean) ** 2, 0) / r.length);
  return clamp(100 * (1 - sd / mean));
}

export function gradeFor(score: number, minima: { a: number; b: number; c: number; d: number }): 'A' | 'B' | 'C' | 'D' | 'F' {
  if (score >= minima.a) return 'A';
  if (score >= minima.b) return 'B';
  if (score >= minima.c) return 'C';
  if (score >= minima.d) return 'D';
  return 'F';
}

export interface AllScores {
  health: { score: number; grade: 'A' | 'B' | 'C' | 'D' | 'F'; factors: Record<HealthFactor, number> };
  factors: Record<RulesetFactor, number>;
  form_b: Record<FormBFactor, number>;
}

/** Every factor, rounded to 2 decimals; composites are computed from the rounded factors. */
export function computeScores(i: FactorInputs, p: UnderwritingParams): AllScores {
  const h: Record<HealthFactor, number> = {
    revenue: round2(revenueScore(i, p)),
    balance_health: round2(balanceHealthScore(i, p)),
    nsf_overdraft: round2(nsfOverdraftScore(i, p)),
    deposit_frequency: round2(depositFrequencyScore(i, p)),
    revenue_trend: round2(revenueTrendScore(i, p)),
    debt_service: round2(debtServiceScore(i, p)),
  };
  let composite = 0;
  for (const k of HEALTH_FACTORS) composite += p.healthWeights[k] * h[k];
  const healthScore = round2(clamp(composite));
  const screening = round2(screeningScore(i, p));
  return {
    health: { score: healthScore, grade: gradeFor(healthScore, { a: 80, b: 65, c: 50, d: 35 }), factors: h },
    factors: { ...h, transaction_screening: screening, health_score: healthScore, cross_doc: round2(i.crossDocScore) },
    form_b: {
      revenue_stability: round2(revenueStabilityScore(i)),
      average_daily_balance: round2(balanceScore(i.avgDailyBalance, i.avgMonthlyDeposits, p)),
      deposit_consistency: i.weekBlocks > 0 ? round2((100 * i.weekBlocksWithDeposit) / i.weekBlocks) : 0,
      nsf_frequency: h.nsf_overdraft,
      negative_days: i.daysCovered > 0 ? round2(100 * (1 - i.negativeBalanceDays / i.daysCovered)) : 0,
      high_risk_transactions: screening,
    },
  };
}
