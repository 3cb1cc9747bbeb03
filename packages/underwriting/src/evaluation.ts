import type { DealAnalysis } from './deal';
import { DEFAULT_RULESET, evaluateFactorRuleset, type FactorRuleset, type FlatRuleset, recommend } from './ruleset';
import { gradeFor } from './scores';
import { round2 } from './util';

export type RulesetKind = 'flat' | 'factors';

/** What evaluation needs of a ruleset: a live row or a stored snapshot alike. */
export interface RulesetDefinition {
  id: number;
  name: string;
  kind: RulesetKind;
  definition: Record<string, unknown>;
}

export type Decision = 'approve' | 'review' | 'decline';

export interface Evaluation {
  ruleset_id: number;
  ruleset_name: string;
  ruleset_kind: RulesetKind;
  total_score: number;
  decision: Decision;
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
 * One result shape for both ruleset kinds. A factor-list ruleset has no grade minima, advance
 * multiplier or CFCR target: those come from the documented default ruleset, so its approve still
 * carries a max advance and its grade reads like any other. Then the authenticity rule applies.
 */
export function evaluateRuleset(analysis: DealAnalysis, ruleset: RulesetDefinition): Evaluation {
  return withAuthenticity(scoreRuleset(analysis, ruleset), analysis);
}

function scoreRuleset(analysis: DealAnalysis, ruleset: RulesetDefinition): Evaluation {
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

/**
 * A deal with a high-risk (likely edited) document is never approved by the numbers alone: an
 * approve becomes review, without a max advance, and the documents are named first among the
 * reasons whatever the decision.
 */
export function withAuthenticity(e: Evaluation, analysis: Pick<DealAnalysis, 'authenticity'>): Evaluation {
  const a = analysis.authenticity;
  if (!a || a.risk_level !== 'high') return e;
  const high = a.documents.filter((d) => d.risk_level === 'high');
  const named = `Document authenticity: ${high.map((d) => `${d.filename} has a high tampering risk (${d.reasons.join('; ') || 'no reason given'})`).join('; ')}`;
  if (e.decision !== 'approve') return { ...e, reasons: [e.reasons[0], named, ...e.reasons.slice(1)] };
  return {
    ...e,
    decision: 'review',
    max_advance: null,
    reasons: [
      `Review: the score supports approval, but ${high.length === 1 ? 'a document is' : `${high.length} documents are`} at high tampering risk`,
      named,
      ...e.reasons.slice(1),
    ],
  };
}
