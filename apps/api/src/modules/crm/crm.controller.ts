import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiExtraModels,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiTags,
  ApiUnprocessableEntityResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthContext } from '../../platform/auth/auth-context';
import { Auth, Authenticated } from '../../platform/auth/decorators';
import { Database } from '../../platform/database/database.service';
import { ApiError, validationEntry } from '../../platform/errors/api-error';
import { ErrorEnvelopeDto } from '../../platform/errors/error.dto';
import { AckDto } from '../../platform/http/ack.dto';
import { paginate, pageWindow } from '../../platform/pagination/pagination';
import { CrmConfigService } from './crm-config.service';
import { CrmInboundService } from './crm-inbound.service';
import { CrmSyncService } from './crm-sync.service';
import { CrmSyncLog, CrmSyncRun } from './crm.entities';
import { mapLog, mapRun, mapRunDetail } from './crm.mapper';
import {
  CrmConfigDto,
  CrmConfigInputDto,
  CrmMappingInputDto,
  CrmMappingListDto,
  CrmMappingSetDto,
  CrmMappingSetInputDto,
  CrmRunDetailResponseDto,
  CrmRunListDto,
  CrmRunQueryDto,
  CrmSingleConfigInputDto,
  CrmSingleConfigResponseDto,
  CrmSyncInputDto,
  CrmSyncLogListDto,
  CrmSyncLogQueryDto,
  CrmSyncResponseDto,
  CrmTestResultDto,
  CrmWebhookInputDto,
  CrmWebhookResponseDto,
} from './dto/crm.dto';

/** POST /crm/sync takes no body (Form B full sync) or `{deal_id}` (Form A push of one deal). */
function dealIdOf(body: unknown): number | null {
  if (body === undefined || body === null || body === '') return null;
  if (typeof body !== 'object' || Array.isArray(body))
    throw ApiError.validation([validationEntry('body', [], 'Request body must be a JSON object', 'type_error.object')]);
  const id = (body as { deal_id?: unknown }).deal_id;
  if (id === undefined || id === null) return null;
  if (typeof id !== 'number' || !Number.isInteger(id) || id < 1)
    throw ApiError.validation([validationEntry('body', ['deal_id'], 'deal_id must be a positive integer', 'type_error.integer')]);
  return id;
}

/**
 * CRM integration, both forms of the spec: per-provider configuration and mappings (Form A,
 * bare bodies), the single configuration (Form B, `{data: ...}`), sync, sync log and runs, and
 * inbound CRM webhooks.
 */
@ApiTags('CRM')
@Controller('v1/crm')
export class CrmController {
  constructor(
    private readonly configs: CrmConfigService,
    private readonly sync: CrmSyncService,
    private readonly inbound: CrmInboundService,
    private readonly db: Database,
  ) {}

  // ------------------------------------------------------------------ Form B single config

  @Get('config')
  @Authenticated('crm:read')
  @ApiOkResponse({ type: CrmSingleConfigResponseDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto, description: 'CRM_NOT_CONFIGURED' })
  getCrmConfig(@Auth() auth: AuthContext): Promise<CrmSingleConfigResponseDto> {
    return this.configs.getSingle(auth);
  }

  @Put('config')
  @Authenticated('crm:write')
  @ApiOkResponse({ type: CrmSingleConfigResponseDto })
  @ApiUnprocessableEntityResponse({ type: ErrorEnvelopeDto, description: 'Invalid field, or CRM_CONNECTION_FAILED' })
  putCrmConfig(@Auth() auth: AuthContext, @Body() dto: CrmSingleConfigInputDto): Promise<CrmSingleConfigResponseDto> {
    return this.configs.putSingle(auth, dto);
  }

  @Get('field-mappings')
  @Authenticated('crm:read')
  @ApiOkResponse({ type: CrmMappingListDto })
  getCrmFieldMappings(@Auth() auth: AuthContext): Promise<CrmMappingListDto> {
    return this.configs.getSingleMappings(auth);
  }

  @Put('field-mappings')
  @Authenticated('crm:write')
  @ApiBody({ type: [CrmMappingInputDto] })
  @ApiOkResponse({ type: CrmMappingListDto })
  putCrmFieldMappings(@Auth() auth: AuthContext, @Body() body: unknown): Promise<CrmMappingListDto> {
    return this.configs.putSingleMappings(auth, body);
  }

  // ------------------------------------------------------------------ Form A per provider

  @Get('config/:provider')
  @Authenticated('crm:read')
  @ApiOkResponse({ type: CrmConfigDto, description: 'A provider not configured: `enabled` false, `has_credentials` false' })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto, description: 'NOT_FOUND: not one of salesforce, hubspot, pipedrive' })
  getCrmProviderConfig(@Auth() auth: AuthContext, @Param('provider') provider: string): Promise<CrmConfigDto> {
    return this.configs.get(auth, provider);
  }

  @Put('config/:provider')
  @Authenticated('crm:write')
  @ApiOkResponse({ type: CrmConfigDto })
  @ApiUnprocessableEntityResponse({ type: ErrorEnvelopeDto })
  putCrmProviderConfig(
    @Auth() auth: AuthContext,
    @Param('provider') provider: string,
    @Body() dto: CrmConfigInputDto,
  ): Promise<CrmConfigDto> {
    return this.configs.put(auth, provider, dto);
  }

  @Delete('config/:provider')
  @Authenticated('crm:write')
  @ApiOkResponse({ type: AckDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto, description: 'CRM_NOT_CONFIGURED: no configuration and no mappings to remove' })
  deleteCrmProviderConfig(@Auth() auth: AuthContext, @Param('provider') provider: string): Promise<AckDto> {
    return this.configs.remove(auth, provider);
  }

  @Post('config/:provider/test')
  @HttpCode(200)
  @Authenticated('crm:write')
  @ApiOkResponse({ type: CrmTestResultDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto, description: 'CRM_NOT_CONFIGURED: no credentials to test' })
  testCrmProviderConfig(@Auth() auth: AuthContext, @Param('provider') provider: string): Promise<CrmTestResultDto> {
    return this.configs.test(auth, provider);
  }

  @Get('field-mapping/:provider')
  @Authenticated('crm:read')
  @ApiOkResponse({ type: CrmMappingSetDto, description: '`mappings` is empty when none are saved' })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto, description: 'NOT_FOUND: not one of salesforce, hubspot, pipedrive' })
  getCrmProviderFieldMapping(@Auth() auth: AuthContext, @Param('provider') provider: string): Promise<CrmMappingSetDto> {
    return this.configs.getMappings(auth, provider);
  }

  @Put('field-mapping/:provider')
  @Authenticated('crm:write')
  @ApiBody({ type: CrmMappingSetInputDto })
  @ApiOkResponse({ type: CrmMappingSetDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto, description: 'NOT_FOUND: not one of salesforce, hubspot, pipedrive' })
  @ApiUnprocessableEntityResponse({ type: ErrorEnvelopeDto, description: 'VALIDATION_ERROR: an unknown field or direction' })
  putCrmProviderFieldMapping(
    @Auth() auth: AuthContext,
    @Param('provider') provider: string,
    @Body() body: unknown,
  ): Promise<CrmMappingSetDto> {
    return this.configs.putMappings(auth, provider, body);
  }

  // ------------------------------------------------------------------ sync

  @Post('sync')
  @HttpCode(200)
  @Authenticated('crm:write')
  @ApiBody({ type: CrmSyncInputDto, required: false })
  @ApiOkResponse({ type: CrmSyncResponseDto, description: 'Form A: `{status, external_id, error}` plus per-provider results' })
  @ApiAcceptedResponse({
    type: CrmSyncResponseDto,
    description: 'Form B: `{data: {sync_id, status, started_at, direction, records_queued}}`',
  })
  async syncCrm(
    @Auth() auth: AuthContext,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<CrmSyncResponseDto> {
    const dealId = dealIdOf(body);
    if (dealId !== null) return this.sync.syncDeal(auth, dealId);
    reply.status(202);
    return { data: await this.sync.startRun(auth, { trigger: 'manual', direction: 'both' }) };
  }

  @Get('sync-log')
  @Authenticated('crm:read')
  @ApiOkResponse({ type: CrmSyncLogListDto })
  async listCrmSyncLog(@Auth() auth: AuthContext, @Query() query: CrmSyncLogQueryDto): Promise<CrmSyncLogListDto> {
    const em = this.db.forScope(auth);
    const where = {
      ...(query.deal_id ? { dealId: query.deal_id } : {}),
      ...(query.provider ? { provider: query.provider as CrmSyncLog['provider'] } : {}),
      ...(query.status ? { status: query.status as CrmSyncLog['status'] } : {}),
    };
    return paginate(
      pageWindow(query),
      () => em.count(CrmSyncLog, where),
      async (offset, limit) =>
        (await em.find(CrmSyncLog, where, { orderBy: [{ syncedAt: 'desc' }, { id: 'desc' }], offset, limit })).map(mapLog),
    );
  }

  @Get('sync/logs')
  @Authenticated('crm:read')
  @ApiOkResponse({ type: CrmRunListDto })
  async listCrmSyncRuns(@Auth() auth: AuthContext, @Query() query: CrmRunQueryDto): Promise<CrmRunListDto> {
    const em = this.db.forScope(auth);
    const where = query.status ? { status: query.status as CrmSyncRun['status'] } : {};
    return paginate(
      pageWindow(query),
      () => em.count(CrmSyncRun, where),
      async (offset, limit) =>
        (await em.find(CrmSyncRun, where, { orderBy: [{ startedAt: 'desc' }, { id: 'desc' }], offset, limit })).map(mapRun),
    );
  }

  @Get('sync/logs/:log_id')
  @Authenticated('crm:read')
  @ApiOkResponse({ type: CrmRunDetailResponseDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  async getCrmSyncRun(@Auth() auth: AuthContext, @Param('log_id') logId: string): Promise<CrmRunDetailResponseDto> {
    const id = /^\d{1,9}$/.test(logId) ? Number(logId) : null;
    const run = id ? await this.db.forScope(auth).findOne(CrmSyncRun, { id }) : null;
    if (!run) throw ApiError.notFound('CRM sync run');
    return { data: mapRunDetail(run) };
  }

  // ------------------------------------------------------------------ inbound

  @Post('webhooks')
  @HttpCode(200)
  @Authenticated('crm:write')
  @ApiExtraModels(CrmWebhookInputDto)
  @ApiBody({
    description:
      'The generic body, or a native HubSpot event array (with X-HubSpot-Signature-v3 when the client secret is configured) or Pipedrive `{meta, data}` webhook',
    schema: {
      oneOf: [
        { $ref: getSchemaPath(CrmWebhookInputDto) },
        { type: 'array', description: 'HubSpot webhook events', items: { type: 'object', additionalProperties: {} } },
        {
          type: 'object',
          description: 'Pipedrive webhook (v2)',
          required: ['meta', 'data'],
          properties: { meta: { type: 'object', additionalProperties: {} }, data: { type: 'object', additionalProperties: {} } },
        },
      ],
    },
  })
  @ApiOkResponse({ type: CrmWebhookResponseDto })
  receiveCrmWebhook(@Auth() auth: AuthContext, @Body() body: unknown, @Req() req: FastifyRequest): Promise<CrmWebhookResponseDto> {
    return this.inbound.receive(auth, {
      method: req.method,
      uri: req.url,
      headers: req.headers,
      rawBody: (req as FastifyRequest & { rawBody?: string }).rawBody ?? '',
      body,
      query: req.query as Record<string, string | undefined>,
    });
  }
}
