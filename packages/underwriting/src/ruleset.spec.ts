import { statement, tx } from './__fixtures__/helpers';
import { analyzeDeal, type DealAnalysis } from './deal';
import {
  DEFAULT_RULESET,
  describeFactor,
  type FactorRuleset,
  type FlatRuleset,
  evaluateFactorRuleset,
  recommend,
  validateFactorRuleset,
  validateFlatRuleset,
} from './ruleset';
import { RULESET_FACTORS } from './scores';

// the hand-checked June deal of deal.spec.ts: factors revenue 33.33, balance_health 66, nsf 100,
// deposit_frequency 8.33, trend 50, debt 100, screening 100, health 62.37, cross_doc 100
const june = analyzeDeal({
  statements: [
    statement({
      periodStart: '2024-06-01',
      periodEnd: '2024-06-04',
      openingBalance: -2600,
      closingBalance: 1400,
      transactions: [tx('2024-06-02', 'SQUARE INC DEPOSIT', 4000, 1400)],
    }),
  ],
  fundingAmountRequested: 8000,
});

/** the same analysis with chosen factor scores */
function withScores(scores: Partial<DealAnalysis['factor_scores']>, base: DealAnalysis = june): DealAnalysis {
  return { ...base, factor_scores: { ...base.factor_scores, ...scores } };
}

describe('describeFactor', () => {
  it('says day and transaction in the singular for one, days and transactions otherwise', () => {
    expect(describeFactor(june, 'deposit_frequency')).toBe('revenue deposits on 1 day per month on average');
    expect(describeFactor(june, 'transaction_screening')).toBe('0 of 1 transaction flagged in screening');
    const twice: DealAnalysis = {
      ...june,
      financials: { ...june.financials, revenue_deposit_days: 2 },
      screening: { ...june.screening, transaction_count: 2 },
    };
    expect(describeFactor(twice, 'deposit_frequency')).toBe('revenue deposits on 2 days per month on average');
    expect(describeFactor(twice, 'transaction_screening')).toBe('0 of 2 transactions flagged in screening');
  });
});

describe('DEFAULT_RULESET', () => {
  it('is valid and its nine weights sum to 100', () => {
    expect(validateFlatRuleset(DEFAULT_RULESET)).toEqual({ valid: true, code: null, errors: [] });
    expect(RULESET_FACTORS.reduce((a, f) => a + DEFAULT_RULESET[`weight_${f}`], 0)).toBe(100);
  });
});

describe('recommend (flat ruleset)', () => {
  it('weights every factor and totals them (hand-computed)', () => {
    const r = recommend(june, DEFAULT_RULESET);
    expect(r.factor_scores).toEqual({
      revenue: { score: 33.33, weight: 20, weighted: 6.67 },
      balance_health: { score: 66, weight: 15, weighted: 9.9 },
      nsf_overdraft: { score: 100, weight: 15, weighted: 15 },
      deposit_frequency: { score: 8.33, weight: 10, weighted: 0.83 },
      revenue_trend: { score: 50, weight: 10, weighted: 5 },
      debt_service: { score: 100, weight: 10, weighted: 10 },
      transaction_screening: { score: 100, weight: 5, weighted: 5 },
      health_score: { score: 62.37, weight: 10, weighted: 6.24 },
      cross_doc: { score: 100, weight: 5, weighted: 5 },
    });
    // 6.666 + 9.9 + 15 + 0.833 + 5 + 10 + 5 + 6.237 + 5 = 63.636
    expect(r.total_score).toBe(63.64);
    expect(r.decision).toBe('approve');
    expect(r.grade).toBe('C');
    expect(r.max_advance).toBe(4000); // 1.0 x avg monthly revenue 4000
    expect(r.cfcr).toBe(2.22);
    expect(r.cfcr_below_target).toBe(false);
    expect(r.ruleset_name).toBe('Default');
  });

  it('declines below approve_threshold with a null max_advance', () => {
    const r = recommend(june, { ...DEFAULT_RULESET, approve_threshold: 64, max_advance_multiplier: 1.5 });
    expect(r.decision).toBe('decline');
    expect(r.max_advance).toBeNull();
    expect(r.reasons[0]).toBe('Decline: total score 63.64 is below the approval threshold 64');
    const approve = recommend(june, { ...DEFAULT_RULESET, approve_threshold: 63, max_advance_multiplier: 1.5 });
    expect(approve.max_advance).toBe(6000);
  });

  it('approves exactly at the threshold; grades follow the minima', () => {
    const all = (s: number) => withScores(Object.fromEntries(RULESET_FACTORS.map((f) => [f, s])) as DealAnalysis['factor_scores']);
    expect(recommend(all(60)).decision).toBe('approve');
    expect(recommend(all(59.99)).decision).toBe('decline');
    expect([80, 79.99, 65, 64.99, 50, 49.99, 35, 34.99, 0].map((s) => recommend(all(s)).grade)).toEqual([
      'A',
      'B',
      'B',
      'C',
      'C',
      'D',
      'D',
      'F',
      'F',
    ]);
    expect(recommend(all(100)).total_score).toBe(100);
  });

  it('a zero-weight factor cannot move the score', () => {
    const rs: FlatRuleset = { ...DEFAULT_RULESET, weight_cross_doc: 0, weight_revenue: 25 };
    expect(recommend(withScores({ cross_doc: 0 }), rs).total_score).toBe(recommend(withScores({ cross_doc: 100 }), rs).total_score);
  });

  it('lists the most influential factors first, in plain words', () => {
    const r = recommend(june);
    // impact = weight x (score - 50): revenue 20 x -16.67 = -333, nsf 15 x 50 = 750, deposit_frequency 10 x -41.67 = -417,
    // balance 15 x 16 = 240, debt 10 x 50 = 500, screening 5 x 50 = 250, cross_doc 250, health 10 x 12.37 = 124, trend 0
    expect(r.reasons).toEqual([
      'Approve: total score 63.64 is at or above the approval threshold 60',
      'Strength - NSF/overdraft: 0 NSF and 0 overdraft fees over 1 month (score 100)',
      'Strength - Debt service: existing debt service $0.00 a month (0% of revenue), 0 lender positions, up to 0 at once (score 100)',
      'Concern - Deposit frequency: revenue deposits on 1 day per month on average (score 8.33)',
      'Concern - Revenue: average monthly revenue of $4,000.00 is 0.5x the requested $8,000.00 (score 33.33)',
      'Strength - Screening: 0 of 1 transaction flagged in screening (score 100)',
    ]);
  });

  it('notes a cfcr below target', () => {
    const r = recommend(june, { ...DEFAULT_RULESET, cfcr_target: 2.5 });
    expect(r.cfcr_below_target).toBe(true);
    expect(r.reasons[r.reasons.length - 1]).toBe(
      'Cash flow coverage ratio 2.22 is below the target 2.5: monthly cash flow available $4,000.00 vs debt service $1,800.00 including the requested advance',
    );
  });
});

describe('validateFlatRuleset', () => {
  it('reports a wrong sum as WEIGHT_SUM_INVALID', () => {
    const r = validateFlatRuleset({ ...DEFAULT_RULESET, weight_revenue: 25 });
    expect(r).toEqual({
      valid: false,
      code: 'WEIGHT_SUM_INVALID',
      errors: [{ code: 'WEIGHT_SUM_INVALID', field: 'weights', message: 'the nine weights must sum to exactly 100 (they sum to 105)' }],
    });
  });
  it('reports malformed fields as VALIDATION_ERROR, one entry per problem', () => {
    const r = validateFlatRuleset({
      ...DEFAULT_RULESET,
      weight_revenue: 20.5,
      grade_b_min: 90,
      approve_threshold: 101,
      max_advance_multiplier: 0,
      cfcr_target: -1,
      name: '',
    });
    expect(r.valid).toBe(false);
    expect(r.code).toBe('VALIDATION_ERROR');
    expect(r.errors.map((e) => [e.code, e.field])).toEqual([
      ['VALIDATION_ERROR', 'name'],
      ['VALIDATION_ERROR', 'weight_revenue'],
      ['VALIDATION_ERROR', 'approve_threshold'],
      ['VALIDATION_ERROR', 'grade_b_min'],
      ['VALIDATION_ERROR', 'max_advance_multiplier'],
      ['VALIDATION_ERROR', 'cfcr_target'],
    ]);
    expect(r.errors[3].message).toBe('grade_b_min (90) must be lower than grade_a_min (80): grade minima must descend A > B > C > D');
  });
  it('requires every field and a weight range of 0-100', () => {
    const { weight_cross_doc: _omit, ...missing } = DEFAULT_RULESET;
    expect(validateFlatRuleset(missing).errors).toEqual([
      { code: 'VALIDATION_ERROR', field: 'weight_cross_doc', message: 'weight_cross_doc must be an integer from 0 to 100' },
    ]);
    expect(validateFlatRuleset({ ...DEFAULT_RULESET, weight_revenue: -5, weight_cross_doc: 30 }).errors.map((e) => e.field)).toEqual([
      'weight_revenue',
    ]);
    expect(validateFlatRuleset(null).code).toBe('VALIDATION_ERROR');
    expect(validateFlatRuleset({ ...DEFAULT_RULESET, grade_d_min: 50 }).errors.map((e) => e.field)).toEqual(['grade_d_min']);
  });
});

const FORM_B: FactorRuleset = {
  name: 'Conservative',
  factors: [
    { name: 'revenue_stability', weight: 0.2, threshold: 0 },
    { name: 'average_daily_balance', weight: 0.2, threshold: 0 },
    { name: 'deposit_consistency', weight: 0.15, threshold: 0 },
    { name: 'nsf_frequency', weight: 0.15, threshold: 0 },
    { name: 'negative_days', weight: 0.15, threshold: 0 },
    { name: 'high_risk_transactions', weight: 0.15, threshold: 0 },
  ],
  approval_threshold: 70,
  decline_threshold: 40,
};

describe('evaluateFactorRuleset (factor list)', () => {
  // june Form B scores: stability 0, adb 40, consistency 100, nsf 100, negative days 75, high risk 100
  // 0 + 8 + 15 + 15 + 11.25 + 15 = 64.25
  it('computes the weighted total and lands in review between the thresholds', () => {
    const r = evaluateFactorRuleset(june, FORM_B);
    expect(r.total_score).toBe(64.25);
    expect(r.decision).toBe('review');
    expect(r.factor_scores.negative_days).toEqual({ score: 75, weight: 0.15, weighted: 11.25, threshold: 0, passed: true });
    expect(r.reasons[0]).toBe('Review: total score 64.25 lies between 40 and 70');
  });
  it('approves at the approval threshold and declines at the decline threshold', () => {
    expect(evaluateFactorRuleset(june, { ...FORM_B, approval_threshold: 64.25 }).decision).toBe('approve');
    expect(evaluateFactorRuleset(june, { ...FORM_B, approval_threshold: 90, decline_threshold: 64.25 }).decision).toBe('decline');
  });
  it('a factor below its own threshold turns an approve into review', () => {
    const rs = {
      ...FORM_B,
      approval_threshold: 60,
      factors: FORM_B.factors.map((f) => (f.name === 'average_daily_balance' ? { ...f, threshold: 50 } : f)),
    };
    const r = evaluateFactorRuleset(june, rs);
    expect(r.decision).toBe('review');
    expect(r.failed_factors).toEqual(['average_daily_balance']);
    expect(r.factor_scores.average_daily_balance.passed).toBe(false);
  });
  it('refuses an invalid ruleset', () => {
    expect(() => evaluateFactorRuleset(june, { ...FORM_B, approval_threshold: 10 })).toThrow(TypeError);
  });
});

describe('validateFactorRuleset', () => {
  it('accepts a valid ruleset (weights summing to 1.0 within floating point)', () => {
    expect(validateFactorRuleset(FORM_B).valid).toBe(true);
    const thirds = { ...FORM_B, factors: FORM_B.factors.slice(0, 3).map((f) => ({ ...f, weight: 0.1 + 0.2333333333333333 })) };
    expect(
      validateFactorRuleset({
        ...thirds,
        factors: [...thirds.factors.slice(0, 2), { ...thirds.factors[2], weight: 1 - 2 * (0.1 + 0.2333333333333333) }],
      }).valid,
    ).toBe(true);
  });
  it('WEIGHT_SUM_INVALID when weights do not sum to 1.0', () => {
    const r = validateFactorRuleset({ ...FORM_B, factors: FORM_B.factors.slice(1) });
    expect(r.code).toBe('WEIGHT_SUM_INVALID');
    expect(r.errors).toEqual([
      { code: 'WEIGHT_SUM_INVALID', field: 'factors', message: 'factor weights must sum to exactly 1.0 (they sum to 0.8)' },
    ]);
  });
  it('VALIDATION_ERROR for unknown or repeated names, bad weights, thresholds and order', () => {
    const r = validateFactorRuleset({
      factors: [
        { name: 'vibes', weight: 0.5, threshold: 10 },
        { name: 'nsf_frequency', weight: 1.5, threshold: 10.5 },
        { name: 'nsf_frequency', weight: 0.5, threshold: 0 },
      ],
      approval_threshold: 40,
      decline_threshold: 60,
    });
    expect(r.code).toBe('VALIDATION_ERROR');
    expect(r.errors.map((e) => e.field)).toEqual([
      'factors[0].name',
      'factors[1].weight',
      'factors[1].threshold',
      'factors[2].name',
      'decline_threshold',
    ]);
    expect(validateFactorRuleset({ approval_threshold: 50, decline_threshold: 10 }).errors[0]).toEqual({
      code: 'VALIDATION_ERROR',
      field: 'factors',
      message: 'factors must be a non-empty array',
    });
  });
});
