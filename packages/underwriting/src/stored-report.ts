import type { Evaluation } from './evaluation';
import type { DealReport } from './report';

/**
 * The version of the report as a server stores it. Bump it when a stored report's shape changes,
 * and teach `upgradeStoredReport` to read the previous one.
 *   0 (no `report_version`): written before the report was versioned; sections added later may be
 *     missing, `coverage` may lack its period, `recommendation` its reasons.
 *   1: `DealReport` with `report_version`, the `recommendation` section and the server's metadata.
 */
export const REPORT_VERSION = 1;

/** The report's `recommendation` section: the deal's default recommendation (spec: Deal report), plus ruleset_id and grade. */
export type ReportRecommendation = Pick<
  Evaluation,
  'decision' | 'total_score' | 'max_advance' | 'cfcr' | 'ruleset_name' | 'ruleset_id' | 'grade' | 'reasons'
>;

/** Who wrote the report's `ai_summary`, for which request. */
export interface AiSummaryMeta {
  /** the event that asked for it: a redelivered event does not write it twice */
  event_id: string;
  source: 'llm' | 'template';
  model: string | null;
  generated_at: string;
}

/** Sections a version-0 report may lack: read as null (as the API serves a section it has not got). */
type LaterSections = 'report_date' | 'coverage' | 'authenticity' | 'review' | 'currency' | 'cross_doc';

/** The deal report as stored on the deal: what `buildDealReport` built, plus the server's sections. */
export type StoredDealReport = Omit<DealReport, LaterSections> & {
  [K in LaterSections]: DealReport[K] | null;
} & {
  report_version: number;
  /** null until the default recommendation is generated (in the same transaction, on scoring) */
  recommendation: ReportRecommendation | null;
  ai_summary_meta?: AiSummaryMeta;
  /** what the report follows from (documents, attempts, corrections): an unchanged key skips a rescore */
  inputs_key?: string;
};

/** A freshly built report as stored: versioned, its recommendation to come. */
export function storedReport(report: DealReport): StoredDealReport {
  return { ...report, report_version: REPORT_VERSION, recommendation: null };
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * Any stored report read as the current version: the one place an older shape is understood.
 * A current report is returned as it is (no copy); null for anything that is not a report.
 */
export function upgradeStoredReport(stored: unknown): StoredDealReport | null {
  if (!isObject(stored)) return null;
  if (stored.report_version === REPORT_VERSION) return stored as StoredDealReport;
  return upgradeFromV0(stored);
}

/** Version 0: fills what a report of then may lack; sections it has are kept as they were. */
function upgradeFromV0(v0: Record<string, unknown>): StoredDealReport {
  const section = <K extends keyof StoredDealReport>(key: K): StoredDealReport[K] | null =>
    isObject(v0[key]) ? (v0[key] as StoredDealReport[K]) : null;
  const list = <K extends keyof StoredDealReport>(key: K): StoredDealReport[K] =>
    (Array.isArray(v0[key]) ? v0[key] : []) as StoredDealReport[K];
  const coverage = section('coverage');
  const recommendation = section('recommendation');
  const meta = section('ai_summary_meta');
  return {
    report_version: REPORT_VERSION,
    report_date: typeof v0.report_date === 'string' ? v0.report_date : null,
    ai_summary: typeof v0.ai_summary === 'string' ? v0.ai_summary : null,
    coverage: coverage ? Object.assign({ period_start: null, period_end: null }, coverage) : null,
    financials: section('financials'),
    nsf_overdraft: section('nsf_overdraft'),
    screening: section('screening'),
    health: section('health'),
    authenticity: section('authenticity'),
    review: section('review'),
    currency: section('currency'),
    statements: list('statements'),
    monthly: list('monthly'),
    daily_balances: list('daily_balances'),
    lender_positions: section('lender_positions'),
    nsf_events: list('nsf_events'),
    revenue_sources: list('revenue_sources'),
    cross_doc: section('cross_doc'),
    related_deals: list('related_deals'),
    recommendation: recommendation ? { ...recommendation, reasons: recommendation.reasons ?? [] } : null,
    ...(meta ? { ai_summary_meta: meta } : {}),
    ...(typeof v0.inputs_key === 'string' ? { inputs_key: v0.inputs_key } : {}),
  };
}
