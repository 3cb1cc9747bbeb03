import type { Evaluation } from './evaluation';
import type { LenderPosition, LenderPositionSummary } from './positions';
import type { DealReport } from './report';

/**
 * The version of the report as a server stores it. Bump it when a stored report's shape changes,
 * and teach `upgradeStoredReport` to read the previous one.
 *   0 (no `report_version`): written before the report was versioned; sections added later may be
 *     missing, `coverage` may lack its period, `recommendation` its reasons.
 *   1: `DealReport` with `report_version`, the `recommendation` section and the server's metadata.
 *   2: adds `accounts`, `staleness`, `own_transfers`, `affordability`, each statement row's
 *     `stale`, and the `revenue` section (true revenue per month); a version-1 report reads them as
 *     [] / null / false / null (it was computed without them). Lender positions gain the lender's
 *     directory id, funding, remaining balance, renewals and modifications, missed and bounced
 *     payments, stacking and evidence rows, and `lender_positions` the directory version and factor
 *     rate; older positions read with those fields null (or empty: no evidence rows; sequence 1,
 *     start "new": one position per lender then).
 */
export const REPORT_VERSION = 2;

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
type LaterSections = 'report_date' | 'coverage' | 'authenticity' | 'review' | 'currency' | 'cross_doc' | Version2Sections;
/** Sections version 2 added: null in a report written before. */
type Version2Sections = 'staleness' | 'own_transfers' | 'affordability';

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
  const older = stored.report_version === 1 ? upgradeFromV1(stored) : upgradeFromV0(stored);
  return { ...older, report_version: REPORT_VERSION, lender_positions: upgradePositions(older.lender_positions) };
}

/** Version 1 (and 0) positions: the fields added in version 2, as "not computed then". */
function upgradePositions(lp: LenderPositionSummary | null): LenderPositionSummary | null {
  if (!isObject(lp)) return null;
  const stored: unknown[] = Array.isArray(lp.positions) ? lp.positions : [];
  const positions = stored.map(
    (p): LenderPosition =>
      ({
        lender_id: null,
        lender_name: null,
        lender_kind: null,
        sequence: 1,
        start_reason: 'new',
        funding_amount: null,
        funding_date: null,
        estimated_payback: null,
        estimated_remaining_balance: null,
        missed_payments: null,
        bounced_payments: null,
        stacked: null,
        transactions: [],
        ...(p as Partial<LenderPosition>),
      }) as LenderPosition,
  );
  const v1: Partial<LenderPositionSummary> = lp;
  return { directory_version: null, factor_rate: null, factor_rate_source: null, ...v1, positions } as LenderPositionSummary;
}

/** Version 1: the sections of version 2 read as not computed; each statement row as not stale. */
function upgradeFromV1(v1: Record<string, unknown>): StoredDealReport {
  const rows = Array.isArray(v1.statements) ? (v1.statements as Record<string, unknown>[]) : [];
  return {
    ...(v1 as unknown as StoredDealReport),
    report_version: REPORT_VERSION,
    statements: rows.map((r) => ({ stale: false, ...r })) as StoredDealReport['statements'],
    accounts: Array.isArray(v1.accounts) ? (v1.accounts as StoredDealReport['accounts']) : [],
    staleness: null,
    own_transfers: null,
    affordability: null,
    revenue: null,
  };
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
    statements: list('statements').map((r) => ({ ...r, stale: (r as { stale?: boolean }).stale ?? false })),
    accounts: list('accounts'),
    staleness: section('staleness'),
    own_transfers: section('own_transfers'),
    affordability: section('affordability'),
    monthly: list('monthly'),
    daily_balances: list('daily_balances'),
    lender_positions: section('lender_positions'),
    nsf_events: list('nsf_events'),
    revenue_sources: list('revenue_sources'),
    revenue: section('revenue'),
    cross_doc: section('cross_doc'),
    related_deals: list('related_deals'),
    recommendation: recommendation ? { ...recommendation, reasons: recommendation.reasons ?? [] } : null,
    ...(meta ? { ai_summary_meta: meta } : {}),
    ...(typeof v0.inputs_key === 'string' ? { inputs_key: v0.inputs_key } : {}),
  };
}
