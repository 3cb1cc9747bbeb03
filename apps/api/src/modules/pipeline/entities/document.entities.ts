import { Entity, Index, OptionalProps, PrimaryKey } from '@mikro-orm/core';
import { Bool, Double, Int, Json, Money, Text, Timestamp } from '../../../platform/database/columns';
import { TenantScoped } from '../../../platform/database/tenant';
import type { Reconciliation, TamperFindingJson } from '@ledgerlens/statements';

export const DOCUMENT_TYPES = ['bank_statement', 'tax_return', 'profit_and_loss', 'other'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];
/**
 * Accepted on input as an alias of profit_and_loss (README, "How the spec's variants became one API",
 * rule 2: requests accept every form's names).
 */
export const DOCUMENT_TYPE_ALIASES: Record<string, DocumentType> = { pnl_statement: 'profit_and_loss' };

export const DOCUMENT_STATUSES = [
  'uploaded',
  'classifying',
  'extracting_text',
  'running_ocr',
  'parsing_with_llm',
  'computing_metrics',
  'completed',
  'failed',
  'cancelled',
] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];
export const TERMINAL_STATUSES: readonly DocumentStatus[] = ['completed', 'failed', 'cancelled'];
export const isInFlight = (status: DocumentStatus) => !TERMINAL_STATUSES.includes(status);

export interface StepRecord {
  name: string;
  started_at: string;
  completed_at: string | null;
}

@TenantScoped()
@Entity({ tableName: 'documents' })
@Index({ properties: ['dealId', 'id'] })
@Index({ properties: ['status'] })
@Index({ properties: ['organizationId', 'sha256'] })
@Index({ properties: ['organizationId', 'accountNumberLast4'] })
export class Document {
  [OptionalProps]?:
    | 'createdAt'
    | 'updatedAt'
    | 'status'
    | 'attempt'
    | 'steps'
    | 'documentType'
    | 'documentTypeHint'
    | 'classificationConfidence'
    | 'error'
    | 'pageCount'
    | 'bankName'
    | 'accountNumberLast4'
    | 'accountType'
    | 'accountHolder'
    | 'statementStartDate'
    | 'statementEndDate'
    | 'openingBalance'
    | 'closingBalance'
    | 'extractionMethod'
    | 'extractionConfidence'
    | 'extractionModel'
    | 'parserFallbackReason'
    | 'pdfRiskLevel'
    | 'riskReasons'
    | 'reconciliation'
    | 'rawTextPages'
    | 'warnings'
    | 'analysis'
    | 'transactionCount'
    | 'screeningFlags'
    | 'processingStartedAt'
    | 'processingCompletedAt'
    | 'extractedAt'
    | 'analyzedAt'
    | 'label'
    | 'currency'
    | 'needsReview'
    | 'reviewReasons'
    | 'fieldSources'
    | 'readings'
    | 'reviewedAt'
    | 'reviewedBy'
    | 'tamperFindings';
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() organizationId: number;
  @Bool() livemode: boolean;
  @Int() dealId: number;
  @Text({ length: 500 }) filename: string;
  @Text({ length: 255, nullable: true }) label: string | null = null;
  @Int() fileSize: number;
  @Text({ length: 100 }) mimeType: string;
  @Text({ length: 64 }) sha256: string;
  @Text({ length: 255 }) storageKey: string;
  @Text({ length: 32 }) status: DocumentStatus = 'uploaded';
  /** Incremented by reprocess/reclassify: a job for an older attempt finds it stale and stops. */
  @Int({ default: 1 }) attempt: number = 1;
  @Json() steps: StepRecord[] = [];
  @Text({ nullable: true }) error: string | null = null;
  @Text({ length: 32, nullable: true }) documentType: DocumentType | null = null;
  @Text({ length: 32, nullable: true }) documentTypeHint: DocumentType | null = null;
  @Double({ nullable: true }) classificationConfidence: number | null = null;
  @Int({ nullable: true }) pageCount: number | null = null;
  @Text({ length: 255, nullable: true }) bankName: string | null = null;
  @Text({ length: 4, nullable: true }) accountNumberLast4: string | null = null;
  @Text({ length: 64, nullable: true }) accountType: string | null = null;
  @Text({ length: 255, nullable: true }) accountHolder: string | null = null;
  @Text({ length: 10, nullable: true }) statementStartDate: string | null = null;
  @Text({ length: 10, nullable: true }) statementEndDate: string | null = null;
  @Money({ nullable: true }) openingBalance: number | null = null;
  @Money({ nullable: true }) closingBalance: number | null = null;
  /** ISO 4217 code: read from the statement when the parser reports one, else declared at upload; null = unknown */
  @Text({ length: 3, nullable: true }) currency: string | null = null;
  @Text({ length: 16, nullable: true }) extractionMethod: string | null = null;
  @Double({ nullable: true }) extractionConfidence: number | null = null;
  @Text({ length: 128, nullable: true }) extractionModel: string | null = null;
  @Text({ nullable: true }) parserFallbackReason: string | null = null;
  @Text({ length: 8, nullable: true }) pdfRiskLevel: string | null = null;
  @Json({ nullable: true }) riskReasons: string[] | null = null;
  /** the reader's `Reconciliation` (stored JSON: an older reading may lack fields) */
  @Json({ nullable: true }) reconciliation: Partial<Reconciliation> | null = null;
  @Int({ nullable: true }) rawTextPages: number | null = null;
  @Json({ nullable: true }) warnings: string[] | null = null;
  /** The parser's verdict: a person should look at this document (reasons in reviewReasons). */
  @Bool({ nullable: true }) needsReview: boolean | null = null;
  @Json({ nullable: true }) reviewReasons: string[] | null = null;
  /** A person checked this reading and cleared its review flag (null again when the file is read anew). */
  @Timestamp({ nullable: true }) reviewedAt: Date | null = null;
  @Text({ length: 64, nullable: true }) reviewedBy: string | null = null;
  /** Where each header field was read (packages/statements `FieldSources`, keyed by the API field name). */
  @Json({ nullable: true }) fieldSources: Record<string, unknown> | null = null;
  /** What the parser inferred (date order, year, column roles, sign convention) with confidence and evidence (packages/statements `ReadingChoice`). */
  @Json({ nullable: true }) readings: Array<Record<string, unknown>> | null = null;
  /** The content tamper findings behind `pdfRiskLevel` (packages/statements `TamperFinding`, snake_case; docs/tamper.md). */
  @Json({ nullable: true }) tamperFindings: TamperFindingJson[] | null = null;
  /** Per-statement metrics (StatementMetrics of @ledgerlens/underwriting, snake_case, without the daily series). */
  @Json({ nullable: true }) analysis: Record<string, unknown> | null = null;
  @Int({ nullable: true }) transactionCount: number | null = null;
  @Int({ nullable: true }) screeningFlags: number | null = null;
  @Timestamp({ nullable: true }) processingStartedAt: Date | null = null;
  @Timestamp({ nullable: true }) processingCompletedAt: Date | null = null;
  @Timestamp({ nullable: true }) extractedAt: Date | null = null;
  @Timestamp({ nullable: true }) analyzedAt: Date | null = null;
  @Timestamp() createdAt: Date = new Date();
  @Timestamp() updatedAt: Date = new Date();
}
