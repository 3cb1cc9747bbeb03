import type { DealAnalysis, ScoredDeal } from './deal';

/** The deal figures a summary may speak of: the prompt carries exactly this JSON. */
export interface SummaryFacts {
  business_name: string;
  industry: string | null;
  funding_amount_requested: number;
  /** the documents' tamper risk: a high risk is always spoken of */
  authenticity: { risk_level: unknown; high_risk_documents: number } | null;
  coverage: Record<string, unknown> | null;
  revenue: Record<string, unknown> | null;
  balances: Record<string, unknown> | null;
  nsf_overdraft: Record<string, unknown> | null;
  screening: Record<string, unknown> | null;
  lender_positions: Record<string, unknown> | null;
  cash_flow: Record<string, unknown> | null;
  health: Record<string, unknown> | null;
  recommendation: Record<string, unknown> | null;
}

const obj = (x: unknown): Record<string, unknown> | null =>
  x && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : null;
const pick = (source: Record<string, unknown> | null, keys: string[]): Record<string, unknown> | null =>
  source ? Object.fromEntries(keys.filter((k) => source[k] !== undefined).map((k) => [k, source[k]])) : null;

/** The deal's own fields a summary names. */
export interface SummaryDeal {
  business_name: string;
  industry: string | null;
  funding_amount_requested: number;
}

/** Revenue figures and the last twelve months. */
function revenueFacts(
  financials: Record<string, unknown> | null,
  monthly: DealAnalysis['monthly'] | undefined,
): Record<string, unknown> | null {
  if (!financials) return null;
  return {
    ...pick(financials, [
      'avg_monthly_deposits',
      'avg_monthly_revenue',
      'total_deposits',
      'total_withdrawals',
      'total_revenue',
      'deposit_frequency_per_month',
    ]),
    monthly: (monthly ?? []).slice(-12).map((m) => ({ month: m.month, deposits: m.deposits, revenue: m.revenue })),
  };
}

/** The flag counts, with only the buckets that matched. */
function screeningFacts(screening: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!screening) return null;
  const buckets = obj(screening.buckets);
  return {
    ...pick(screening, ['total_flags', 'transaction_count']),
    buckets: buckets ? Object.fromEntries(Object.entries(buckets).filter(([, n]) => typeof n === 'number' && n > 0)) : {},
  };
}

/** The lender positions, the first five named. */
function lenderFacts(positions: DealAnalysis['lender_positions'] | undefined): Record<string, unknown> | null {
  if (!positions) return null;
  return {
    position_count: positions.position_count,
    active_count: positions.active_count,
    stacking_count: positions.stacking_count,
    estimated_monthly_total: positions.estimated_monthly_total,
    positions: positions.positions.slice(0, 5).map((p) => ({
      counterparty: p.counterparty,
      frequency: p.frequency,
      payment_amount: p.payment_amount,
      estimated_monthly_total: p.estimated_monthly_total,
      is_active: p.is_active,
    })),
  };
}

/** The figures of the report and analysis that the narrative covers. */
export function summaryFacts(
  deal: SummaryDeal,
  storedReport: Record<string, unknown> | null,
  analysis: Partial<ScoredDeal> | null,
): SummaryFacts {
  const report = storedReport ?? {};
  const a = analysis;
  const auth = obj(report.authenticity);
  const financials = obj(a?.financials) ?? obj(report.financials);
  const screening = obj(a?.screening) ?? obj(report.screening);
  return {
    business_name: deal.business_name,
    industry: deal.industry,
    funding_amount_requested: deal.funding_amount_requested,
    authenticity: auth
      ? {
          risk_level: auth.risk_level,
          high_risk_documents: Array.isArray(auth.high_risk_document_ids) ? auth.high_risk_document_ids.length : 0,
        }
      : null,
    coverage: pick(obj(a?.coverage) ?? obj(report.coverage), [
      'months_covered',
      'days_covered',
      'statement_count',
      'period_start',
      'period_end',
    ]),
    revenue: revenueFacts(financials, a?.monthly),
    balances: pick(financials, [
      'avg_daily_balance',
      'ending_balance',
      'min_daily_balance',
      'negative_balance_days',
      'low_balance_days',
      'low_balance_threshold',
    ]),
    nsf_overdraft: pick(obj(a?.nsf_overdraft) ?? obj(report.nsf_overdraft), [
      'total_nsf_fees',
      'total_overdraft_fees',
      'nsf_months',
      'overdraft_months',
      'nsf_fee_amount',
      'overdraft_fee_amount',
    ]),
    screening: screeningFacts(screening),
    lender_positions: lenderFacts(a?.lender_positions),
    cash_flow: pick(obj(a?.cash_flow), ['cfcr', 'cash_flow_available', 'existing_monthly_debt_service', 'proposed_monthly_payment']),
    health: pick(obj(a?.health) ?? obj(report.health), ['score', 'grade']),
    recommendation: pick(obj(report.recommendation), ['decision', 'total_score', 'max_advance', 'cfcr', 'ruleset_name', 'grade']),
  };
}

/** `$1,234.50`, `-$2,677.39` (the sign before the currency symbol, as people write it). */
const usd = (n: unknown) =>
  typeof n === 'number'
    ? `${n < 0 ? '-' : ''}$${Math.abs(n).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`
    : 'not available';
const num = (n: unknown) => (typeof n === 'number' ? String(n) : 'not available');
const plural = (n: unknown, word: string) => `${num(n)} ${word}${n === 1 ? '' : 's'}`;

/** Deterministic narrative of the same content as the LLM prompt. */
export function templateSummary(f: SummaryFacts): string {
  const parts: string[] = [];
  const c = f.coverage;
  parts.push(
    `${f.business_name}${f.industry ? ` (${f.industry})` : ''} requests ${usd(f.funding_amount_requested)}.` +
      (c
        ? ` The report covers ${plural(c.months_covered, 'month')} (${plural(c.statement_count, 'statement')}${c.period_start ? `, ${c.period_start} to ${c.period_end}` : ''}).`
        : ''),
  );
  const r = f.revenue;
  if (r) {
    parts.push(
      `Deposits average ${usd(r.avg_monthly_deposits)} a month, of which ${usd(r.avg_monthly_revenue)} is revenue; total deposits ${usd(r.total_deposits)} against ${usd(r.total_withdrawals)} of withdrawals, with ${num(r.deposit_frequency_per_month)} deposits a month.`,
    );
  }
  const b = f.balances;
  if (b) {
    parts.push(
      `The average daily balance is ${usd(b.avg_daily_balance)} and the ending balance ${usd(b.ending_balance)}; the balance was negative on ${plural(b.negative_balance_days, 'day')} and below ${usd(b.low_balance_threshold)} on ${plural(b.low_balance_days, 'day')}.`,
    );
  }
  const n = f.nsf_overdraft;
  if (n) {
    parts.push(
      n.total_nsf_fees === 0 && n.total_overdraft_fees === 0
        ? 'There are no NSF or overdraft fees.'
        : `There are ${plural(n.total_nsf_fees, 'NSF fee')} and ${plural(n.total_overdraft_fees, 'overdraft fee')}, with NSF fees in ${plural(n.nsf_months, 'month')}.`,
    );
  }
  const s = f.screening;
  if (s) {
    const buckets = Object.entries((s.buckets as Record<string, number>) ?? {})
      .sort((x, y) => y[1] - x[1])
      .map(([k, v]) => `${k.replace(/_/g, ' ')} ${v}`);
    parts.push(
      s.total_flags === 0
        ? 'Screening flagged no transactions.'
        : `Screening flagged ${num(s.total_flags)} of ${num(s.transaction_count)} transactions${buckets.length ? ` (${buckets.join(', ')})` : ''}.`,
    );
  }
  const p = f.lender_positions;
  if (p) {
    const list = (p.positions as { counterparty: string; frequency: string; payment_amount: number }[]).map(
      (x) => `${x.counterparty} (${x.frequency}, ${usd(x.payment_amount)})`,
    );
    parts.push(
      p.position_count === 0
        ? 'No existing lender positions were detected.'
        : `${plural(p.position_count, 'lender position')} detected, ${num(p.active_count)} active, about ${usd(p.estimated_monthly_total)} a month in total: ${list.join('; ')}.`,
    );
  }
  if (f.authenticity?.risk_level === 'high') {
    parts.push(
      `Caution: ${plural(f.authenticity.high_risk_documents, 'document')} show${f.authenticity.high_risk_documents === 1 ? 's' : ''} signs of editing (high tampering risk); verify the originals with the bank before relying on these figures.`,
    );
  }
  if (f.health) parts.push(`The health score is ${num(f.health.score)} (grade ${f.health.grade ?? 'not available'}).`);
  const rec = f.recommendation;
  if (rec) {
    parts.push(
      `Recommendation under the ${rec.ruleset_name} ruleset: ${String(rec.decision).toUpperCase()} with a total score of ${num(rec.total_score)}` +
        (rec.max_advance !== null && rec.max_advance !== undefined ? `, a maximum advance of ${usd(rec.max_advance)}` : '') +
        ` and a cash flow coverage ratio of ${num(rec.cfcr)}.`,
    );
  } else if (f.cash_flow) {
    parts.push(`The cash flow coverage ratio is ${num(f.cash_flow.cfcr)}.`);
  }
  return parts.join(' ');
}

/**
 * Numbers in the text that match no figure of the facts (within rounding; ratios may appear as
 * percentages, large amounts as "k"/"M"). Small counts (0-31) pass: ordinal words, days, months.
 */
export function ungroundedNumbers(text: string, facts: SummaryFacts): string[] {
  const known: number[] = [];
  const walk = (v: unknown): void => {
    // magnitudes: the text carries the sign apart from the digits ("-$2,677.39", "a deficit of 2,677.39")
    if (typeof v === 'number' && Number.isFinite(v)) known.push(Math.abs(v), Math.abs(v * 100));
    else if (typeof v === 'string') for (const m of v.match(/\d+(?:\.\d+)?/g) ?? []) known.push(Number(m));
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(facts);
  const close = (x: number) => known.some((k) => Math.abs(x - k) <= Math.max(0.011, Math.abs(k) * 0.01));
  const out: string[] = [];
  for (const m of text.matchAll(/(\d[\d,]*(?:\.\d+)?)\s*([kKmM])?\b/g)) {
    const x = Number(m[1].replace(/,/g, ''));
    if (!Number.isFinite(x) || x <= 31) continue;
    const scale = m[2] ? (/k/i.test(m[2]) ? 1e3 : 1e6) : 1;
    if (!close(x * scale) && !close(x)) out.push(m[0].trim());
  }
  return out;
}
