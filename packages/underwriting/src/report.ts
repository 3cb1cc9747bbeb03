import { analyzeDeal, type CurrencySummary, type DealAnalysis, type FeeEvent, type MonthSummary, type RevenueSource } from './deal';
import type { DealAccount } from './accounts';
import type { Affordability } from './affordability';
import type { CrossDocResult } from './crossdoc';
import type { OrgLenderEntry } from './lenders';
import type { UnderwritingParams } from './params';
import type { LenderPositionSummary } from './positions';
import type { RevenueTable } from './revenue';
import type { StalenessSummary } from './staleness';
import type { TransferSummary } from './transfers';
import type { AllScores } from './scores';
import type { BucketCounts, StatementInput, StatementTransactionInput } from './types';

export const RISK_LEVELS = ['low', 'medium', 'high'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];
/** `unknown`: no processed document carries a risk assessment. */
export type DealRiskLevel = RiskLevel | 'unknown';

/** Below this extraction confidence a document needs a human look. */
export const MIN_EXTRACTION_CONFIDENCE = 0.8;

/** What the report needs of one processed document of the deal (a database row, in the server). */
export interface ReportDocumentInput {
  id: number | string;
  filename: string;
  documentType: string | null;
  /** terminal status: completed, failed or cancelled */
  status: string;
  error?: string | null;
  bankName?: string | null;
  accountNumberLast4?: string | null;
  accountHolder?: string | null;
  periodStart?: string | null;
  periodEnd?: string | null;
  openingBalance?: number | null;
  closingBalance?: number | null;
  /** ISO 4217; null when unknown */
  currency?: string | null;
  riskLevel?: RiskLevel | null;
  riskReasons?: string[];
  /** the parser's reconciliation verdict; null when not checked */
  reconciled?: boolean | null;
  extractionConfidence?: number | null;
  warnings?: string[];
  /** the parser's own needs-review verdict when it gives one, with its reasons */
  needsReview?: boolean | null;
  reviewReasons?: string[];
  /** parsed transactions of a completed bank statement */
  transactions?: StatementTransactionInput[];
}

/** A document of this deal whose account or file was already seen in another deal of the organization. */
export interface RelatedDocumentSighting {
  kind: 'same_account' | 'same_file';
  document_id: number | string;
  other_deal_id: number;
  other_business_name: string;
  other_document_id: number | string;
}

export interface BuildDealReportInput {
  documents: ReportDocumentInput[];
  fundingAmountRequested: number;
  /** YYYY-MM-DD */
  reportDate: string;
  sightings?: RelatedDocumentSighting[];
  params?: Partial<UnderwritingParams>;
  /** the organization's own lender names (see AnalyzeDealInput.lenders) */
  lenders?: readonly OrgLenderEntry[];
}

export interface DocumentAuthenticity {
  document_id: number | string;
  filename: string;
  risk_level: DealRiskLevel;
  reasons: string[];
}

export interface Authenticity {
  /** the highest risk of any processed document */
  risk_level: DealRiskLevel;
  /** "<filename>: <reason>" for every medium or high risk document */
  reasons: string[];
  high_risk_document_ids: (number | string)[];
  documents: DocumentAuthenticity[];
}

export interface DocumentReview {
  document_id: number | string;
  filename: string;
  status: string;
  reasons: string[];
  warnings: string[];
}

export interface ReviewSection {
  needs_review_count: number;
  documents: DocumentReview[];
}

/** A completed bank statement whose figures cannot be relied on yet: it failed to reconcile or the parser marked it for review. */
export interface UnreliableStatement {
  document_id: number | string;
  filename: string;
  /** false: the balances do not reconcile; null: not checked */
  reconciled: boolean | null;
  needs_review: boolean;
  /** the failed checks, in the parser's words ("does not reconcile: ... (difference 59673.00)") */
  problems: string[];
}

/** Whether the deal's figures rest on statements that were read reliably (every evaluation respects it). */
export interface Reliability {
  unreliable_statements: UnreliableStatement[];
}

export interface StatementRow {
  document_id: number | string;
  filename: string;
  bank_name: string | null;
  account_number_last4: string | null;
  account_holder: string | null;
  period_start: string | null;
  period_end: string | null;
  opening_balance: number | null;
  closing_balance: number | null;
  currency: string | null;
  reconciled: boolean | null;
  risk_level: DealRiskLevel;
  transaction_count: number;
  total_deposits: number | null;
  total_withdrawals: number | null;
  /** false when the statement is left out of every figure: in another currency than the deal, or stale */
  included: boolean;
  /** true when it lies outside the look-back window (see the report's `staleness`) */
  stale: boolean;
}

export interface RelatedDealFinding {
  type: 'same_account' | 'same_file';
  severity: 'warning' | 'error';
  message: string;
  document_id: number | string;
  other_deal_id: number;
  other_business_name: string;
  other_document_id: number | string;
}

/** The typed deal report (spec "Deal report" plus the sections an underwriter compares vendors on). */
export interface DealReport {
  report_date: string;
  ai_summary: string | null;
  coverage: DealAnalysis['coverage'];
  financials: DealAnalysis['financials'] | null;
  nsf_overdraft: DealAnalysis['nsf_overdraft'] | null;
  screening: { total_flags: number; buckets: BucketCounts; transaction_count: number; flagged_ratio: number } | null;
  health: AllScores['health'] | null;
  authenticity: Authenticity;
  review: ReviewSection;
  currency: CurrencySummary;
  statements: StatementRow[];
  monthly: MonthSummary[];
  daily_balances: { date: string; balance: number }[];
  lender_positions: LenderPositionSummary | null;
  /** the bank accounts of the analysed statements */
  accounts: DealAccount[];
  staleness: StalenessSummary | null;
  own_transfers: TransferSummary | null;
  affordability: Affordability | null;
  nsf_events: FeeEvent[];
  revenue_sources: RevenueSource[];
  /** true revenue per month: gross deposits, excluded by class, true revenue, cash deposits (null without a statement) */
  revenue: RevenueTable | null;
  cross_doc: CrossDocResult;
  related_deals: RelatedDealFinding[];
}

const RANK: Record<DealRiskLevel, number> = { unknown: -1, low: 0, medium: 1, high: 2 };

export function authenticityOf(documents: ReportDocumentInput[]): Authenticity {
  const processed = documents.filter((d) => d.status === 'completed');
  const docs: DocumentAuthenticity[] = processed.map((d) => ({
    document_id: d.id,
    filename: d.filename,
    risk_level: d.riskLevel ?? 'unknown',
    reasons: d.riskReasons ?? [],
  }));
  const level = docs.reduce<DealRiskLevel>((acc, d) => (RANK[d.risk_level] > RANK[acc] ? d.risk_level : acc), 'unknown');
  return {
    risk_level: level,
    reasons: docs
      .filter((d) => d.risk_level === 'medium' || d.risk_level === 'high')
      .flatMap((d) => (d.reasons.length ? d.reasons : ['no reason given']).map((r) => `${d.filename} (${d.risk_level} risk): ${r}`)),
    high_risk_document_ids: docs.filter((d) => d.risk_level === 'high').map((d) => d.document_id),
    documents: docs,
  };
}

/** Why a document needs a human look: failure, risk, no reconciliation, low confidence, warnings. */
export function reviewReasons(d: ReportDocumentInput): string[] {
  const reasons: string[] = [];
  if (d.status === 'failed') reasons.push(`processing failed${d.error ? `: ${d.error}` : ''}`);
  if (d.status === 'cancelled') reasons.push('processing was cancelled');
  if (d.status !== 'completed') return reasons;
  if (d.needsReview) reasons.push(...(d.reviewReasons?.length ? d.reviewReasons : ['the parser marked it for review']));
  if (d.riskLevel === 'medium' || d.riskLevel === 'high') reasons.push(`${d.riskLevel} tampering risk`);
  if (d.documentType === 'bank_statement' && d.reconciled === false) reasons.push('balances do not reconcile');
  if (typeof d.extractionConfidence === 'number' && d.extractionConfidence < MIN_EXTRACTION_CONFIDENCE) {
    reasons.push(`extraction confidence ${d.extractionConfidence} is below ${MIN_EXTRACTION_CONFIDENCE}`);
  }
  if (d.warnings?.length) reasons.push(`${d.warnings.length} parse warning${d.warnings.length === 1 ? '' : 's'}`);
  return [...new Set(reasons)];
}

export function reviewOf(documents: ReportDocumentInput[]): ReviewSection {
  const items = documents
    .map((d) => ({ document_id: d.id, filename: d.filename, status: d.status, reasons: reviewReasons(d), warnings: d.warnings ?? [] }))
    .filter((d) => d.reasons.length > 0);
  return { needs_review_count: items.length, documents: items };
}

export function relatedDealFindings(sightings: RelatedDocumentSighting[], documents: ReportDocumentInput[]): RelatedDealFinding[] {
  const name = new Map(documents.map((d) => [d.id, d.filename]));
  return sightings.map((s) => ({
    type: s.kind,
    // the very same file in another deal is a stronger signal than a shared account
    severity: s.kind === 'same_file' ? 'error' : 'warning',
    message:
      s.kind === 'same_file'
        ? `${name.get(s.document_id) ?? `document ${s.document_id}`} is the same file as document ${s.other_document_id} of deal ${s.other_deal_id} (${s.other_business_name})`
        : `${name.get(s.document_id) ?? `document ${s.document_id}`} is a statement of an account already seen in deal ${s.other_deal_id} (${s.other_business_name}, document ${s.other_document_id})`,
    document_id: s.document_id,
    other_deal_id: s.other_deal_id,
    other_business_name: s.other_business_name,
    other_document_id: s.other_document_id,
  }));
}

const isStatement = (d: ReportDocumentInput) => d.status === 'completed' && d.documentType === 'bank_statement';

/**
 * The completed bank statements that fail to reconcile or that the parser marked for review, with
 * the failed checks (the parser's reasons; "balances do not reconcile" when it gave none).
 */
export function reliabilityOf(documents: ReportDocumentInput[]): Reliability {
  const unreliable: UnreliableStatement[] = [];
  for (const d of documents.filter(isStatement)) {
    const unreconciled = d.reconciled === false;
    const needsReview = d.needsReview === true;
    if (!unreconciled && !needsReview) continue;
    const problems = [...(d.reviewReasons ?? [])];
    if (unreconciled && !problems.some((p) => /reconcile|running balance/i.test(p))) problems.unshift('balances do not reconcile');
    if (!problems.length) problems.push('the parser marked it for review');
    unreliable.push({
      document_id: d.id,
      filename: d.filename,
      reconciled: d.reconciled ?? null,
      needs_review: needsReview,
      problems: [...new Set(problems)],
    });
  }
  return { unreliable_statements: unreliable };
}

export function statementInputOf(d: ReportDocumentInput): StatementInput {
  return {
    id: d.id,
    bankName: d.bankName ?? null,
    accountNumberLast4: d.accountNumberLast4 ?? null,
    accountHolder: d.accountHolder ?? null,
    periodStart: d.periodStart ?? null,
    periodEnd: d.periodEnd ?? null,
    openingBalance: d.openingBalance ?? null,
    closingBalance: d.closingBalance ?? null,
    currency: d.currency ?? null,
    transactions: d.transactions ?? [],
  };
}

/**
 * The whole report of a deal from its processed documents. Pure. The analysis (null without a
 * completed bank statement) carries the authenticity and the reliability of the statements, so
 * every ruleset evaluation sees them.
 */
export function buildDealReport(input: BuildDealReportInput): { report: DealReport; analysis: DealAnalysis | null } {
  const authenticity = authenticityOf(input.documents);
  const statementDocs = input.documents.filter(isStatement);
  const analysis = statementDocs.length
    ? {
        ...analyzeDeal({
          statements: statementDocs.map(statementInputOf),
          fundingAmountRequested: input.fundingAmountRequested,
          params: input.params,
          lenders: input.lenders,
        }),
        authenticity,
        reliability: reliabilityOf(input.documents),
      }
    : null;
  const metrics = new Map((analysis?.statements ?? []).map((m) => [m.statement_id, m]));
  const stale = new Set((analysis?.staleness.stale_statements ?? []).map((x) => x.statement_id));
  const excluded = new Set([...(analysis?.currency.excluded_statement_ids ?? []), ...stale]);
  const statements: StatementRow[] = statementDocs.map((d) => {
    const m = metrics.get(d.id);
    return {
      document_id: d.id,
      filename: d.filename,
      bank_name: d.bankName ?? null,
      account_number_last4: d.accountNumberLast4 ?? null,
      account_holder: d.accountHolder ?? null,
      period_start: d.periodStart ?? null,
      period_end: d.periodEnd ?? null,
      opening_balance: d.openingBalance ?? null,
      closing_balance: d.closingBalance ?? null,
      currency: d.currency ?? null,
      reconciled: d.reconciled ?? null,
      risk_level: d.riskLevel ?? 'unknown',
      transaction_count: d.transactions?.length ?? 0,
      total_deposits: m ? m.total_deposits : null,
      total_withdrawals: m ? m.total_withdrawals : null,
      included: !excluded.has(d.id),
      stale: stale.has(d.id),
    };
  });
  const report: DealReport = {
    report_date: input.reportDate,
    ai_summary: null,
    coverage: analysis?.coverage ?? { months_covered: 0, days_covered: 0, statement_count: 0, period_start: null, period_end: null },
    financials: analysis?.financials ?? null,
    nsf_overdraft: analysis?.nsf_overdraft ?? null,
    screening: analysis?.screening ?? null,
    health: analysis?.health ?? null,
    authenticity,
    review: reviewOf(input.documents),
    currency: analysis?.currency ?? { reporting_currency: 'USD', currencies: [], excluded_statement_ids: [], unstated_statement_ids: [] },
    statements,
    monthly: analysis?.monthly ?? [],
    daily_balances: analysis?.daily_balances ?? [],
    lender_positions: analysis?.lender_positions ?? null,
    accounts: analysis?.accounts ?? [],
    staleness: analysis?.staleness ?? null,
    own_transfers: analysis?.own_transfers ?? null,
    affordability: analysis?.affordability ?? null,
    nsf_events: analysis?.nsf_events ?? [],
    revenue_sources: analysis?.revenue_sources ?? [],
    revenue: analysis?.revenue ?? null,
    cross_doc: analysis?.cross_doc ?? { score: 100, findings: [] },
    related_deals: relatedDealFindings(input.sightings ?? [], input.documents),
  };
  return { report, analysis };
}
