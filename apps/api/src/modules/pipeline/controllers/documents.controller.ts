import { Body, Controller, Get, HttpCode, Post, Query, Req, StreamableFile } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiConflictResponse,
  ApiConsumes,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiProduces,
  ApiQuery,
  ApiTags,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { AuthContext } from '../../../platform/auth/auth-context';
import { Auth, Authenticated } from '../../../platform/auth/decorators';
import { ErrorEnvelopeDto } from '../../../platform/errors/error.dto';
import { contentDisposition } from '../../../platform/http/content-disposition';
import { IdParam } from '../../../platform/http/id-param';
import { Idempotent } from '../../../platform/idempotency/idempotency.interceptor';
import { PageQueryDto } from '../../../platform/pagination/pagination';
import { ApiError } from '../../../platform/errors/api-error';
import { DocumentsService, parseDocumentType } from '../services/documents.service';
import { UploadRequestReader } from './upload-request';
import { DOCUMENT_TYPES } from '../entities/document.entities';
import {
  AnalysisRecordDto,
  BatchStatusDto,
  BatchStatusRequestDto,
  BulkUploadResultDto,
  DocumentActionDto,
  DocumentDetailDto,
  DocumentListDto,
  DocumentStatusDto,
  ExtractionRecordDto,
  ReprocessFailedDto,
  ReviewDocumentDto,
  UploadedDocumentDto,
} from '../dto/document.dto';

const FILE_BODY = {
  schema: {
    type: 'object',
    required: ['file'],
    properties: {
      file: {
        type: 'string',
        format: 'binary',
        description: 'PDF, PNG, JPG or TIFF (checked by content), at most MAX_UPLOAD_BYTES (25 MB)',
      },
      document_type: { type: 'string', enum: [...DOCUMENT_TYPES, 'pnl_statement'], description: 'Optional hint; detected when omitted' },
      label: { type: 'string', maxLength: 255, description: 'Optional label of the document' },
      currency: {
        type: 'string',
        pattern: '^[A-Za-z]{3}$',
        description: 'Optional ISO 4217 code of the statement (e.g. USD, NZD); a currency read from the statement itself wins',
      },
    },
  },
};
const FILES_BODY = (withDeal: boolean) => ({
  schema: {
    type: 'object',
    required: withDeal ? ['deal_id', 'files'] : ['files'],
    properties: {
      ...(withDeal ? { deal_id: { type: 'integer' } } : {}),
      files: { type: 'array', items: { type: 'string', format: 'binary' }, description: 'Repeat the field; at most MAX_BULK_FILES (25)' },
      document_type: { type: 'string', enum: [...DOCUMENT_TYPES, 'pnl_statement'] },
    },
  },
});

@ApiTags('Documents')
@Controller('v1')
export class DocumentsController {
  constructor(
    private readonly documents: DocumentsService,
    private readonly uploads: UploadRequestReader,
  ) {}

  @Post('deals/:deal_id/documents')
  @Idempotent()
  @Authenticated('documents:write')
  @ApiConsumes('multipart/form-data')
  @ApiBody(FILE_BODY)
  @ApiQuery({ name: 'document_type', required: false, enum: [...DOCUMENT_TYPES, 'pnl_statement'] })
  @ApiCreatedResponse({ type: UploadedDocumentDto })
  @ApiOkResponse({ type: UploadedDocumentDto, description: 'Replay of a stored response for the same Idempotency-Key' })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiPayloadTooLargeResponse({ type: ErrorEnvelopeDto })
  @ApiUnsupportedMediaTypeResponse({ type: ErrorEnvelopeDto })
  async uploadDocument(
    @Auth() auth: AuthContext,
    @IdParam('deal_id') dealId: number,
    @Req() req: FastifyRequest,
    @Query('document_type') type?: string,
  ): Promise<UploadedDocumentDto> {
    await this.documents.assertDeal(auth, dealId);
    return this.documents.uploadOne(auth, dealId, await this.uploads.read(auth, req, 1), type);
  }

  @Post('deals/:deal_id/documents/bulk')
  @HttpCode(200)
  @Authenticated('documents:write')
  @ApiConsumes('multipart/form-data')
  @ApiBody(FILES_BODY(false))
  @ApiOkResponse({ type: BulkUploadResultDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiPayloadTooLargeResponse({ type: ErrorEnvelopeDto })
  async uploadDocumentsBulk(
    @Auth() auth: AuthContext,
    @IdParam('deal_id') dealId: number,
    @Req() req: FastifyRequest,
    @Query('document_type') type?: string,
  ): Promise<BulkUploadResultDto> {
    await this.documents.assertDeal(auth, dealId);
    return this.documents.uploadMany(auth, dealId, await this.uploads.read(auth, req, this.uploads.maxBulkFiles), type);
  }

  @Post('bulk-upload')
  @HttpCode(200)
  @Authenticated('documents:write')
  @ApiConsumes('multipart/form-data')
  @ApiBody(FILES_BODY(true))
  @ApiOkResponse({ type: BulkUploadResultDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiPayloadTooLargeResponse({ type: ErrorEnvelopeDto })
  async bulkUpload(
    @Auth() auth: AuthContext,
    @Req() req: FastifyRequest,
    @Query('document_type') type?: string,
  ): Promise<BulkUploadResultDto> {
    return this.documents.uploadMany(auth, null, await this.uploads.read(auth, req, this.uploads.maxBulkFiles), type);
  }

  @Get('deals/:deal_id/documents')
  @Authenticated('documents:read')
  @ApiOkResponse({ type: DocumentListDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  listDocuments(@Auth() auth: AuthContext, @IdParam('deal_id') dealId: number, @Query() query: PageQueryDto): Promise<DocumentListDto> {
    return this.documents.list(auth, dealId, query);
  }

  @Post('documents/batch-status')
  @HttpCode(200)
  @Authenticated('documents:read')
  @ApiOkResponse({ type: BatchStatusDto })
  getDocumentsBatchStatus(@Auth() auth: AuthContext, @Body() dto: BatchStatusRequestDto): Promise<BatchStatusDto> {
    return this.documents.batchStatus(auth, dto.document_ids);
  }

  @Get('documents/:document_id')
  @Authenticated('documents:read')
  @ApiOkResponse({ type: DocumentDetailDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  getDocument(@Auth() auth: AuthContext, @IdParam('document_id') id: number): Promise<DocumentDetailDto> {
    return this.documents.get(auth, id);
  }

  @Get('documents/:document_id/status')
  @Authenticated('documents:read')
  @ApiOkResponse({ type: DocumentStatusDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  getDocumentStatus(@Auth() auth: AuthContext, @IdParam('document_id') id: number): Promise<DocumentStatusDto> {
    return this.documents.status(auth, id);
  }

  @Get('documents/:document_id/extraction')
  @Authenticated('documents:read')
  @ApiOkResponse({ type: ExtractionRecordDto })
  @ApiConflictResponse({ type: ErrorEnvelopeDto, description: 'Not extracted yet' })
  getDocumentExtraction(@Auth() auth: AuthContext, @IdParam('document_id') id: number): Promise<ExtractionRecordDto> {
    return this.documents.extraction(auth, id);
  }

  @Get('documents/:document_id/analysis')
  @Authenticated('documents:read')
  @ApiOkResponse({ type: AnalysisRecordDto })
  @ApiConflictResponse({ type: ErrorEnvelopeDto, description: 'Not completed yet' })
  getDocumentAnalysis(@Auth() auth: AuthContext, @IdParam('document_id') id: number): Promise<AnalysisRecordDto> {
    return this.documents.analysis(auth, id);
  }

  @Post('documents/:document_id/cancel')
  @HttpCode(200)
  @Authenticated('documents:write')
  @ApiOkResponse({ type: DocumentActionDto })
  @ApiConflictResponse({ type: ErrorEnvelopeDto })
  cancelDocument(@Auth() auth: AuthContext, @IdParam('document_id') id: number): Promise<DocumentActionDto> {
    return this.documents.cancel(auth, id);
  }

  @Post('documents/:document_id/review')
  @HttpCode(200)
  @Authenticated('documents:write')
  @ApiOkResponse({ type: DocumentDetailDto })
  @ApiOperation({
    summary: 'Mark a read document reviewed',
    description:
      'A person checked the reading (and corrected what was wrong): `needs_review` becomes false, with `reviewed_at` and `reviewed_by`; the deal timeline shows it and the deal is rescored. A statement that still does not reconcile keeps the recommendation at review. A new reading of the file clears it.',
  })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiConflictResponse({ type: ErrorEnvelopeDto, description: 'The document is not completed' })
  reviewDocument(
    @Auth() auth: AuthContext,
    @IdParam('document_id') id: number,
    @Body() dto: ReviewDocumentDto,
  ): Promise<DocumentDetailDto> {
    return this.documents.markReviewed(auth, id, dto);
  }

  @Post('documents/:document_id/reprocess')
  @HttpCode(202)
  @Authenticated('documents:write')
  @ApiAcceptedResponse({ type: DocumentActionDto })
  @ApiConflictResponse({ type: ErrorEnvelopeDto })
  reprocessDocument(@Auth() auth: AuthContext, @IdParam('document_id') id: number): Promise<DocumentActionDto> {
    return this.documents.reprocess(auth, id);
  }

  @Post('documents/:document_id/reclassify')
  @HttpCode(202)
  @Authenticated('documents:write')
  @ApiQuery({ name: 'document_type', required: false, enum: [...DOCUMENT_TYPES, 'pnl_statement'] })
  @ApiBody({
    required: false,
    schema: { type: 'object', properties: { document_type: { type: 'string', enum: [...DOCUMENT_TYPES, 'pnl_statement'] } } },
  })
  @ApiAcceptedResponse({ type: DocumentActionDto })
  @ApiConflictResponse({ type: ErrorEnvelopeDto })
  reclassifyDocument(
    @Auth() auth: AuthContext,
    @IdParam('document_id') id: number,
    @Query('document_type') queryType?: string,
    @Body() body?: unknown,
  ): Promise<DocumentActionDto> {
    const bodyType = body && typeof body === 'object' ? (body as { document_type?: unknown }).document_type : undefined;
    const type = bodyType !== undefined ? parseDocumentType(bodyType, 'body') : parseDocumentType(queryType, 'query');
    return this.documents.reclassify(auth, id, type);
  }

  @Post('deals/:deal_id/reprocess-failed')
  @HttpCode(202)
  @Authenticated('documents:write')
  @ApiAcceptedResponse({ type: ReprocessFailedDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  reprocessFailedDocuments(@Auth() auth: AuthContext, @IdParam('deal_id') dealId: number): Promise<ReprocessFailedDto> {
    return this.documents.reprocessFailed(auth, dealId);
  }

  @Get('documents/:document_id/pdf')
  @Authenticated('documents:read')
  @ApiProduces('application/pdf')
  @ApiOkResponse({ description: 'The original PDF, byte for byte', schema: { type: 'string', format: 'binary' } })
  @ApiConflictResponse({ type: ErrorEnvelopeDto, description: 'The document is not a PDF: use /download' })
  async getDocumentPdf(@Auth() auth: AuthContext, @IdParam('document_id') id: number): Promise<StreamableFile> {
    const { doc, stream } = await this.documents.file(auth, id);
    if (doc.mimeType !== 'application/pdf') {
      stream.destroy();
      throw ApiError.conflict(`Document ${id} is ${doc.mimeType}, not a PDF: use /v1/documents/${id}/download`);
    }
    return new StreamableFile(stream, {
      type: 'application/pdf',
      disposition: contentDisposition('inline', doc.filename),
      length: doc.fileSize,
    });
  }

  @Get('documents/:document_id/download')
  @Authenticated('documents:read')
  @ApiProduces('application/pdf', 'image/png', 'image/jpeg', 'image/tiff')
  @ApiOkResponse({ description: 'The original file, byte for byte, with its MIME type', schema: { type: 'string', format: 'binary' } })
  async downloadDocument(@Auth() auth: AuthContext, @IdParam('document_id') id: number): Promise<StreamableFile> {
    const { doc, stream } = await this.documents.file(auth, id);
    return new StreamableFile(stream, {
      type: doc.mimeType,
      disposition: contentDisposition('attachment', doc.filename),
      length: doc.fileSize,
    });
  }
}
