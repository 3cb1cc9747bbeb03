import { Controller, Get, Headers, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiConflictResponse,
  ApiConsumes,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiPayloadTooLargeResponse,
  ApiTags,
  ApiUnprocessableEntityResponse,
  ApiUnsupportedMediaTypeResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthContext } from '../../platform/auth/auth-context';
import { Auth, Authenticated } from '../../platform/auth/decorators';
import { ApiError, validationEntry } from '../../platform/errors/api-error';
import { ErrorEnvelopeDto } from '../../platform/errors/error.dto';
import { Idempotent } from '../../platform/idempotency/idempotency.interceptor';
import { UploadRequestReader } from '../pipeline/controllers/upload-request';
import {
  IngestBatchDetailResponseDto,
  IngestBatchStatusDto,
  IngestAcceptedDto,
  IngestApplicationsDto,
  IngestApplicationsResultDto,
  IngestMetadataDto,
  MAX_INGEST_FILES,
} from './dto/ingest.dto';
import { IngestFilesCommand } from './ingest.command';
import { IngestService } from './ingest.service';

export const MAX_INGEST_IDEMPOTENCY_KEY = 128;

// the name as @Headers() reads it (lowercase), so that the document lists the header once
const ORG_HEADER = ApiHeader({
  name: 'x-org-id',
  required: true,
  description: "Integer organization id; must be the credential's organization",
});

/** X-Org-Id is required on ingest (spec) and must name the caller's own organization. */
function assertOrgHeader(auth: AuthContext, value: string | undefined): void {
  if (value === undefined || value.trim() === '')
    throw ApiError.validation([validationEntry('header', ['X-Org-Id'], 'X-Org-Id header is required on ingest', 'value_error.missing')]);
  if (!/^\d{1,10}$/.test(value.trim()))
    throw ApiError.validation([validationEntry('header', ['X-Org-Id'], 'X-Org-Id must be an integer', 'type_error.integer')]);
  if (Number(value.trim()) !== auth.organizationId) throw ApiError.forbidden("X-Org-Id does not match the credential's organization");
}

const INGEST_BODY = {
  description:
    'multipart/form-data: `files` or `files[]` (1-20 PDF files, 20 MB each) and `metadata` (a JSON string, IngestMetadata: Form A flat fields or Form B `deal_matching`/`callback`/`labels`). ' +
    'Or application/json (Form C): `{applications: [{business_name, external_ref}]}` creates deals (max 50).',
  schema: {
    oneOf: [
      {
        type: 'object',
        required: ['files'],
        properties: {
          files: { type: 'array', items: { type: 'string', format: 'binary' }, maxItems: MAX_INGEST_FILES },
          metadata: { type: 'string', description: 'JSON object, see IngestMetadataDto' },
        },
      },
      { $ref: getSchemaPath(IngestApplicationsDto) },
    ],
  },
};

@ApiTags('Ingest')
@ApiExtraModels(IngestMetadataDto, IngestApplicationsDto, IngestApplicationsResultDto, IngestAcceptedDto)
@Controller('v1')
export class IngestController {
  constructor(
    private readonly ingest: IngestService,
    private readonly command: IngestFilesCommand,
    private readonly uploads: UploadRequestReader,
  ) {}

  @Post('ingest')
  @HttpCode(202)
  @Idempotent({ maxKeyLength: MAX_INGEST_IDEMPOTENCY_KEY })
  @Authenticated('documents:write')
  @ORG_HEADER
  @ApiConsumes('multipart/form-data', 'application/json')
  @ApiBody(INGEST_BODY)
  @ApiAcceptedResponse({ type: IngestAcceptedDto, description: 'Files accepted: the batch and its documents' })
  @ApiCreatedResponse({ type: IngestApplicationsResultDto, description: 'Form C: deals created and skipped' })
  @ApiOkResponse({
    description: 'Replay of a stored response for the same Idempotency-Key',
    schema: { oneOf: [{ $ref: getSchemaPath(IngestAcceptedDto) }, { $ref: getSchemaPath(IngestApplicationsResultDto) }] },
  })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto, description: 'DEAL_NOT_FOUND (metadata deal_id)' })
  @ApiConflictResponse({ type: ErrorEnvelopeDto, description: 'DUPLICATE_RESOURCE: the external reference belongs to another deal' })
  @ApiPayloadTooLargeResponse({ type: ErrorEnvelopeDto })
  @ApiUnsupportedMediaTypeResponse({ type: ErrorEnvelopeDto, description: 'A file is not a PDF' })
  @ApiUnprocessableEntityResponse({ type: ErrorEnvelopeDto })
  async createIngest(
    @Auth() auth: AuthContext,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Headers('x-org-id') orgId?: string,
  ): Promise<IngestAcceptedDto | IngestApplicationsResultDto> {
    assertOrgHeader(auth, orgId);
    if (!req.isMultipart()) {
      const result = await this.ingest.createApplications(auth, req.body);
      reply.status(201);
      return result;
    }
    return this.command.execute(auth, await this.uploads.read(auth, req, MAX_INGEST_FILES));
  }

  @Get('ingest/:batch_id')
  @Authenticated('documents:read')
  @ORG_HEADER
  @ApiOkResponse({ type: IngestBatchStatusDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  async getIngestBatch(
    @Auth() auth: AuthContext,
    @Param('batch_id') batchId: string,
    @Headers('x-org-id') orgId?: string,
  ): Promise<IngestBatchStatusDto> {
    const status = await this.ingest.status(auth, batchId); // 404 first: a foreign id says nothing more
    assertOrgHeader(auth, orgId);
    return status;
  }

  @Get('ingest/batches/:batch_id')
  @Authenticated('documents:read')
  @ORG_HEADER
  @ApiOkResponse({ type: IngestBatchDetailResponseDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  async getIngestBatchDetail(
    @Auth() auth: AuthContext,
    @Param('batch_id') batchId: string,
    @Headers('x-org-id') orgId?: string,
  ): Promise<IngestBatchDetailResponseDto> {
    const detail = await this.ingest.detail(auth, batchId);
    assertOrgHeader(auth, orgId);
    return detail;
  }
}
