import type { DealAnalysis, ScoredDeal } from './deal';
import { FORM_B_FACTORS, type FormBFactor, RULESET_FACTORS, type RulesetFactor, gradeFor, revenueTrendNotApplicable } from './scores';
import { formatMoney, round2 } from './util';

/** Flat ruleset (spec Ruleset Form A): nine integer weights summing to 100. */
export interface FlatRuleset extends AffordabilityRulesetTerms {
  name?: string;
  description?: string;
  weight_revenue: number;
  weight_balance_health: number;
  weight_nsf_overdraft: number;
  weight_deposit_frequency: number;
  weight_revenue_trend: number;
  weight_debt_service: number;
  weight_transaction_screening: number;
  weight_health_score: number;
  weight_cross_doc: number;
  grade_a_min: number;
  grade_b_min: number;
  grade_c_min: number;
  grade_d_min: number;
  approve_threshold: number;
  /** max advance = multiplier x average monthly revenue */
  max_advance_multiplier: number;
  cfcr_target: number;
}

/**
 * Affordability terms a ruleset of either kind may set (AFFORDABILITY_FIELDS); an absent one is the
 * underwriting parameter's default (maxTotalHoldback, proposedFactorRate, proposedTermMonths).
 */
export interface AffordabilityRulesetTerms {
  /** the largest share of monthly revenue all positions together may take, 0 < x <= 1 */
  max_total_holdback?: number;
  /** factor rate of the new advance, 1 to 5 */
  factor_rate?: number;
  /** term of the new advance in months, more than 0 and at most 36 */
  term_months?: number;
}

export const AFFORDABILITY_FIELDS = ['max_total_holdback', 'factor_rate', 'term_months'] as const;

/** Each affordability term that is set (null or absent: the default) must be in range. */
function checkAffordabilityTerms(r: Record<string, unknown>, errors: RulesetFieldError[]): void {
  const bad = (field: string, message: string) => errors.push({ code: 'VALIDATION_ERROR', field, message });
  const set = (f: string) => r[f] !== undefined && r[f] !== null;
  if (set('max_total_holdback') && !(isNum(r.max_total_holdback) && r.max_total_holdback > 0 && r.max_total_holdback <= 1))
    bad('max_total_holdback', 'max_total_holdback must be a number greater than 0 and at most 1');
  if (set('factor_rate') && !(isNum(r.factor_rate) && r.factor_rate >= 1 && r.factor_rate <= 5))
    bad('factor_rate', 'factor_rate must be a number from 1 to 5');
  if (set('term_months') && !(isNum(r.term_months) && r.term_months > 0 && r.term_months <= 36))
    bad('term_months', 'term_months must be a number greater than 0 and at most 36');
}

/** The affordability terms a ruleset definition sets. */
export function affordabilityTermsOf(definition: Record<string, unknown>): AffordabilityRulesetTerms {
  const out: AffordabilityRulesetTerms = {};
  for (const f of AFFORDABILITY_FIELDS) if (isNum(definition[f])) out[f] = definition[f] as number;
  return out;
}

export const DEFAULT_RULESET: Readonly<FlatRuleset> = Object.freeze({
  name: 'Default',
  description: 'Balanced default: revenue and cash position first, then fee history, consistency and debt load.',
  weight_revenue: 20,
  weight_balance_health: 15,
  weight_nsf_overdraft: 15,
  weight_deposit_frequency: 10,
  weight_revenue_trend: 10,
  weight_debt_service: 10,
  weight_transaction_screening: 5,
  weight_health_score: 10,
  weight_cross_doc: 5,
  grade_a_min: 80,
  grade_b_min: 65,
  grade_c_min: 50,
  grade_d_min: 35,
  approve_threshold: 60,
  max_advance_multiplier: 1,
  cfcr_target: 1.25,
});

/** Factor-list ruleset (spec Ruleset Form B). */
export interface FactorRuleset extends AffordabilityRulesetTerms {
  name?: string;
  description?: string;
  factors: { name: FormBFactor | string; weight: number; threshold: number }[];
  approval_threshold: number;
  decline_threshold: number;
}

export type RulesetErrorCode = 'WEIGHT_SUM_INVALID' | 'VALIDATION_ERROR';
export interface RulesetFieldError {
  code: RulesetErrorCode;
  field: string;
  message: string;
}
export interface RulesetValidationResult {
  valid: boolean;
  /** VALIDATION_ERROR when any field is malformed, else WEIGHT_SUM_INVALID when only the sum is wrong, else null */
  code: RulesetErrorCode | null;
  errors: RulesetFieldError[];
}

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

function result(errors: RulesetFieldError[]): RulesetValidationResult {
  if (!errors.length) return { valid: true, code: null, errors };
  const code = errors.some((e) => e.code === 'VALIDATION_ERROR') ? 'VALIDATION_ERROR' : 'WEIGHT_SUM_INVALID';
  return { valid: false, code, errors };
}

function checkText(r: Record<string, unknown>, field: string, max: number, errors: RulesetFieldError[]) {
  const v = r[field];
  if (v === undefined || v === null) return;
  if (typeof v !== 'string') errors.push({ code: 'VALIDATION_ERROR', field, message: `${field} must be a string` });
  else if (field === 'name' && !v.trim()) errors.push({ code: 'VALIDATION_ERROR', field, message: 'name must not be empty' });
  else if (v.length > max) errors.push({ code: 'VALIDATION_ERROR', field, message: `${field} must be at most ${max} characters` });
}

export const FLAT_WEIGHT_FIELDS = RULESET_FACTORS.map((f) => `weight_${f}` as const);

/**
 * Validate a complete flat ruleset: each weight an integer 0-100 and the nine summing to exactly 100
 * (WEIGHT_SUM_INVALID); grade minima integers 0-100, strictly descending A > B > C > D;
 * approve_threshold integer 0-100; max_advance_multiplier > 0; cfcr_target >= 0; name <= 200 and
 * description <= 1000 characters when given.
 */
export function validateFlatRuleset(r: unknown): RulesetValidationResult {
  const errors: RulesetFieldError[] = [];
  if (!isObj(r)) return result([{ code: 'VALIDATION_ERROR', field: 'body', message: 'ruleset must be an object' }]);
  checkText(r, 'name', 200, errors);
  checkText(r, 'description', 1000, errors);
  let total = 0;
  let weightsOk = true;
  for (const f of FLAT_WEIGHT_FIELDS) {
    const v = r[f];
    if (!isNum(v) || !Number.isInteger(v) || v < 0 || v > 100) {
      weightsOk = false;
      errors.push({ code: 'VALIDATION_ERROR', field: f, message: `${f} must be an integer from 0 to 100` });
    } else total += v;
  }
  if (weightsOk && total !== 100) {
    errors.push({
      code: 'WEIGHT_SUM_INVALID',
      field: 'weights',
      message: `the nine weights must sum to exactly 100 (they sum to ${total})`,
    });
  }
  const grades = ['grade_a_min', 'grade_b_min', 'grade_c_min', 'grade_d_min'] as const;
  let gradesOk = true;
  for (const g of [...grades, 'approve_threshold'] as const) {
    const v = r[g];
    if (!isNum(v) || !Number.isInteger(v) || v < 0 || v > 100) {
      if (g !== 'approve_threshold') gradesOk = false;
      errors.push({ code: 'VALIDATION_ERROR', field: g, message: `${g} must be an integer from 0 to 100` });
    }
  }
  if (gradesOk) {
    for (let k = 1; k < grades.length; k++) {
      const hi = r[grades[k - 1]] as number;
      const lo = r[grades[k]] as number;
      if (!(lo < hi)) {
        errors.push({
          code: 'VALIDATION_ERROR',
          field: grades[k],
          message: `${grades[k]} (${lo}) must be lower than ${grades[k - 1]} (${hi}): grade minima must descend A > B > C > D`,
        });
      }
    }
  }
  if (!isNum(r.max_advance_multiplier) || r.max_advance_multiplier <= 0) {
    errors.push({
      code: 'VALIDATION_ERROR',
      field: 'max_advance_multiplier',
      message: 'max_advance_multiplier must be a number greater than 0',
    });
  }
  if (!isNum(r.cfcr_target) || r.cfcr_target < 0) {
    errors.push({ code: 'VALIDATION_ERROR', field: 'cfcr_target', message: 'cfcr_target must be a number of at least 0' });
  }
  checkAffordabilityTerms(r, errors);
  return result(errors);
}

/**
 * Validate a factor-list ruleset: factors a non-empty array of {name, weight, threshold} with known,
 * unique names, weight 0-1, threshold integer 0-100, weights summing to 1.0 within 1e-6
 * (WEIGHT_SUM_INVALID); approval_threshold and decline_threshold numbers 0-100 with decline < approval.
 */
export function validateFactorRuleset(r: unknown): RulesetValidationResult {
  const errors: RulesetFieldError[] = [];
  if (!isObj(r)) return result([{ code: 'VALIDATION_ERROR', field: 'body', message: 'ruleset must be an object' }]);
  checkText(r, 'name', 200, errors);
  checkText(r, 'description', 1000, errors);
  const factors = r.factors;
  if (!Array.isArray(factors) || factors.length === 0) {
    errors.push({ code: 'VALIDATION_ERROR', field: 'factors', message: 'factors must be a non-empty array' });
  } else {
    let total = 0;
    let ok = true;
    const names = new Set<string>();
    factors.forEach((f, i) => {
      const at = `factors[${i}]`;
      if (!isObj(f)) {
        ok = false;
        errors.push({ code: 'VALIDATION_ERROR', field: at, message: `${at} must be an object {name, weight, threshold}` });
        return;
      }
      if (typeof f.name !== 'string' || !(FORM_B_FACTORS as readonly string[]).includes(f.name)) {
        errors.push({ code: 'VALIDATION_ERROR', field: `${at}.name`, message: `${at}.name must be one of ${FORM_B_FACTORS.join(', ')}` });
      } else if (names.has(f.name)) {
        errors.push({ code: 'VALIDATION_ERROR', field: `${at}.name`, message: `factor '${f.name}' is listed twice` });
      } else names.add(f.name);
      if (!isNum(f.weight) || f.weight < 0 || f.weight > 1) {
        ok = false;
        errors.push({ code: 'VALIDATION_ERROR', field: `${at}.weight`, message: `${at}.weight must be a number from 0 to 1` });
      } else total += f.weight;
      if (!isNum(f.threshold) || !Number.isInteger(f.threshold) || f.threshold < 0 || f.threshold > 100) {
        errors.push({ code: 'VALIDATION_ERROR', field: `${at}.threshold`, message: `${at}.threshold must be an integer from 0 to 100` });
      }
    });
    if (ok && Math.abs(total - 1) > 1e-6) {
      errors.push({
        code: 'WEIGHT_SUM_INVALID',
        field: 'factors',
        message: `factor weights must sum to exactly 1.0 (they sum to ${round2(total * 1e4) / 1e4})`,
      });
    }
  }
  let thresholdsOk = true;
  for (const f of ['approval_threshold', 'decline_threshold'] as const) {
    const v = r[f];
    if (!isNum(v) || v < 0 || v > 100) {
      thresholdsOk = false;
      errors.push({ code: 'VALIDATION_ERROR', field: f, message: `${f} must be a number from 0 to 100` });
    }
  }
  if (thresholdsOk && !((r.decline_threshold as number) < (r.approval_threshold as number))) {
    errors.push({
      code: 'VALIDATION_ERROR',
      field: 'decline_threshold',
      message: 'decline_threshold must be lower than approval_threshold',
    });
  }
  checkAffordabilityTerms(r, errors);
  return result(errors);
}

export interface FactorScore {
  score: number;
  weight: number;
  weighted: number;
}

export interface Recommendation {
  ruleset_name: string;
  decision: 'approve' | 'decline';
  total_score: number;
  grade: 'A' | 'B' | 'C' | 'D' | 'F';
  max_advance: number | null;
  cfcr: number;
  cfcr_target: number;
  cfcr_below_target: boolean;
  factor_scores: Record<RulesetFactor, FactorScore>;
  reasons: string[];
}

function pct(x: number): string {
  return `${round2(x * 100)}%`;
}

/** Plain-words explanation of one factor's value (used for reasons). */
export function describeFactor(a: ScoredDeal, f: RulesetFactor | FormBFactor): string {
  const fin = a.financials;
  const months = a.coverage.months_covered;
  switch (f) {
    case 'revenue':
      return `average monthly revenue of ${formatMoney(fin.avg_monthly_revenue)} is ${round2(fin.avg_monthly_revenue / a.funding_amount_requested)}x the requested ${formatMoney(a.funding_amount_requested)}`;
    case 'balance_health':
    case 'average_daily_balance':
      return `average daily balance ${formatMoney(fin.avg_daily_balance)}, ending balance ${formatMoney(fin.ending_balance)}, ${fin.low_balance_days} of ${a.coverage.days_covered} days below ${formatMoney(fin.low_balance_threshold)}`;
    case 'nsf_overdraft':
    case 'nsf_frequency': {
      const n = a.nsf_overdraft;
      return `${n.total_nsf_fees} NSF and ${n.total_overdraft_fees} overdraft fee${n.total_overdraft_fees === 1 ? '' : 's'} over ${months} month${months === 1 ? '' : 's'}`;
    }
    case 'deposit_frequency': {
      const perMonth = round2(months ? fin.revenue_deposit_days / months : 0);
      return `revenue deposits on ${perMonth} day${perMonth === 1 ? '' : 's'} per month on average`;
    }
    case 'deposit_consistency':
      return `revenue deposits in ${a.form_b_scores.deposit_consistency}% of the weeks covered`;
    case 'revenue_trend':
    case 'revenue_stability': {
      const full = a.monthly.filter((m) => m.days_covered >= 15);
      if (full.length < 2) return 'fewer than two full months, so no revenue trend can be measured';
      if (f === 'revenue_trend' && revenueTrendNotApplicable(full.map((m) => ({ rate: m.revenue_rate }))))
        return `revenue in ${full.filter((m) => m.revenue_rate > 0).length} of ${full.length} full months: no revenue trend to measure (not applicable, scores nothing)`;
      return `monthly revenue went from ${formatMoney(full[0].revenue_rate)} (${full[0].month}) to ${formatMoney(full[full.length - 1].revenue_rate)} (${full[full.length - 1].month})`;
    }
    case 'debt_service': {
      const lp = a.lender_positions;
      const share = a.cash_flow.monthly_revenue > 0 ? pct(a.cash_flow.existing_monthly_debt_service / a.cash_flow.monthly_revenue) : 'n/a';
      return `existing debt service ${formatMoney(a.cash_flow.existing_monthly_debt_service)} a month (${share} of revenue), ${lp.position_count} lender position${lp.position_count === 1 ? '' : 's'}, up to ${lp.stacking_count} at once`;
    }
    case 'transaction_screening':
    case 'high_risk_transactions':
      return `${a.screening.total_flags} of ${a.screening.transaction_count} transaction${a.screening.transaction_count === 1 ? '' : 's'} flagged in screening`;
    case 'health_score':
      return `health score ${a.health.score} (grade ${a.health.grade})`;
    case 'cross_doc': {
      const issues = a.cross_doc.findings.filter((x) => x.deduction > 0);
      return issues.length ? issues.map((x) => x.message).join('; ') : 'statements are consistent with each other';
    }
    case 'negative_days':
      return `${fin.negative_balance_days} of ${a.coverage.days_covered} days with a negative balance`;
  }
}

const LABEL: Record<string, string> = {
  revenue: 'Revenue',
  balance_health: 'Balances',
  nsf_overdraft: 'NSF/overdraft',
  deposit_frequency: 'Deposit frequency',
  revenue_trend: 'Revenue trend',
  debt_service: 'Debt service',
  transaction_screening: 'Screening',
  health_score: 'Health',
  cross_doc: 'Documents',
  revenue_stability: 'Revenue stability',
  average_daily_balance: 'Average daily balance',
  deposit_consistency: 'Deposit consistency',
  nsf_frequency: 'NSF frequency',
  negative_days: 'Negative days',
  high_risk_transactions: 'High-risk transactions',
};

/**
 * Reasons ordered by influence: impact = weight x (score - 50), i.e. how far the factor pulled the
 * total away from a neutral 50. Positive impact reads as a strength, negative as a concern.
 */
function reasonsFor(a: ScoredDeal, items: { factor: RulesetFactor | FormBFactor; score: number; weight: number }[], limit = 5): string[] {
  return items
    .filter((x) => x.weight > 0)
    .map((x, order) => ({ ...x, impact: x.weight * (x.score - 50), order }))
    .sort((x, y) => Math.abs(y.impact) - Math.abs(x.impact) || x.order - y.order)
    .slice(0, limit)
    .map((x) => `${x.score >= 50 ? 'Strength' : 'Concern'} - ${LABEL[x.factor]}: ${describeFactor(a, x.factor)} (score ${x.score})`);
}

/** The reason a cash flow coverage ratio below `target` gives, with the figures it comes from. */
export function cfcrShortfall(analysis: Pick<DealAnalysis, 'cash_flow'>, target: number): string {
  const c = analysis.cash_flow;
  return `Cash flow coverage ratio ${c.cfcr} is below the target ${target}: monthly cash flow available ${formatMoney(c.cash_flow_available)} vs debt service ${formatMoney(c.existing_monthly_debt_service + c.proposed_monthly_payment)} including the requested advance`;
}

/**
 * Recommendation of a flat ruleset. weighted = score x weight / 100 (2 decimals);
 * total_score = sum of the unrounded weighted values, rounded to 2 decimals.
 */
export function recommend(analysis: ScoredDeal, ruleset: FlatRuleset = DEFAULT_RULESET): Recommendation {
  const fs = {} as Record<RulesetFactor, FactorScore>;
  let total = 0;
  for (const f of RULESET_FACTORS) {
    const score = analysis.factor_scores[f];
    const weight = ruleset[`weight_${f}`];
    const w = (score * weight) / 100;
    total += w;
    fs[f] = { score, weight, weighted: round2(w) };
  }
  const totalScore = round2(total);
  const decision = totalScore >= ruleset.approve_threshold ? 'approve' : 'decline';
  const cfcr = analysis.cash_flow.cfcr;
  const below = cfcr < ruleset.cfcr_target;
  const reasons = reasonsFor(
    analysis,
    RULESET_FACTORS.map((f) => ({ factor: f, score: fs[f].score, weight: fs[f].weight })),
  );
  reasons.unshift(
    decision === 'approve'
      ? `Approve: total score ${totalScore} is at or above the approval threshold ${ruleset.approve_threshold}`
      : `Decline: total score ${totalScore} is below the approval threshold ${ruleset.approve_threshold}`,
  );
  if (below) reasons.push(cfcrShortfall(analysis, ruleset.cfcr_target));
  return {
    ruleset_name: ruleset.name ?? 'Unnamed ruleset',
    decision,
    total_score: totalScore,
    grade: gradeFor(totalScore, { a: ruleset.grade_a_min, b: ruleset.grade_b_min, c: ruleset.grade_c_min, d: ruleset.grade_d_min }),
    max_advance: decision === 'approve' ? round2(ruleset.max_advance_multiplier * analysis.financials.avg_monthly_revenue) : null,
    cfcr,
    cfcr_target: ruleset.cfcr_target,
    cfcr_below_target: below,
    factor_scores: fs,
    reasons,
  };
}

export interface FactorRulesetEvaluation {
  ruleset_name: string;
  decision: 'approve' | 'review' | 'decline';
  total_score: number;
  factor_scores: Record<string, FactorScore & { threshold: number; passed: boolean }>;
  failed_factors: string[];
  reasons: string[];
}

/**
 * Factor-list ruleset: weighted = score x weight (weights sum to 1), total = sum (2 decimals).
 * total >= approval_threshold -> approve; total <= decline_threshold -> decline; else review.
 * A factor below its own threshold fails; an approve with a failed factor becomes review.
 * Throws a TypeError for an invalid ruleset (validate first).
 */
export function evaluateFactorRuleset(analysis: ScoredDeal, ruleset: FactorRuleset): FactorRulesetEvaluation {
  const v = validateFactorRuleset(ruleset);
  if (!v.valid) throw new TypeError(`invalid factor ruleset: ${v.errors.map((e) => e.message).join('; ')}`);
  const fs: FactorRulesetEvaluation['factor_scores'] = {};
  let total = 0;
  const failed: string[] = [];
  for (const f of ruleset.factors) {
    const score = analysis.form_b_scores[f.name as FormBFactor];
    const w = score * f.weight;
    total += w;
    const passed = score >= f.threshold;
    if (!passed) failed.push(f.name);
    fs[f.name] = { score, weight: f.weight, weighted: round2(w), threshold: f.threshold, passed };
  }
  const totalScore = round2(total);
  let decision: FactorRulesetEvaluation['decision'] =
    totalScore >= ruleset.approval_threshold ? 'approve' : totalScore <= ruleset.decline_threshold ? 'decline' : 'review';
  const reasons: string[] = [];
  if (decision === 'approve' && failed.length) {
    decision = 'review';
    reasons.push(
      `Review: total score ${totalScore} reaches approval, but ${failed.join(', ')} fell below ${failed.length === 1 ? 'its' : 'their'} threshold`,
    );
  } else if (decision === 'approve') reasons.push(`Approve: total score ${totalScore} is at or above ${ruleset.approval_threshold}`);
  else if (decision === 'decline') reasons.push(`Decline: total score ${totalScore} is at or below ${ruleset.decline_threshold}`);
  else reasons.push(`Review: total score ${totalScore} lies between ${ruleset.decline_threshold} and ${ruleset.approval_threshold}`);
  reasons.push(
    ...reasonsFor(
      analysis,
      ruleset.factors.map((f) => ({ factor: f.name as FormBFactor, score: fs[f.name].score, weight: f.weight * 100 })),
    ),
  );
  return {
    ruleset_name: ruleset.name ?? 'Unnamed ruleset',
    decision,
    total_score: totalScore,
    factor_scores: fs,
    failed_factors: failed,
    reasons,
  };
}
