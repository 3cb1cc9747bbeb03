import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsObject, IsOptional, ValidateIf, ValidateNested } from 'class-validator';
import { ValidateInt, ValidateNumber, ValidateString } from '../../../platform/validation/decorators';
import { DEFAULT_INGEST_FUNDING } from '../deal-matcher';
import { MATCH_METHODS, MatchMethod } from '../ingest.entities';

export const MAX_INGEST_FILES = 20;
export const MAX_INGEST_FILE_BYTES = 20 * 1024 * 1024;
export const MAX_INGEST_APPLICATIONS = 50;
export const BATCH_STATUSES = ['pending', 'processing', 'completed'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

const EIN = /^\d{9}$/;
const EIN_MESSAGE = 'ein must be exactly 9 digits, no dashes';

// ---- request: the `metadata` field (Form A flat fields and Form B objects, both accepted) ----

export class IngestDealMatchingDto {
  @ValidateString({ optional: true, maxLength: 500 }) business_name?: string;
  @ValidateString({ optional: true, maxLength: 255, minLength: 1 }) external_reference?: string;
  @ValidateString({ optional: true, pattern: EIN, patternMessage: EIN_MESSAGE }) ein?: string;
}

export class IngestCallbackDto {
  @ValidateString({ maxLength: 2048, description: 'HTTPS URL, public address' }) url: string;
  @ValidateString({ minLength: 8, maxLength: 255, description: 'HMAC-SHA256 key of X-Service-Signature' }) secret: string;
}

/** The JSON of the multipart `metadata` field. */
export class IngestMetadataDto {
  @ValidateString({ optional: true, maxLength: 500 }) business_name?: string;
  @ValidateString({ optional: true, pattern: EIN, patternMessage: EIN_MESSAGE, description: '9 digits; secondary match key' })
  ein?: string;
  @ValidateInt({ optional: true, min: 1, description: 'Attach to this deal; the other fields are then ignored' }) deal_id?: number;
  @ValidateString({ optional: true, maxLength: 255, minLength: 1, description: 'Looked up before creating a deal' })
  external_reference?: string;
  @ValidateString({ optional: true, maxLength: 2048, description: 'HTTPS URL called when the batch completes' }) callback_url?: string;
  @ValidateString({
    optional: true,
    minLength: 8,
    maxLength: 255,
    description: "Signing secret of callback_url (default: the organization's webhook secret)",
  })
  callback_secret?: string;
  @ApiPropertyOptional({ type: [String], description: 'Labels in file order (each at most 255 characters, or null)' })
  @ValidateIf((_, v) => v !== undefined)
  @IsArray()
  @ArrayMaxSize(MAX_INGEST_FILES)
  file_labels?: (string | null)[];
  @ValidateNumber({
    optional: true,
    positive: true,
    max: 1e12,
    description: `Requested amount of a new deal (default ${DEFAULT_INGEST_FUNDING})`,
  })
  funding_amount_requested?: number;
  @ApiPropertyOptional({ type: IngestDealMatchingDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => IngestDealMatchingDto)
  deal_matching?: IngestDealMatchingDto;
  @ApiPropertyOptional({ type: IngestCallbackDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => IngestCallbackDto)
  callback?: IngestCallbackDto;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, description: 'Label by filename (Form B)' })
  @IsOptional()
  @IsObject()
  labels?: Record<string, string>;
}

// ---- request: Form C (JSON) ----

export class IngestApplicationDto {
  @ValidateString({ maxLength: 500, minLength: 1 }) business_name: string;
  @ValidateString({ optional: true, maxLength: 255, minLength: 1, description: 'External reference (also `external_reference`)' })
  external_ref?: string;
  @ValidateString({ optional: true, maxLength: 255, minLength: 1 }) external_reference?: string;
  @ValidateString({ optional: true, pattern: EIN, patternMessage: EIN_MESSAGE }) ein?: string;
  @ValidateNumber({ optional: true, positive: true, max: 1e12 }) funding_amount_requested?: number;
}

export class IngestApplicationsDto {
  @ApiProperty({ type: [IngestApplicationDto], maxItems: MAX_INGEST_APPLICATIONS, minItems: 1 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_INGEST_APPLICATIONS)
  @ValidateNested({ each: true })
  @Type(() => IngestApplicationDto)
  applications: IngestApplicationDto[];
}

// ---- responses ----

export class IngestedDocumentDto {
  @ApiProperty() id: number;
  @ApiProperty({ description: 'Same as id (Form B)' }) document_id: number;
  @ApiProperty() filename: string;
  @ApiProperty({ type: String, nullable: true }) label: string | null;
  @ApiProperty({ enum: ['uploaded'] }) status: 'uploaded';
  @ApiProperty() size_bytes: number;
}

export class IngestedFileDto {
  @ApiProperty() filename: string;
  @ApiProperty() document_id: number;
  @ApiProperty({ type: String, nullable: true }) label: string | null;
  @ApiProperty({ enum: ['queued'] }) status: 'queued';
  @ApiProperty() size_bytes: number;
}

/** 202 (Form A shape, with the Form B fields beside it). */
export class IngestAcceptedDto {
  @ApiProperty({ example: 'bat_5f1c0e9a2b7d4c3e8a6f0b1d' }) batch_id: string;
  @ApiProperty() deal_id: number;
  @ApiProperty({ description: 'True when an existing deal was used' }) deal_matched: boolean;
  @ApiProperty({ enum: MATCH_METHODS, description: '`created` when a new deal was made' }) match_method: MatchMethod;
  @ApiProperty({ enum: BATCH_STATUSES }) status: BatchStatus;
  @ApiProperty({ type: [IngestedDocumentDto] }) documents: IngestedDocumentDto[];
  @ApiProperty({ type: [IngestedFileDto], description: 'Form B view of the same documents' }) files: IngestedFileDto[];
  @ApiProperty({ type: String, format: 'date-time' }) created_at: string;
}

export class IngestApplicationResultDto {
  @ApiProperty() index: number;
  @ApiProperty() id: number;
  @ApiProperty() business_name: string;
  @ApiProperty({ type: String, nullable: true }) external_reference: string | null;
  @ApiProperty({ enum: ['created', 'skipped'], description: '`skipped`: a deal with this external reference exists' })
  result: 'created' | 'skipped';
}

/** 201 for Form C. */
export class IngestApplicationsResultDto {
  @ApiProperty() created: number;
  @ApiProperty() skipped: number;
  @ApiProperty({ type: [IngestApplicationResultDto] }) deals: IngestApplicationResultDto[];
}

export class IngestBatchRecommendationDto {
  @ApiProperty({ type: String }) decision: string;
  @ApiProperty({ type: Number, nullable: true }) health_score: number | null;
  @ApiProperty({ type: String, nullable: true }) grade: string | null;
  @ApiProperty({ type: Number, nullable: true }) ruleset_id: number | null;
  @ApiProperty() ruleset_name: string;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true }) factor_scores: Record<string, unknown> | null;
}

export class IngestBatchCallbackDto {
  @ApiProperty() url: string;
  @ApiProperty({ enum: ['waiting', 'pending', 'delivered', 'failed'], description: '`waiting`: the batch is not completed yet' })
  status: 'waiting' | 'pending' | 'delivered' | 'failed';
  @ApiProperty() attempts: number;
  @ApiProperty({ type: Number, nullable: true }) response_status: number | null;
  @ApiProperty({ type: String, nullable: true }) last_error: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) delivered_at: string | null;
}

export class IngestBatchDocumentDto {
  @ApiProperty() id: number;
  @ApiProperty() document_id: number;
  @ApiProperty() filename: string;
  @ApiProperty({ type: String, nullable: true }) label: string | null;
  @ApiProperty() status: string;
  @ApiProperty({ type: String, nullable: true }) document_type: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) processing_completed_at: string | null;
  @ApiProperty({ type: String, nullable: true }) error: string | null;
}

/** What both status views show of a batch. */
export class IngestBatchSummaryDto {
  @ApiProperty() batch_id: string;
  @ApiProperty() deal_id: number;
  @ApiProperty({ enum: BATCH_STATUSES }) status: BatchStatus;
  @ApiProperty() deal_matched: boolean;
  @ApiProperty({ enum: MATCH_METHODS }) match_method: MatchMethod;
  @ApiProperty() total: number;
  @ApiProperty() completed: number;
  @ApiProperty({ description: 'Failed or cancelled documents' }) failed: number;
  @ApiProperty({ type: String, format: 'date-time' }) created_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) completed_at: string | null;
}

/** GET /ingest/{batch_id} (Form A). */
export class IngestBatchStatusDto extends IngestBatchSummaryDto {
  @ApiProperty({ description: 'Documents finished (completed or failed)' }) processed: number;
  @ApiProperty({ type: [IngestBatchDocumentDto] }) documents: IngestBatchDocumentDto[];
  @ApiProperty({ type: IngestBatchCallbackDto, nullable: true }) callback: IngestBatchCallbackDto | null;
}

export class IngestPeriodDto {
  @ApiProperty({ type: String, format: 'date', nullable: true }) start: string | null;
  @ApiProperty({ type: String, format: 'date', nullable: true }) end: string | null;
}

export class IngestBatchDetailDocumentDto {
  @ApiProperty() document_id: number;
  @ApiProperty() filename: string;
  @ApiProperty({ type: String, nullable: true }) label: string | null;
  @ApiProperty() status: string;
  @ApiProperty({ type: String, nullable: true }) document_type: string | null;
  @ApiProperty({ type: IngestPeriodDto, nullable: true, description: 'Statement period, once extracted' }) period: IngestPeriodDto | null;
  @ApiProperty({ type: Number, nullable: true }) transaction_count: number | null;
}

export class IngestBatchDetailDto extends IngestBatchSummaryDto {
  @ApiProperty({ type: [IngestBatchDetailDocumentDto] }) documents: IngestBatchDetailDocumentDto[];
  @ApiProperty({
    type: IngestBatchRecommendationDto,
    nullable: true,
    description: 'Present once the batch is completed and one of its documents completed',
  })
  recommendation: IngestBatchRecommendationDto | null;
}

/** GET /ingest/batches/{batch_id} (Form B: wrapped). */
export class IngestBatchDetailResponseDto {
  @ApiProperty({ type: IngestBatchDetailDto }) data: IngestBatchDetailDto;
}
