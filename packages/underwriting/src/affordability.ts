import type { LenderPositionSummary } from './positions';
import { formatMoney, round2 } from './util';

/**
 * What the merchant's cash flow can carry: the holdback existing positions take, and the largest new
 * advance the ruleset's maximum total holdback, factor rate and term allow. Every input and step is
 * kept so an underwriter can redo the sum by hand.
 */
export interface Affordability {
  /** the deal's average monthly revenue (financials.avg_monthly_revenue) */
  monthly_revenue: number;
  /** estimated monthly debits of the active lender positions */
  existing_monthly_debits: number;
  active_position_count: number;
  /** existing_monthly_debits / monthly_revenue (4 decimals); null without revenue */
  existing_holdback: number | null;
  /** the largest share of revenue all positions together may take */
  max_total_holdback: number;
  factor_rate: number;
  term_months: number;
  /** max_total_holdback x monthly_revenue - existing_monthly_debits (negative: no room) */
  monthly_headroom: number;
  /** max(0, monthly_headroom) x term_months */
  max_payback: number;
  /** max_payback / factor_rate */
  max_advance: number;
  /** the arithmetic, one line per step */
  steps: string[];
}

export interface AffordabilityTerms {
  maxTotalHoldback: number;
  factorRate: number;
  termMonths: number;
}

const pct = (x: number) => `${round2(x * 100)}%`;

/**
 * max_payback = (max_total_holdback x monthly revenue - existing monthly debits) x term_months;
 * max_advance = max_payback / factor_rate; both zero when the headroom is negative. The existing
 * debits are those of the positions still being paid (is_active). Money is rounded to the cent at
 * each step, so the steps as printed add up.
 */
export function affordabilityOf(monthlyRevenue: number, positions: LenderPositionSummary, t: AffordabilityTerms): Affordability {
  const active = positions.positions.filter((x) => x.is_active);
  const debits = active.reduce((s, x) => s + x.estimated_monthly_total, 0);
  return compute(round2(monthlyRevenue), round2(debits), active.length, t);
}

/** The same revenue and existing debits at other terms (a ruleset's own). */
export function affordabilityAtTerms(a: Affordability, t: AffordabilityTerms): Affordability {
  return compute(a.monthly_revenue, a.existing_monthly_debits, a.active_position_count, t);
}

function compute(revenue: number, debits: number, activeCount: number, t: AffordabilityTerms): Affordability {
  const allowed = round2(t.maxTotalHoldback * revenue);
  const headroom = round2(allowed - debits);
  const payback = round2(Math.max(0, headroom) * t.termMonths);
  const advance = round2(payback / t.factorRate);
  const holdback = revenue > 0 ? Math.round((debits / revenue) * 10000) / 10000 : null;
  const steps = [
    `monthly revenue ${formatMoney(revenue)}; existing positions take ${formatMoney(debits)} a month (${activeCount} active position${activeCount === 1 ? '' : 's'})${holdback !== null ? `, a holdback of ${pct(holdback)}` : ''}`,
    `${pct(t.maxTotalHoldback)} maximum total holdback x ${formatMoney(revenue)} = ${formatMoney(allowed)} a month`,
    `${formatMoney(allowed)} - ${formatMoney(debits)} existing = ${formatMoney(headroom)} monthly headroom${headroom < 0 ? ' (none left: no new advance)' : ''}`,
    `${formatMoney(Math.max(0, headroom))} x ${t.termMonths} months = ${formatMoney(payback)} maximum payback`,
    `${formatMoney(payback)} / ${t.factorRate} factor rate = ${formatMoney(advance)} maximum advance`,
  ];
  return {
    monthly_revenue: revenue,
    existing_monthly_debits: debits,
    active_position_count: activeCount,
    existing_holdback: holdback,
    max_total_holdback: t.maxTotalHoldback,
    factor_rate: t.factorRate,
    term_months: t.termMonths,
    monthly_headroom: headroom,
    max_payback: payback,
    max_advance: advance,
    steps,
  };
}

/** The affordability as one sentence of a recommendation's reasons. */
export function affordabilityReason(a: Affordability): string {
  return `Affordability: ${a.steps.join('; ')}`;
}
