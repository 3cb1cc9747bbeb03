import { type Affordability, affordabilityAtTerms, affordabilityReason } from './affordability';
import type { DealAnalysis, ScoredDeal } from './deal';
import {
  affordabilityTermsOf,
  cfcrShortfall,
  DEFAULT_RULESET,
  evaluateFactorRuleset,
  type FactorRuleset,
  type FlatRuleset,
  recommend,
} from './ruleset';
import { gradeFor } from './scores';
import { formatMoney, round2 } from './util';

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
 * carries a max advance and its grade reads like any other. Then the holds apply (`withHolds`):
 * unreliable statements, tampering risk and the cash-flow minima.
 */
export function evaluateRuleset(analysis: ScoredDeal, ruleset: RulesetDefinition): Evaluation {
  const a = analysis.affordability as Affordability | undefined;
  const t = affordabilityTermsOf(ruleset.definition);
  // the ruleset's own affordability terms, where it sets them, over the analysis' defaults
  const affordability = a
    ? affordabilityAtTerms(a, {
        maxTotalHoldback: t.max_total_holdback ?? a.max_total_holdback,
        factorRate: t.factor_rate ?? a.factor_rate,
        termMonths: t.term_months ?? a.term_months,
      })
    : undefined;
  return withContext(withHolds(scoreRuleset(analysis, ruleset), analysis), { staleness: analysis.staleness, affordability });
}

/**
 * The last reasons: the statements left out as stale, and the affordability arithmetic (with a
 * word when the ruleset's max advance is above it). An analysis stored before these were computed
 * gets neither. `evaluateRuleset` passes the affordability at the ruleset's own terms.
 */
export function withContext(e: Evaluation, analysis: Partial<Pick<DealAnalysis, 'staleness' | 'affordability'>>): Evaluation {
  const extra: string[] = [];
  const stale = analysis.staleness?.stale_statements ?? [];
  if (stale.length) {
    const named = stale.map((s) => `statement ${s.statement_id ?? '?'} (${s.period_start ?? '?'}..${s.period_end ?? '?'})`).join(', ');
    extra.push(
      `Stale: ${named} ${plural(stale.length, 'ends', 'end')} ${analysis.staleness!.lookback_months} or more months before the newest statement (${analysis.staleness!.newest_period_end}) and ${plural(stale.length, 'was', 'were')} left out of every figure`,
    );
  }
  const a = analysis.affordability;
  if (a) {
    extra.push(affordabilityReason(a));
    if (e.max_advance !== null && e.max_advance > a.max_advance) {
      extra.push(
        `Affordability: the max advance of ${formatMoney(e.max_advance)} is above the ${formatMoney(a.max_advance)} the cash flow carries at a ${round2(a.max_total_holdback * 100)}% total holdback`,
      );
    }
  }
  return extra.length ? { ...e, reasons: [...e.reasons, ...extra] } : e;
}

function scoreRuleset(analysis: ScoredDeal, ruleset: RulesetDefinition): Evaluation {
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
  if (below) reasons.push(cfcrShortfall(analysis, d.cfcr_target));
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

/** A condition that keeps the numbers from approving: `summary` completes "the score supports approval, but ...", `detail` is its reason. */
export interface Hold {
  summary: string;
  detail: string;
}

const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

/** Documents at high tampering risk. */
export function authenticityHolds(analysis: Pick<DealAnalysis, 'authenticity'>): Hold[] {
  const a = analysis.authenticity;
  if (!a || a.risk_level !== 'high') return [];
  const high = a.documents.filter((d) => d.risk_level === 'high');
  return [
    {
      summary: `${high.length === 1 ? 'a document is' : `${high.length} documents are`} at high tampering risk`,
      detail: `Document authenticity: ${high.map((d) => `${d.filename} has a high tampering risk (${d.reasons.join('; ') || 'no reason given'})`).join('; ')}`,
    },
  ];
}

/** Figures no approval may stand on: a cash flow coverage ratio below the ruleset's minimum, a negative net cash flow. */
export function cashFlowHolds(analysis: Pick<DealAnalysis, 'cash_flow' | 'financials'>, cfcrTarget: number): Hold[] {
  const holds: Hold[] = [];
  const cfcr = analysis.cash_flow.cfcr;
  if (cfcr < cfcrTarget) {
    holds.push({
      summary: `the cash flow coverage ratio ${cfcr} is below the minimum ${cfcrTarget}`,
      detail: cfcrShortfall(analysis, cfcrTarget),
    });
  }
  const f = analysis.financials;
  if (f.net_cash_flow < 0) {
    holds.push({
      summary: `the net cash flow is negative (${formatMoney(f.net_cash_flow)})`,
      detail: `Net cash flow ${formatMoney(f.net_cash_flow)}: withdrawals of ${formatMoney(f.total_withdrawals)} exceed deposits of ${formatMoney(f.total_deposits)} over the statements`,
    });
  }
  return holds;
}

/**
 * The first reason of a recommendation held at review because statements were read unreliably:
 * each statement named with its failed check, or null when every statement is reliable.
 */
export function reliabilityReason(analysis: Pick<DealAnalysis, 'reliability'>): string | null {
  const list = analysis.reliability?.unreliable_statements ?? [];
  if (!list.length) return null;
  const named = list
    .map((s) => `statement ${s.filename} ${s.reconciled === false ? 'failed reconciliation' : 'needs review'} (${s.problems.join('; ')})`)
    .join('; ');
  return `Review: ${named}. No approve or decline is given on figures read from ${plural(list.length, 'this statement', 'these statements')} until ${plural(list.length, 'it is', 'they are')} checked or corrected`;
}

/** One line per unreliable statement, for a reader of the deal (report page 1, share page): the statement, the failed check, why. */
export function reliabilityWarnings(analysis: Pick<DealAnalysis, 'reliability'> | null | undefined): string[] {
  return (analysis?.reliability?.unreliable_statements ?? []).map(
    (s) => `Statement ${s.filename} ${s.reconciled === false ? 'failed reconciliation' : 'needs review'}: ${s.problems.join('; ')}`,
  );
}

/** "Decline: total score ..." -> "By the score alone, decline: total score ..." (the score's verdict, kept as a reason). */
const scoreLine = (reason: string) => {
  const m = /^(Approve|Decline|Review): (.*)$/s.exec(reason);
  return m ? `By the score alone, ${m[1].toLowerCase()}: ${m[2]}` : reason;
};

/**
 * The rules that keep the score from having the last word, in this order:
 * 1. A statement that fails to reconcile or needs review: the recommendation is `review` whatever
 *    the score (never approve, never decline), without a max advance, and its first reason names
 *    the statement and the failed check; the score's own verdict follows.
 * 2. A document at high tampering risk, a cash flow coverage ratio below the ruleset's minimum or
 *    a negative net cash flow: an approve becomes `review` without a max advance, the first reason
 *    saying why; a decline stays a decline and a review stays a review, with the same reasons
 *    named right after the first.
 */
export function withHolds(
  e: Evaluation,
  analysis: Pick<DealAnalysis, 'authenticity' | 'reliability' | 'cash_flow' | 'financials'>,
): Evaluation {
  const holds = [...authenticityHolds(analysis), ...cashFlowHolds(analysis, e.cfcr_target)];
  const details = holds.map((h) => h.detail);
  const rest = e.reasons.slice(1).filter((r) => !details.includes(r));
  const unreliable = reliabilityReason(analysis);
  if (unreliable) {
    return { ...e, decision: 'review', max_advance: null, reasons: [unreliable, ...details, scoreLine(e.reasons[0]), ...rest] };
  }
  if (!holds.length) return e;
  if (e.decision !== 'approve') return { ...e, reasons: [e.reasons[0], ...details, ...rest] };
  return {
    ...e,
    decision: 'review',
    max_advance: null,
    reasons: [`Review: the score supports approval, but ${holds.map((h) => h.summary).join('; ')}`, ...details, ...rest],
  };
}
