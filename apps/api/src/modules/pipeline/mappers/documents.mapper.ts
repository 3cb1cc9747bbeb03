import type { Reconciliation, TamperFindingJson } from '@ledgerlens/statements';
import { emptyBucketCounts, type BucketCounts } from '@ledgerlens/underwriting';
import { ScreeningBucketsDto } from '../dto/report.dto';
import { STEP_LABELS, STEP_PROGRESS } from '../services/processing.jobs';
import { Document } from '../entities/document.entities';
import {
  AnalysisRecordDto,
  DocumentDetailDto,
  ReconciliationDto,
  DocumentStatusDto,
  DocumentSummaryDto,
  ExtractionRecordDto,
  FieldSourceDto,
  FieldSourcesDto,
  READING_QUESTIONS,
  ReadingDto,
  TAMPER_FINDING_KINDS,
  TamperFindingDto,
} from '../dto/document.dto';

const iso = (d: Date | null) => d?.toISOString() ?? null;
const num = (v: unknown) => (typeof v === 'number' ? v : 0);

/** Every bucket, zero when absent (documents processed before a bucket existed). */
function bucketsOf(stored: unknown): ScreeningBucketsDto {
  const counts = emptyBucketCounts();
  if (stored && typeof stored === 'object')
    for (const k of Object.keys(counts) as (keyof BucketCounts)[]) counts[k] = num((stored as Record<string, unknown>)[k]);
  return counts;
}

/** The stored packages/statements `Reconciliation` (camelCase) in the API's snake_case. */
export function mapReconciliation(stored: Partial<Reconciliation> | null): ReconciliationDto | null {
  if (!stored) return null;
  const r = stored;
  return {
    reconciled: r.reconciled === true,
    first_broken_row: r.firstBrokenRow ?? null,
    expected_closing: r.expectedClosing ?? null,
    difference: r.difference ?? null,
    confidence: r.confidence ?? 0,
    total_credits: r.totalCredits ?? 0,
    total_debits: r.totalDebits ?? 0,
    balance_checks: r.balanceChecks ?? 0,
    balance_checks_passed: r.balanceChecksPassed ?? 0,
    totals_match: r.totalsMatch ?? null,
  };
}

const FIELD_SOURCE_KEYS = [
  'bank_name',
  'account_holder',
  'account_number_last4',
  'account_type',
  'currency',
  'statement_period_start',
  'statement_period_end',
  'opening_balance',
  'closing_balance',
] as const satisfies ReadonlyArray<keyof FieldSourcesDto>;

/** The stored provenance (every field null for documents parsed before provenance existed). */
export function mapFieldSources(stored: Record<string, unknown> | null): FieldSourcesDto {
  const out = {} as FieldSourcesDto;
  for (const k of FIELD_SOURCE_KEYS) {
    const s = stored?.[k] as Partial<FieldSourceDto> | null | undefined;
    out[k] =
      s && typeof s === 'object'
        ? {
            page: s.page ?? null,
            line: s.line ?? null,
            via: s.via ?? '',
            text: s.text ?? '',
            confidence: s.confidence ?? 0,
            boxes: Array.isArray(s.boxes) ? s.boxes : [],
          }
        : null;
  }
  return out;
}

/** A stored runner-up reading ({chosen, why_not}); null when absent or malformed. */
function runnerUp(v: unknown): ReadingDto['runner_up'] {
  if (!v || typeof v !== 'object') return null;
  const r = v as Record<string, unknown>;
  return typeof r.chosen === 'string' && typeof r.why_not === 'string' ? { chosen: r.chosen, why_not: r.why_not } : null;
}

/** The stored readings ([] for documents parsed before readings were kept); unknown entries are left out. */
export function mapReadings(stored: Array<Record<string, unknown>> | null): ReadingDto[] {
  const out: ReadingDto[] = [];
  for (const r of stored ?? []) {
    const question = r.question as ReadingDto['question'];
    if (!READING_QUESTIONS.includes(question)) continue;
    out.push({
      question,
      chosen: String(r.chosen ?? ''),
      candidates: num(r.candidates) || 1,
      confidence: num(r.confidence),
      evidence: String(r.evidence ?? ''),
      runner_up: runnerUp(r.runner_up),
    });
  }
  return out;
}

const isBox = (b: unknown): b is [number, number, number, number] =>
  Array.isArray(b) && b.length === 4 && b.every((v) => typeof v === 'number');

/** The stored tamper findings ([] for documents read before they were kept); malformed entries are left out. */
export function mapTamperFindings(stored: TamperFindingJson[] | null): TamperFindingDto[] {
  const out: TamperFindingDto[] = [];
  for (const f of stored ?? []) {
    const kind = f.kind as TamperFindingDto['kind'];
    if (!TAMPER_FINDING_KINDS.includes(kind)) continue;
    out.push({
      kind,
      category: f.category === 'arithmetic' || f.category === 'structure' ? f.category : 'content',
      severity: f.severity === 'high' ? 'high' : 'medium',
      page: typeof f.page === 'number' ? f.page : null,
      boxes: Array.isArray(f.boxes) ? f.boxes.filter(isBox) : [],
      row: typeof f.row === 'number' ? f.row : null,
      message: String(f.message ?? ''),
    });
  }
  return out;
}

export function mapDocumentSummary(doc: Document): DocumentSummaryDto {
  return {
    id: doc.id,
    deal_id: doc.dealId,
    filename: doc.filename,
    label: doc.label,
    file_size: doc.fileSize,
    mime_type: doc.mimeType,
    document_type: doc.documentType,
    status: doc.status,
    page_count: doc.pageCount,
    bank_name: doc.bankName,
    account_number_last4: doc.accountNumberLast4,
    account_last_four: doc.accountNumberLast4,
    statement_start_date: doc.statementStartDate,
    statement_end_date: doc.statementEndDate,
    statement_period_start: doc.statementStartDate,
    statement_period_end: doc.statementEndDate,
    transaction_count: doc.transactionCount,
    currency: doc.currency,
    uploaded_at: doc.createdAt.toISOString(),
    created_at: doc.createdAt.toISOString(),
    updated_at: doc.updatedAt.toISOString(),
  };
}

/** Object.assign onto the summary, not a spread into a literal: V8's slow path for that (see mapDealDetail). */
export function mapDocumentDetail(doc: Document): DocumentDetailDto {
  const completed = doc.status === 'completed';
  const a = completed ? (doc.analysis ?? null) : null;
  return Object.assign(mapDocumentSummary(doc), {
    classification_confidence: doc.classificationConfidence,
    account_type: doc.accountType,
    account_holder: doc.accountHolder,
    opening_balance: doc.openingBalance,
    closing_balance: doc.closingBalance,
    extraction_method: doc.extractionMethod,
    extraction_confidence: doc.extractionConfidence,
    pdf_risk_level: doc.pdfRiskLevel,
    risk_reasons: doc.riskReasons ?? [],
    tamper_findings: mapTamperFindings(doc.tamperFindings),
    needs_review: doc.needsReview,
    review_reasons: doc.reviewReasons ?? [],
    reviewed_at: doc.reviewedAt?.toISOString() ?? null,
    reviewed_by: doc.reviewedBy,
    field_sources: mapFieldSources(doc.fieldSources),
    readings: mapReadings(doc.readings),
    reconciliation: mapReconciliation(doc.reconciliation),
    error: doc.error,
    processing_started_at: iso(doc.processingStartedAt),
    processing_completed_at: iso(doc.processingCompletedAt),
    extraction: doc.extractedAt
      ? {
          method: doc.extractionMethod,
          model: doc.extractionModel,
          confidence: doc.extractionConfidence,
          parser: doc.extractionModel ? 'llm' : 'rule',
          parser_fallback_reason: doc.parserFallbackReason,
          extracted_at: iso(doc.extractedAt),
        }
      : null,
    analysis: completed
      ? {
          total_credits: num(a?.total_credits),
          total_debits: num(a?.total_debits),
          total_deposits: num(a?.total_deposits),
          total_withdrawals: num(a?.total_withdrawals),
          transaction_count: doc.transactionCount ?? 0,
          nsf_count: num(a?.nsf_count),
          overdraft_count: num(a?.overdraft_count),
          avg_daily_balance: (a?.avg_daily_balance as number | null | undefined) ?? null,
          ending_balance: (a?.ending_balance as number | null | undefined) ?? null,
          deposit_count: num(a?.deposit_count),
          deposit_days: num(a?.deposit_days),
          screening_flags: doc.screeningFlags ?? 0,
          analyzed_at: iso(doc.analyzedAt),
        }
      : null,
    prescreen: completed ? { flagged_transactions: doc.screeningFlags ?? 0, buckets: bucketsOf(a?.screening_buckets) } : null,
  });
}

export function mapDocumentStatus(doc: Document): DocumentStatusDto {
  return {
    id: doc.id,
    status: doc.status,
    processing_step: doc.status === 'failed' && doc.error ? `Failed: ${doc.error}` : STEP_LABELS[doc.status],
    progress_pct: STEP_PROGRESS[doc.status],
    steps: doc.steps,
    error: doc.error,
    document_type: doc.documentType,
    updated_at: doc.updatedAt.toISOString(),
  };
}

export function mapExtraction(doc: Document): ExtractionRecordDto {
  return {
    document_id: doc.id,
    method: doc.extractionMethod,
    model: doc.extractionModel,
    confidence: doc.extractionConfidence,
    bank_name: doc.bankName,
    account_number_last_four: doc.accountNumberLast4,
    account_holder: doc.accountHolder,
    statement_period_start: doc.statementStartDate,
    statement_period_end: doc.statementEndDate,
    opening_balance: doc.openingBalance,
    closing_balance: doc.closingBalance,
    transaction_count: doc.transactionCount,
    raw_text_pages: doc.rawTextPages,
    warnings: doc.warnings ?? [],
    readings: mapReadings(doc.readings),
    extracted_at: iso(doc.extractedAt),
  };
}

export function mapAnalysis(doc: Document): AnalysisRecordDto {
  const a = doc.analysis ?? {};
  const n = (k: string) => num(a[k]);
  const nn = (k: string) => (typeof a[k] === 'number' ? (a[k] as number) : null);
  return {
    document_id: doc.id,
    total_deposits: n('total_deposits'),
    total_withdrawals: n('total_withdrawals'),
    net_cash_flow: n('net_cash_flow'),
    avg_daily_balance: nn('avg_daily_balance'),
    min_daily_balance: nn('min_daily_balance'),
    max_daily_balance: nn('max_daily_balance'),
    ending_balance: nn('ending_balance'),
    deposit_count: n('deposit_count'),
    withdrawal_count: n('withdrawal_count'),
    nsf_count: n('nsf_count'),
    nsf_total_fees: n('nsf_total_fees'),
    overdraft_count: n('overdraft_count'),
    overdraft_total_fees: n('overdraft_total_fees'),
    deposit_frequency_per_month: n('deposit_frequency_per_month'),
    avg_deposit_amount: n('avg_deposit_amount'),
    largest_deposit: n('largest_deposit'),
    screening_flags: doc.screeningFlags ?? 0,
    screening_buckets: bucketsOf(a.screening_buckets),
    analyzed_at: iso(doc.analyzedAt),
  };
}
