import {
  DEFAULT_RULESET,
  evaluateFactorRuleset,
  gradeFor,
  recommend,
  round2,
  type DealAnalysis,
  type FactorRuleset,
  type FlatRuleset,
} from '@ledgerlens/underwriting';
import type { RulesetKind } from './rulesets.entities';

/** What evaluation needs of a ruleset: a live row or a stored snapshot alike. */
export interface RulesetDefinition {
  id: number;
  name: string;
  kind: RulesetKind;
  definition: Record<string, unknown>;
}

export interface Evaluation {
  ruleset_id: number;
  ruleset_name: string;
  ruleset_kind: RulesetKind;
  total_score: number;
  decision: 'approve' | 'review' | 'decline';
  grade: 'A' | 'B' | 'C' | 'D' | 'F';
  max_advance: number | null;
  cfcr: number;
  cfcr_target: number;
  cfcr_below_target: boolean;
  factor_scores: Record<string, { score: number; weight: number; weighted: number; threshold?: number; passed?: boolean }>;
  failed_factors: string[];
  reasons: string[];
}

/**
 * One result shape for both kinds. A factor-list ruleset has no grade minima, advance multiplier
 * or CFCR target: those come from the documented default ruleset, so its approve still carries a
 * max advance and its grade reads like any other.
 */
export function evaluate(analysis: DealAnalysis, ruleset: RulesetDefinition): Evaluation {
  if (ruleset.kind === 'flat') {
    const r = recommend(analysis, { ...(ruleset.definition as unknown as FlatRuleset), name: ruleset.name });
    return {
      ruleset_id: ruleset.id,
      ruleset_name: ruleset.name,
      ruleset_kind: 'flat',
      total_score: r.total_score,
      decision: r.decision,
      grade: r.grade,
      max_advance: r.max_advance,
      cfcr: r.cfcr,
      cfcr_target: r.cfcr_target,
      cfcr_below_target: r.cfcr_below_target,
      factor_scores: r.factor_scores,
      failed_factors: [],
      reasons: r.reasons,
    };
  }
  const r = evaluateFactorRuleset(analysis, { ...(ruleset.definition as unknown as FactorRuleset), name: ruleset.name });
  const d = DEFAULT_RULESET;
  const cfcr = analysis.cash_flow.cfcr;
  const below = cfcr < d.cfcr_target;
  const reasons = [...r.reasons];
  if (below) reasons.push(`Cash flow coverage ratio ${cfcr} is below the default target ${d.cfcr_target}`);
  return {
    ruleset_id: ruleset.id,
    ruleset_name: ruleset.name,
    ruleset_kind: 'factors',
    total_score: r.total_score,
    decision: r.decision,
    grade: gradeFor(r.total_score, { a: d.grade_a_min, b: d.grade_b_min, c: d.grade_c_min, d: d.grade_d_min }),
    max_advance: r.decision === 'approve' ? round2(d.max_advance_multiplier * analysis.financials.avg_monthly_revenue) : null,
    cfcr,
    cfcr_target: d.cfcr_target,
    cfcr_below_target: below,
    factor_scores: r.factor_scores,
    failed_factors: r.failed_factors,
    reasons,
  };
}
