import { ApiProperty } from '@nestjs/swagger';
import { ValidateEnum } from '../../../platform/validation/decorators';
import { UNDERWRITING_TABLES, type UnderwritingTable } from '../underwriting-csv';
import { ScreeningBucketsDto } from '../../pipeline/dto/report.dto';
import { AnalysisRecordDto, ExtractionRecordDto } from '../../pipeline/dto/document.dto';

export class ExportedDocumentDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ type: 'integer' }) deal_id: number;
  @ApiProperty() filename: string;
  @ApiProperty({ type: String, nullable: true }) document_type: string | null;
  @ApiProperty() status: string;
}

export class FlaggedTransactionDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ type: String, format: 'date' }) date: string;
  @ApiProperty() description: string;
  @ApiProperty() amount: number;
  @ApiProperty() screening_bucket: string;
  @ApiProperty({ type: String, nullable: true }) flag_reason: string | null;
}

export class ExportScreeningDto {
  @ApiProperty({ type: 'integer' }) total_flags: number;
  @ApiProperty({ type: ScreeningBucketsDto }) buckets: ScreeningBucketsDto;
  @ApiProperty({ type: [FlaggedTransactionDto] }) flagged_transactions: FlaggedTransactionDto[];
}

export class ExportTransactionsRefDto {
  @ApiProperty({ type: 'integer' }) total: number;
  @ApiProperty({ enum: [false], description: 'Transactions are not inlined: download them as CSV' }) included: false;
  @ApiProperty({ description: 'The CSV export of this document' }) download_url: string;
}

/** GET /documents/{id}/export (spec: Exports). */
export class DocumentExportDto {
  @ApiProperty({ type: ExportedDocumentDto }) document: ExportedDocumentDto;
  @ApiProperty({ type: ExtractionRecordDto, nullable: true, description: 'null before extraction' }) extraction: ExtractionRecordDto | null;
  @ApiProperty({ type: AnalysisRecordDto, nullable: true, description: 'null unless a completed bank statement' })
  analysis: AnalysisRecordDto | null;
  @ApiProperty({ type: ExportScreeningDto }) screening: ExportScreeningDto;
  @ApiProperty({ type: ExportTransactionsRefDto }) transactions: ExportTransactionsRefDto;
  @ApiProperty({ type: String, format: 'date-time' }) exported_at: string;
}

/** GET /v1/deals/{deal_id}/export/underwriting/csv: which of the report's tables. */
export class UnderwritingCsvQueryDto {
  @ValidateEnum(UNDERWRITING_TABLES, {
    description:
      'positions: lender positions; revenue: true revenue per month with a total row; transfers: own-account transfers; affordability: its inputs and each step',
  })
  table: UnderwritingTable;
}
