import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsInt } from 'class-validator';
import { PageMetaDto } from '../../../platform/pagination/pagination';
import { ValidateString } from '../../../platform/validation/decorators';
import { ScreeningBucketsDto } from './report.dto';
import { DOCUMENT_STATUSES, DOCUMENT_TYPES } from '../entities/document.entities';

const NULLABLE_STRING = { type: String, nullable: true } as const;
const NULLABLE_NUMBER = { type: Number, nullable: true } as const;
const NULLABLE_DATE = { type: String, format: 'date', nullable: true } as const;
const NULLABLE_TS = { type: String, format: 'date-time', nullable: true } as const;

/** List item: Form A and Form B fields together (README, "How the spec's variants became one API", rule 2). */
export class DocumentSummaryDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ type: 'integer' }) deal_id: number;
  @ApiProperty() filename: string;
  @ApiProperty({ ...NULLABLE_STRING }) label: string | null;
  @ApiProperty({ type: 'integer' }) file_size: number;
  @ApiProperty() mime_type: string;
  @ApiProperty({ type: String, nullable: true, enum: [...DOCUMENT_TYPES, null] }) document_type: string | null;
  @ApiProperty({ enum: DOCUMENT_STATUSES }) status: string;
  @ApiProperty({ type: 'integer', nullable: true }) page_count: number | null;
  @ApiProperty({ ...NULLABLE_STRING }) bank_name: string | null;
  @ApiProperty({ ...NULLABLE_STRING }) account_number_last4: string | null;
  @ApiProperty({ ...NULLABLE_STRING, description: 'Same as account_number_last4 (Form B)' }) account_last_four: string | null;
  @ApiProperty({ ...NULLABLE_DATE }) statement_start_date: string | null;
  @ApiProperty({ ...NULLABLE_DATE }) statement_end_date: string | null;
  @ApiProperty({ ...NULLABLE_DATE }) statement_period_start: string | null;
  @ApiProperty({ ...NULLABLE_DATE }) statement_period_end: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) transaction_count: number | null;
  @ApiProperty({ ...NULLABLE_STRING, description: 'ISO 4217 code of the statement (read or declared); null when unknown' }) currency:
    string | null;
  @ApiProperty({ type: String, format: 'date-time' }) uploaded_at: string;
  @ApiProperty({ type: String, format: 'date-time' }) created_at: string;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at: string;
}

export class DocumentListDto {
  @ApiProperty({ type: [DocumentSummaryDto] }) data: DocumentSummaryDto[];
  @ApiProperty({ type: PageMetaDto }) meta: PageMetaDto;
}

export class ExtractionInfoDto {
  @ApiProperty({ ...NULLABLE_STRING, description: 'text, ocr or mixed' }) method: string | null;
  @ApiProperty({ ...NULLABLE_STRING, description: 'LLM model when the LLM parser was used' }) model: string | null;
  @ApiProperty({ ...NULLABLE_NUMBER }) confidence: number | null;
  @ApiProperty({ ...NULLABLE_STRING, description: 'rule or llm' }) parser: string | null;
  @ApiProperty({ ...NULLABLE_STRING }) parser_fallback_reason: string | null;
  @ApiProperty({ ...NULLABLE_TS }) extracted_at: string | null;
}

export class PrescreenDto {
  @ApiProperty({ type: 'integer' }) flagged_transactions: number;
  @ApiProperty({ type: ScreeningBucketsDto }) buckets: ScreeningBucketsDto;
}

/** The parser's balance check of the statement (packages/statements `Reconciliation`, snake_case). */
export class ReconciliationDto {
  @ApiProperty({ description: 'Opening balance plus transactions reaches the closing balance and the running balances follow' })
  reconciled: boolean;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Index of the first transaction whose printed running balance does not follow',
  })
  first_broken_row: number | null;
  @ApiProperty({ ...NULLABLE_NUMBER, description: 'opening + credits - debits' }) expected_closing: number | null;
  @ApiProperty({ ...NULLABLE_NUMBER, description: 'printed closing - expected closing' }) difference: number | null;
  @ApiProperty() confidence: number;
  @ApiProperty() total_credits: number;
  @ApiProperty() total_debits: number;
  @ApiProperty({ type: 'integer' }) balance_checks: number;
  @ApiProperty({ type: 'integer' }) balance_checks_passed: number;
  @ApiProperty({ type: Boolean, nullable: true }) totals_match: boolean | null;
}

/** Boxes [x0, y0, x1, y1] on a page of the statement, for highlighting what was read where. */
export const BoxesProperty = (what: string) =>
  ApiProperty({
    type: 'array',
    items: { type: 'array', items: { type: 'number' }, minItems: 4, maxItems: 4 },
    description: `Boxes [x0, y0, x1, y1] ${what}`,
  });

/** Where one header field was read. */
export class FieldSourceDto {
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: '1-based page; null when not read from one place (the transactions, an LLM)',
  })
  page: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: '1-based line on the page, top to bottom' }) line: number | null;
  @ApiProperty({ description: 'The label printed beside the value ("Account Number"), or the rule that found it ("mailing block")' })
  via: string;
  @ApiProperty({ description: 'The printed text the value was read from' }) text: string;
  @ApiProperty({ minimum: 0, maximum: 1, description: 'Below 0.7 the value comes with a warning in the extraction warnings' })
  confidence: number;
  @BoxesProperty(
    'of the printed words the value was read from, in PDF points from the top-left corner of `page`; empty when not read from one place (or read before boxes were kept)',
  )
  boxes: Array<[number, number, number, number]>;
}

/** Provenance of every header field, by the API field name. */
export class FieldSourcesDto {
  @ApiProperty({ type: FieldSourceDto, nullable: true }) bank_name: FieldSourceDto | null;
  @ApiProperty({ type: FieldSourceDto, nullable: true }) account_holder: FieldSourceDto | null;
  @ApiProperty({ type: FieldSourceDto, nullable: true }) account_number_last4: FieldSourceDto | null;
  @ApiProperty({ type: FieldSourceDto, nullable: true }) account_type: FieldSourceDto | null;
  @ApiProperty({ type: FieldSourceDto, nullable: true }) currency: FieldSourceDto | null;
  @ApiProperty({ type: FieldSourceDto, nullable: true }) statement_period_start: FieldSourceDto | null;
  @ApiProperty({ type: FieldSourceDto, nullable: true }) statement_period_end: FieldSourceDto | null;
  @ApiProperty({ type: FieldSourceDto, nullable: true }) opening_balance: FieldSourceDto | null;
  @ApiProperty({ type: FieldSourceDto, nullable: true }) closing_balance: FieldSourceDto | null;
}

export const READING_QUESTIONS = ['columns', 'sign', 'date_order', 'year', 'row_order'] as const;

/** The best reading not taken, and why it lost. */
export class RunnerUpDto {
  @ApiProperty({ description: 'The reading not taken, in words' }) chosen: string;
  @ApiProperty({ description: "Why it lost: what the statement's own figures say under it" }) why_not: string;
}

/** One reading the parser had to choose to read the statement, and what decided it. */
export class ReadingDto {
  @ApiProperty({
    enum: READING_QUESTIONS,
    description:
      'columns: which column is the date, description, debit, credit, balance (no header words); sign: the sign convention; date_order: DD/MM or MM/DD; year: the year of dates printed without one; row_order: rows printed oldest or newest first',
  })
  question: (typeof READING_QUESTIONS)[number];
  @ApiProperty({ description: 'The reading taken, in words ("DD/MM", "reversed", "yearless dates placed by the statement period (...)")' })
  chosen: string;
  @ApiProperty({ type: 'integer', minimum: 1, description: 'How many readings were weighed' }) candidates: number;
  @ApiProperty({ minimum: 0, maximum: 1 }) confidence: number;
  @ApiProperty({ description: 'What decided it: the running balance, the printed totals, the period, the calendar' }) evidence: string;
  @ApiProperty({
    type: RunnerUpDto,
    nullable: true,
    description: 'The best reading not taken and why it lost; null when only one was possible',
  })
  runner_up: RunnerUpDto | null;
}

export const TAMPER_FINDING_KINDS = [
  'glyph_style',
  'alignment',
  'baseline',
  'covered_text',
  'overlapping_text',
  'hidden_text',
  'draw_order',
  'pasted_patch',
  'pasted_image',
  'balance_chain',
  'totals',
  'period_dates',
  'round_amount',
  'font_pages',
] as const;

/** A sign of editing read from the document's content, with the evidence a person can check on the page (docs/tamper.md). */
export class TamperFindingDto {
  @ApiProperty({
    enum: TAMPER_FINDING_KINDS,
    description:
      'glyph_style: an amount in a font, size or colour its column or document does not use, or drawn with a digit its font has no glyph for; alignment / baseline: an amount off its column edge or its row baseline; covered_text: an amount under an opaque box drawn after it (with another amount on top: a white-box overlay); overlapping_text: two amounts printed over each other; hidden_text: invisible, clipped or off-page text contradicting the visible amount; draw_order: an amount written after the rest of its column; pasted_patch: on a scanned page, an amount whose pixels (paper noise, edge sharpness, paper tone, the pixel grid of an enlarged image) differ from the other amounts of its column and the words of its row, as a patch pasted into the scan; pasted_image: on a scanned page, an image of its own drawn over the scanned page image, over a value or inside the table of amounts (a patch pasted in a PDF editor); balance_chain / totals: the arithmetic (with boxes when one digit changed in one row explains it); period_dates: rows dated outside the printed statement period, or a period no bank prints; round_amount: a round deposit, among the largest, on an account whose other deposits are never round; font_pages: a font embedded on some pages only, or added by one page to set amounts',
  })
  kind: (typeof TAMPER_FINDING_KINDS)[number];
  @ApiProperty({ enum: ['content', 'arithmetic', 'structure'] }) category: 'content' | 'arithmetic' | 'structure';
  @ApiProperty({ enum: ['medium', 'high'] }) severity: 'medium' | 'high';
  @ApiProperty({ type: 'integer', nullable: true, minimum: 1, description: '1-based page; null when about the whole document' })
  page: number | null;
  @BoxesProperty(
    'of the evidence on `page`, in PDF points from its top-left corner (as transaction sources); empty when about the whole document',
  )
  boxes: Array<[number, number, number, number]>;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    minimum: 0,
    description:
      "0-based index of the row it concerns among the document's transactions in reading order (as reconciliation.first_broken_row); null when it concerns no row",
  })
  row: number | null;
  @ApiProperty({ description: 'The finding in a sentence a person can check on the page' }) message: string;
}

/** Document detail `analysis` (Form A and Form B fields together). */
export class DocumentAnalysisDto {
  @ApiProperty() total_credits: number;
  @ApiProperty() total_debits: number;
  @ApiProperty() total_deposits: number;
  @ApiProperty() total_withdrawals: number;
  @ApiProperty({ type: 'integer' }) transaction_count: number;
  @ApiProperty({ type: 'integer' }) nsf_count: number;
  @ApiProperty({ type: 'integer' }) overdraft_count: number;
  @ApiProperty({ ...NULLABLE_NUMBER }) avg_daily_balance: number | null;
  @ApiProperty({ ...NULLABLE_NUMBER }) ending_balance: number | null;
  @ApiProperty({ type: 'integer' }) deposit_count: number;
  @ApiProperty({ type: 'integer' }) deposit_days: number;
  @ApiProperty({ type: 'integer', description: 'Flagged transactions of this document in the deal-level screening' })
  screening_flags: number;
  @ApiProperty({ ...NULLABLE_TS }) analyzed_at: string | null;
}

export class DocumentDetailDto extends DocumentSummaryDto {
  @ApiProperty({ ...NULLABLE_NUMBER }) classification_confidence: number | null;
  @ApiProperty({ ...NULLABLE_STRING }) account_type: string | null;
  @ApiProperty({ ...NULLABLE_STRING }) account_holder: string | null;
  @ApiProperty({ ...NULLABLE_NUMBER }) opening_balance: number | null;
  @ApiProperty({ ...NULLABLE_NUMBER }) closing_balance: number | null;
  @ApiProperty({ ...NULLABLE_STRING }) extraction_method: string | null;
  @ApiProperty({ ...NULLABLE_NUMBER }) extraction_confidence: number | null;
  @ApiProperty({ type: String, nullable: true, enum: ['low', 'medium', 'high', null] }) pdf_risk_level: string | null;
  @ApiProperty({ type: [String] }) risk_reasons: string[];
  @ApiProperty({
    type: [TamperFindingDto],
    description:
      'The content findings behind pdf_risk_level (their sentences are also among risk_reasons), each with its page and boxes; empty when there are none or the document was read before they were kept',
  })
  tamper_findings: TamperFindingDto[];
  @ApiProperty({
    type: Boolean,
    nullable: true,
    description: "The parser's verdict that a person should look at the document; null before parsing",
  })
  needs_review: boolean | null;
  @ApiProperty({ type: [String] }) review_reasons: string[];
  @ApiProperty({
    ...NULLABLE_TS,
    description: 'When a person marked the reading reviewed (POST /v1/documents/{id}/review); null again when the file is read anew',
  })
  reviewed_at: string | null;
  @ApiProperty({ ...NULLABLE_STRING, description: 'Who marked it reviewed (user:<id> or key:<id>)' }) reviewed_by: string | null;
  @ApiProperty({
    type: FieldSourcesDto,
    description:
      'Where each header field was read (page, line, label or rule) and with what confidence; a field is null when it was not read',
  })
  field_sources: FieldSourcesDto;
  @ApiProperty({
    type: [ReadingDto],
    description:
      'What the parser inferred to read the statement (date order, year of yearless dates, column roles, sign convention), each with a confidence and its evidence; empty before parsing or when nothing had to be inferred',
  })
  readings: ReadingDto[];
  @ApiProperty({ type: ReconciliationDto, nullable: true }) reconciliation: ReconciliationDto | null;
  @ApiProperty({ ...NULLABLE_STRING }) error: string | null;
  @ApiProperty({ ...NULLABLE_TS }) processing_started_at: string | null;
  @ApiProperty({ ...NULLABLE_TS }) processing_completed_at: string | null;
  @ApiProperty({ type: ExtractionInfoDto, nullable: true }) extraction: ExtractionInfoDto | null;
  @ApiProperty({ type: DocumentAnalysisDto, nullable: true, description: 'Only once completed' }) analysis: DocumentAnalysisDto | null;
  @ApiProperty({ type: PrescreenDto, nullable: true }) prescreen: PrescreenDto | null;
}

export class StepDto {
  @ApiProperty() name: string;
  @ApiProperty({ type: String, format: 'date-time' }) started_at: string;
  @ApiProperty({ ...NULLABLE_TS }) completed_at: string | null;
}

/** Status view: Form A (processing_step, progress_pct) and Form B (steps, error) together. */
export class DocumentStatusDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ enum: DOCUMENT_STATUSES }) status: string;
  @ApiProperty() processing_step: string;
  @ApiProperty({ type: 'integer', minimum: 0, maximum: 100 }) progress_pct: number;
  @ApiProperty({ type: [StepDto] }) steps: StepDto[];
  @ApiProperty({ ...NULLABLE_STRING }) error: string | null;
  @ApiProperty({ type: String, nullable: true, enum: [...DOCUMENT_TYPES, null] }) document_type: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at: string;
}

export class UploadedDocumentDto extends DocumentSummaryDto {
  @ApiProperty() message: string;
}

export class BulkUploadErrorDto {
  @ApiProperty() filename: string;
  @ApiProperty() code: string;
  @ApiProperty() detail: string;
}

export class BulkUploadedItemDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty() filename: string;
  @ApiProperty() status: string;
  @ApiProperty({ type: 'integer' }) file_size: number;
  @ApiProperty() mime_type: string;
}

export class BulkUploadResultDto {
  @ApiProperty({ type: 'integer' }) deal_id: number;
  @ApiProperty({ type: [BulkUploadedItemDto] }) uploaded: BulkUploadedItemDto[];
  @ApiProperty({ type: [BulkUploadErrorDto] }) errors: BulkUploadErrorDto[];
  @ApiProperty({ type: 'integer' }) total_uploaded: number;
  @ApiProperty({ type: 'integer' }) total_errors: number;
}

export class BatchStatusRequestDto {
  @ApiProperty({ type: [Number], maxItems: 100, minItems: 1 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @IsInt({ each: true })
  document_ids: number[];
}

export class BatchStatusItemDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ enum: [...DOCUMENT_STATUSES, 'not_found'] }) status: string;
  @ApiProperty({ type: String, nullable: true, enum: [...DOCUMENT_TYPES, null] }) document_type: string | null;
  @ApiProperty({ ...NULLABLE_STRING }) error: string | null;
  @ApiProperty({ ...NULLABLE_TS }) updated_at: string | null;
}

export class BatchStatusDto {
  @ApiProperty({ type: [BatchStatusItemDto], description: 'Form A' }) documents: BatchStatusItemDto[];
  @ApiProperty({ type: [BatchStatusItemDto], description: 'Form B (same entries)' }) statuses: BatchStatusItemDto[];
}

export class DocumentActionDto {
  @ApiProperty({ enum: ['ok'] }) status: 'ok';
  @ApiProperty({ enum: [true] }) success: true;
  @ApiProperty() message: string;
  @ApiProperty({ type: 'integer' }) document_id: number;
  @ApiProperty({ enum: DOCUMENT_STATUSES }) document_status: string;
  @ApiPropertyOptional({ enum: DOCUMENT_TYPES }) new_document_type?: string;
  @ApiPropertyOptional({ enum: DOCUMENT_TYPES }) document_type?: string;
}

export class ReprocessFailedDto {
  @ApiProperty({ enum: ['ok'] }) status: 'ok';
  @ApiProperty({ enum: [true] }) success: true;
  @ApiProperty() message: string;
  @ApiProperty({ type: 'integer' }) deal_id: number;
  @ApiProperty({ type: [Number] }) queued_document_ids: number[];
}

export class ReclassifyQueryDto {
  @ApiPropertyOptional({ enum: [...DOCUMENT_TYPES, 'pnl_statement'] }) document_type?: string;
}

export class ExtractionRecordDto {
  @ApiProperty({ type: 'integer' }) document_id: number;
  @ApiProperty({ ...NULLABLE_STRING }) method: string | null;
  @ApiProperty({ ...NULLABLE_STRING }) model: string | null;
  @ApiProperty({ ...NULLABLE_NUMBER }) confidence: number | null;
  @ApiProperty({ ...NULLABLE_STRING }) bank_name: string | null;
  @ApiProperty({ ...NULLABLE_STRING }) account_number_last_four: string | null;
  @ApiProperty({ ...NULLABLE_STRING }) account_holder: string | null;
  @ApiProperty({ ...NULLABLE_DATE }) statement_period_start: string | null;
  @ApiProperty({ ...NULLABLE_DATE }) statement_period_end: string | null;
  @ApiProperty({ ...NULLABLE_NUMBER }) opening_balance: number | null;
  @ApiProperty({ ...NULLABLE_NUMBER }) closing_balance: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) transaction_count: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) raw_text_pages: number | null;
  @ApiProperty({ type: [String] }) warnings: string[];
  @ApiProperty({ type: [ReadingDto], description: 'What the parser inferred, as in the document detail' }) readings: ReadingDto[];
  @ApiProperty({ ...NULLABLE_TS }) extracted_at: string | null;
}

export class AnalysisRecordDto {
  @ApiProperty({ type: 'integer' }) document_id: number;
  @ApiProperty() total_deposits: number;
  @ApiProperty() total_withdrawals: number;
  @ApiProperty() net_cash_flow: number;
  @ApiProperty({ ...NULLABLE_NUMBER }) avg_daily_balance: number | null;
  @ApiProperty({ ...NULLABLE_NUMBER }) min_daily_balance: number | null;
  @ApiProperty({ ...NULLABLE_NUMBER }) max_daily_balance: number | null;
  @ApiProperty({ ...NULLABLE_NUMBER }) ending_balance: number | null;
  @ApiProperty({ type: 'integer' }) deposit_count: number;
  @ApiProperty({ type: 'integer' }) withdrawal_count: number;
  @ApiProperty({ type: 'integer' }) nsf_count: number;
  @ApiProperty() nsf_total_fees: number;
  @ApiProperty({ type: 'integer' }) overdraft_count: number;
  @ApiProperty() overdraft_total_fees: number;
  @ApiProperty() deposit_frequency_per_month: number;
  @ApiProperty() avg_deposit_amount: number;
  @ApiProperty() largest_deposit: number;
  @ApiProperty({ type: 'integer' }) screening_flags: number;
  @ApiProperty({ type: ScreeningBucketsDto }) screening_buckets: ScreeningBucketsDto;
  @ApiProperty({ ...NULLABLE_TS }) analyzed_at: string | null;
}

export class ReviewDocumentDto {
  @ValidateString({ optional: true, maxLength: 500, description: 'What was checked; kept on the deal timeline' }) note?: string;
}

/** One document of the review queue. */
export class ReviewQueueItemDto {
  @ApiProperty({ type: 'integer' }) document_id: number;
  @ApiProperty({ type: 'integer' }) deal_id: number;
  @ApiProperty() business_name: string;
  @ApiProperty() filename: string;
  @ApiProperty({ ...NULLABLE_STRING }) bank_name: string | null;
  @ApiProperty({ ...NULLABLE_STRING }) statement_start_date: string | null;
  @ApiProperty({ ...NULLABLE_STRING }) statement_end_date: string | null;
  @ApiProperty({ type: [String] }) review_reasons: string[];
  @ApiProperty({ type: 'integer' }) transaction_count: number;
  @ApiProperty({ ...NULLABLE_TS, description: 'When the reading finished: the queue is oldest first' }) processing_completed_at:
    string | null;
  @ApiProperty({ description: 'The deal is assigned to the caller (these come first)' }) assigned_to_me: boolean;
}

export class ReviewQueueDto {
  @ApiProperty({ type: [ReviewQueueItemDto] }) data: ReviewQueueItemDto[];
  @ApiProperty({ type: PageMetaDto }) meta: PageMetaDto;
}
