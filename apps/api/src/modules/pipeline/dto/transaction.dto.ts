import { ApiProperty } from '@nestjs/swagger';
import { PageMetaDto } from '../../../platform/pagination/pagination';
import { ValidateBoolean, ValidateEnum, ValidateInt, ValidateNumber, ValidateString } from '../../../platform/validation/decorators';
import { BoxesProperty } from './document.dto';
import { REVENUE_CLASSES } from '@ledgerlens/underwriting';
import { TRANSACTION_CATEGORIES } from '../entities/transaction.entities';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DateQuery = (description: string) =>
  ValidateString({ optional: true, pattern: DATE, patternMessage: '$property must be a date YYYY-MM-DD', description });

/**
 * Filters of both forms (README, "How the spec's variants became one API", rule 2: requests accept
 * every form's names): type/transaction_type, start_date/date_from, end_date/date_to.
 */
export class TransactionQueryDto {
  @ValidateInt({ optional: true, query: true, min: 1 }) page?: number;
  @ValidateInt({ optional: true, query: true, min: 1, max: 200, description: 'Default 50, max 200' }) per_page?: number;
  @ValidateEnum(['credit', 'debit'] as const, { optional: true }) type?: 'credit' | 'debit';
  @ValidateEnum(['credit', 'debit'] as const, { optional: true }) transaction_type?: 'credit' | 'debit';
  @ValidateBoolean({ optional: true, query: true, description: 'true: only transactions with a screening flag' }) flagged?: boolean;
  @DateQuery('Inclusive') start_date?: string;
  @DateQuery('Inclusive (Form B name)') date_from?: string;
  @DateQuery('Inclusive') end_date?: string;
  @DateQuery('Inclusive (Form B name)') date_to?: string;
}

/** Where a row was read on its statement. */
export class TransactionSourceDto {
  @ApiProperty({ type: 'integer', minimum: 1, description: '1-based page of the document' }) page: number;
  @BoxesProperty(
    'of the printed lines the row was read from (several when its description wraps), in PDF points from the top-left corner of the page; the same on text and OCR pages',
  )
  boxes: Array<[number, number, number, number]>;
}

export class TransactionDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ type: 'integer' }) document_id: number;
  @ApiProperty({ type: 'integer' }) deal_id: number;
  @ApiProperty({
    type: String,
    pattern: '^\\d{4}-\\d{2}-\\d{2}$',
    example: '2024-03-15',
    description:
      'YYYY-MM-DD. A date the calendar does not have, printed so on the statement (February 29 of a common year, a 31st of a 30-day month), is kept as printed and named in `row_warnings`',
  })
  date: string;
  @ApiProperty() description: string;
  @ApiProperty({ description: 'Signed: credits positive, debits negative' }) amount: number;
  @ApiProperty({ type: Number, nullable: true }) balance: number | null;
  @ApiProperty({ enum: ['credit', 'debit'] }) transaction_type: string;
  @ApiProperty({ enum: TRANSACTION_CATEGORIES }) category: string;
  @ApiProperty() is_nsf_fee: boolean;
  @ApiProperty() is_overdraft_fee: boolean;
  @ApiProperty() is_large_deposit: boolean;
  @ApiProperty() is_large_strange: boolean;
  @ApiProperty() is_repeat_charge: boolean;
  @ApiProperty() is_suspicious: boolean;
  @ApiProperty({ type: String, nullable: true }) screening_bucket: string | null;
  @ApiProperty({ type: String, nullable: true }) flag_reason: string | null;
  @ApiProperty({ type: 'integer' }) correction_count: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_corrected_at: string | null;
  @ApiProperty() corrected: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) corrected_at: string | null;
  @ApiProperty({ type: String, nullable: true }) corrected_by: string | null;
  @ApiProperty({
    type: TransactionSourceDto,
    nullable: true,
    description: 'Where the row was read; null for rows read before provenance was kept, or by an LLM reading',
  })
  source: TransactionSourceDto | null;
  @ApiProperty({
    type: [String],
    description:
      "Named problems with this row's own cells as the reader found them (an impossible date, an amount the running balance contradicts); the row is kept",
  })
  row_warnings: string[];
  @ApiProperty({
    enum: ['read', 'added'],
    description: '`read`: the reader found the row on the statement; `added`: a person added a row the reader missed (`source` is null)',
  })
  origin: 'read' | 'added';
  @ApiProperty({
    enum: [...REVENUE_CLASSES, null],
    nullable: true,
    description:
      "A deposit's revenue class (docs/revenue.md): `revenue` counts as true revenue, every other class is left out of it. Null for a debit, and for a row its deal has not been scored with since",
  })
  revenue_class: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The rule that decided `revenue_class` ("set by an underwriter" when a person set it); null for a debit',
  })
  revenue_rule: string | null;
  @ApiProperty({ description: 'A cash deposit: counted as revenue, totalled apart in the report' }) is_cash_deposit: boolean;
  @ApiProperty({
    enum: [...REVENUE_CLASSES, null],
    nullable: true,
    description: 'The revenue class a person set on this deposit (kept over the rules and across a new reading); null when none was set',
  })
  revenue_class_override: string | null;
}

export class TransactionListDto {
  @ApiProperty({ type: [TransactionDto] }) data: TransactionDto[];
  @ApiProperty({ type: PageMetaDto }) meta: PageMetaDto;
}

export class CorrectTransactionDto {
  @ValidateString({
    optional: true,
    pattern: DATE,
    patternMessage: '$property must be a date YYYY-MM-DD',
    description: 'A calendar date YYYY-MM-DD',
  })
  date?: string;
  @ValidateNumber({ optional: true, min: -1e12, max: 1e12, description: 'Signed amount: negative for debits' }) amount?: number;
  @ValidateString({ optional: true, minLength: 1, maxLength: 2000 }) description?: string;
  @ValidateEnum(['credit', 'debit'] as const, { optional: true }) transaction_type?: 'credit' | 'debit';
  @ValidateEnum(TRANSACTION_CATEGORIES, { optional: true }) category?: string;
  @ValidateEnum(REVENUE_CLASSES, {
    optional: true,
    description:
      "Override a deposit's revenue class (a credit only): every figure and the recommendation are computed again with it, and it survives a new reading. The trail records it as field `revenue_class`",
  })
  revenue_class?: (typeof REVENUE_CLASSES)[number];
  @ValidateString({ minLength: 1, maxLength: 500, description: 'Why the value is corrected; stored verbatim in the audit trail' })
  correction_reason: string;
}

/** A row the reader missed, added by a person with a reason. */
export class AddTransactionDto {
  @ValidateString({ pattern: DATE, patternMessage: '$property must be a date YYYY-MM-DD', description: 'A calendar date YYYY-MM-DD' })
  date: string;
  @ValidateString({ minLength: 1, maxLength: 2000 }) description: string;
  @ValidateNumber({ min: -1e12, max: 1e12, description: 'Signed amount: negative for debits; not 0' }) amount: number;
  @ValidateNumber({ optional: true, nullable: true, min: -1e12, max: 1e12, description: 'The running balance printed on the row, if any' })
  balance?: number | null;
  @ValidateEnum(TRANSACTION_CATEGORIES, { optional: true, description: 'Default: revenue for a credit, operating_expense for a debit' })
  category?: string;
  @ValidateInt({
    optional: true,
    nullable: true,
    min: 1,
    description: 'The row of the same document the new one follows on the statement; null or absent: the first row',
  })
  after_transaction_id?: number | null;
  @ValidateString({ minLength: 1, maxLength: 500, description: 'Why the row is added; stored verbatim in the audit trail' })
  correction_reason: string;
}

/** Why a row is deleted (a row the reader invented or read twice). */
export class DeleteTransactionDto {
  @ValidateString({ minLength: 1, maxLength: 500, description: 'Why the row is deleted; stored verbatim in the audit trail' })
  correction_reason: string;
}

export class DeletedTransactionDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ type: 'integer' }) document_id: number;
  @ApiProperty({ type: 'integer' }) deal_id: number;
  @ApiProperty({ enum: [true] }) deleted: true;
}

export class CorrectionDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ type: 'integer' }) transaction_id: number;
  @ApiProperty({
    enum: ['date', 'amount', 'description', 'transaction_type', 'category', 'revenue_class', 'row'],
    description: '`row`: the row was added (old_value null) or deleted (new_value null); the other value is the row as JSON',
  })
  field: string;
  @ApiProperty({ type: String, nullable: true }) old_value: string | null;
  @ApiProperty({ type: String, nullable: true }) new_value: string | null;
  @ApiProperty() correction_reason: string;
  @ApiProperty() corrected_by: string;
  @ApiProperty({ type: String, format: 'date-time' }) corrected_at: string;
}

export class CorrectionTrailDto {
  @ApiProperty({ type: 'integer' }) transaction_id: number;
  @ApiProperty({ type: [CorrectionDto] }) corrections: CorrectionDto[];
  @ApiProperty({ type: 'integer' }) total: number;
  @ApiProperty({ type: 'integer', description: 'Same as total (Form B)' }) total_corrections: number;
}
