import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsObject } from 'class-validator';
import { PageMetaDto, PageQueryDto } from '../../../platform/pagination/pagination';
import { ValidateBoolean, ValidateEnum, ValidateInt, ValidateString } from '../../../platform/validation/decorators';
import { ALL_CRM_PROVIDERS, CRM_PROVIDERS, DIRECTIONS } from '../crm.entities';
import { ANY_DIRECTION, FORM_B_DIRECTIONS } from '../crm.fields';

// ---------------------------------------------------------------- Form A: per-provider config

export class CrmConfigInputDto {
  @ValidateBoolean({ optional: true, description: 'Syncs run only while enabled (default true)' })
  enabled?: boolean;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description:
      'salesforce: client_id, client_secret, refresh_token, instance_url (My Domain; optional organization_id). ' +
      'hubspot: access_token (private app token; optional client_secret to verify webhook signatures, base_url). ' +
      'pipedrive: api_token (optional base_url `https://<company>.pipedrive.com`, deal_ref_field). Stored encrypted, never returned.',
  })
  @IsObject()
  credentials: Record<string, unknown>;

  @ValidateInt({ optional: true, min: 15, max: 1440, description: 'Minutes between automatic full syncs (default 60)' })
  sync_interval_minutes?: number;
}

export class CrmConfigDto {
  @ApiProperty({ enum: ALL_CRM_PROVIDERS }) provider: string;
  @ApiProperty() enabled: boolean;
  @ApiProperty({ description: 'Credentials are stored (their values are never returned)' }) has_credentials: boolean;
  @ApiProperty({ type: 'integer', minimum: 15, maximum: 1440 }) sync_interval_minutes: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_sync_at: string | null;
  @ApiProperty({ type: String, nullable: true, enum: ['success', 'error', null] }) last_sync_status: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) next_sync_at: string | null;
}

export class CrmTestResultDto {
  @ApiProperty() success: boolean;
  @ApiProperty() message: string;
}

// ---------------------------------------------------------------- Form B: single config

export class CrmSingleConfigInputDto {
  @ValidateEnum(ALL_CRM_PROVIDERS) provider: string;

  @ValidateString({
    minLength: 1,
    maxLength: 4096,
    description: 'Token of the provider (HubSpot private app token, Pipedrive API token, custom bearer key; Salesforce: the refresh token)',
  })
  api_key: string;

  @ValidateString({ maxLength: 2048, description: 'API base URL (HTTPS); Salesforce: the My Domain URL' })
  base_url: string;

  @ValidateBoolean({ optional: true, description: 'Default true' })
  enabled?: boolean;

  @ValidateString({ optional: true, maxLength: 255, description: 'Salesforce only: connected app client id' })
  client_id?: string;

  @ValidateString({ optional: true, maxLength: 255, description: 'Salesforce only: connected app client secret' })
  client_secret?: string;

  @ValidateInt({ optional: true, min: 15, max: 1440, description: 'Minutes between automatic full syncs (default 60)' })
  sync_interval_minutes?: number;
}

export class CrmSingleConfigDto {
  @ApiProperty({ enum: ALL_CRM_PROVIDERS }) provider: string;
  @ApiProperty({ type: String, nullable: true }) base_url: string | null;
  @ApiProperty() enabled: boolean;
  @ApiProperty({ type: String, format: 'date-time' }) connected_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_sync_at: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at: string;
  @ApiProperty({ type: 'integer' }) sync_interval_minutes: number;
}

export class CrmSingleConfigResponseDto {
  @ApiProperty({ type: CrmSingleConfigDto }) data: CrmSingleConfigDto;
}

// ---------------------------------------------------------------- field mappings

export class CrmMappingInputDto {
  @ValidateString({ minLength: 1, maxLength: 64, description: 'Deal field (business_name, funding_amount_requested, health_score, ...)' })
  banklyze_field: string;

  @ValidateString({ minLength: 1, maxLength: 255, description: 'CRM field; `Object.field` accepted (Opportunity.Amount)' })
  crm_field: string;

  @ValidateEnum(ANY_DIRECTION as string[], { description: 'to_crm, from_crm, both (or banklyze_to_crm, crm_to_banklyze, bidirectional)' })
  direction: string;
}

export class CrmMappingSetInputDto {
  @ApiProperty({ type: [CrmMappingInputDto] })
  @Allow()
  mappings: unknown;
}

export class CrmMappingDto {
  @ApiProperty() banklyze_field: string;
  @ApiProperty() crm_field: string;
  @ApiProperty({ enum: DIRECTIONS }) direction: string;
}

export class CrmMappingSetDto {
  @ApiProperty({ enum: CRM_PROVIDERS }) provider: string;
  @ApiProperty({ type: [CrmMappingDto] }) mappings: CrmMappingDto[];
}

export class CrmMappingFormBDto {
  @ApiProperty() banklyze_field: string;
  @ApiProperty({ description: 'object.field form' }) crm_field: string;
  @ApiProperty({ enum: FORM_B_DIRECTIONS }) direction: string;
}

export class CrmMappingListDto {
  @ApiProperty({ type: [CrmMappingFormBDto] }) data: CrmMappingFormBDto[];
}

// ---------------------------------------------------------------- sync

export class CrmSyncInputDto {
  @ApiPropertyOptional({
    type: 'integer',
    description: 'With a deal: synchronous push to every enabled provider. Without a body: asynchronous full sync (202)',
  })
  deal_id?: number;
}

export class CrmProviderResultDto {
  @ApiProperty({ enum: ALL_CRM_PROVIDERS }) provider: string;
  @ApiProperty({ enum: ['success', 'error'] }) status: string;
  @ApiProperty({ type: String, nullable: true }) external_id: string | null;
  @ApiProperty({ type: String, nullable: true }) error: string | null;
}

export class CrmDealSyncResultDto {
  @ApiProperty({ enum: ['success', 'error'], description: 'success when every provider succeeded' }) status: string;
  @ApiProperty({ type: String, nullable: true, description: 'The record id in the (first) CRM' }) external_id: string | null;
  @ApiProperty({ type: String, nullable: true }) error: string | null;
  @ApiProperty({ type: 'integer' }) deal_id: number;
  @ApiProperty({ type: [CrmProviderResultDto] }) results: CrmProviderResultDto[];
}

export class CrmRunStartedDto {
  @ApiProperty({ type: 'integer' }) sync_id: number;
  @ApiProperty({ enum: ['running', 'completed', 'failed'] }) status: string;
  @ApiProperty({ type: String, format: 'date-time' }) started_at: string;
  @ApiProperty({ enum: FORM_B_DIRECTIONS }) direction: string;
  @ApiProperty({ type: 'integer' }) records_queued: number;
}

export class CrmRunStartedResponseDto {
  @ApiProperty({ type: CrmRunStartedDto }) data: CrmRunStartedDto;
}

/** One response type for both forms of POST /crm/sync (200 Form A, 202 Form B). */
export class CrmSyncResponseDto {
  @ApiPropertyOptional({ enum: ['success', 'error'] }) status?: string;
  @ApiPropertyOptional({ type: String, nullable: true }) external_id?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) error?: string | null;
  @ApiPropertyOptional({ type: 'integer' }) deal_id?: number;
  @ApiPropertyOptional({ type: [CrmProviderResultDto] }) results?: CrmProviderResultDto[];
  @ApiPropertyOptional({ type: CrmRunStartedDto }) data?: CrmRunStartedDto;
}

export const SYNC_LOG_STATUSES = ['success', 'error'] as const;

export class CrmSyncLogQueryDto extends PageQueryDto {
  @ValidateInt({ optional: true, query: true, min: 1 }) deal_id?: number;
  @ValidateEnum(CRM_PROVIDERS, { optional: true }) provider?: string;
  @ValidateEnum(SYNC_LOG_STATUSES, { optional: true }) status?: string;
}

export class CrmSyncLogDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ type: 'integer' }) deal_id: number;
  @ApiProperty({ enum: ALL_CRM_PROVIDERS }) provider: string;
  @ApiProperty({ enum: ['to_crm', 'from_crm'] }) direction: string;
  @ApiProperty({ enum: SYNC_LOG_STATUSES }) status: string;
  @ApiProperty({ type: String, nullable: true }) external_id: string | null;
  @ApiProperty({ type: String, nullable: true }) error: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) sync_id: number | null;
  @ApiProperty({ type: String, format: 'date-time' }) synced_at: string;
}

export class CrmSyncLogListDto {
  @ApiProperty({ type: [CrmSyncLogDto] }) data: CrmSyncLogDto[];
  @ApiProperty({ type: PageMetaDto }) meta: PageMetaDto;
}

export const RUN_STATUSES = ['running', 'completed', 'failed'] as const;

export class CrmRunQueryDto extends PageQueryDto {
  @ValidateEnum(RUN_STATUSES, { optional: true }) status?: string;
}

export class CrmRunDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ enum: RUN_STATUSES }) status: string;
  @ApiProperty({ enum: FORM_B_DIRECTIONS }) direction: string;
  @ApiProperty({ enum: ['manual', 'interval', 'webhook', 'event'] }) trigger: string;
  @ApiProperty({ type: String, nullable: true, enum: [...ALL_CRM_PROVIDERS, null] }) provider: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) deal_id: number | null;
  @ApiProperty({ type: 'integer' }) records_queued: number;
  @ApiProperty({ type: 'integer' }) records_synced: number;
  @ApiProperty({ type: 'integer' }) records_failed: number;
  @ApiProperty({ type: String, format: 'date-time' }) started_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) completed_at: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) duration_ms: number | null;
}

export class CrmRunListDto {
  @ApiProperty({ type: [CrmRunDto] }) data: CrmRunDto[];
  @ApiProperty({ type: PageMetaDto }) meta: PageMetaDto;
}

export class CrmRunErrorDto {
  @ApiProperty() record_id: string;
  @ApiProperty({ type: String, nullable: true }) field: string | null;
  @ApiProperty() error: string;
  @ApiProperty({ enum: FORM_B_DIRECTIONS }) direction: string;
  @ApiPropertyOptional({ enum: ALL_CRM_PROVIDERS }) provider?: string;
}

export class CrmRunDetailsDto {
  @ApiProperty({ type: 'integer' }) created_in_crm: number;
  @ApiProperty({ type: 'integer' }) updated_in_crm: number;
  @ApiProperty({ type: 'integer' }) created_in_banklyze: number;
  @ApiProperty({ type: 'integer' }) updated_in_banklyze: number;
  @ApiProperty({ type: 'integer' }) skipped: number;
  @ApiProperty({ type: [CrmRunErrorDto] }) errors: CrmRunErrorDto[];
}

export class CrmRunDetailDto extends CrmRunDto {
  @ApiProperty({ type: CrmRunDetailsDto }) details: CrmRunDetailsDto;
}

export class CrmRunDetailResponseDto {
  @ApiProperty({ type: CrmRunDetailDto }) data: CrmRunDetailDto;
}

// ---------------------------------------------------------------- inbound webhook

/** The generic inbound body (documentation: the service checks it as a whole, CrmInboundService). */
export class CrmWebhookInputDto {
  @ApiProperty({ enum: ['salesforce', 'hubspot', 'pipedrive', 'custom'] }) provider: string;
  @ApiProperty({ maxLength: 100, example: 'deal.updated' }) event: string;
  @ApiProperty({ description: 'The record id in the CRM (string or number)', example: '42' }) record_id: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: {},
    description: 'Changed CRM fields by CRM field name; mapped onto the deal by the from_crm/both field mappings',
  })
  fields: Record<string, unknown>;
  @ApiProperty({ format: 'date-time', description: 'When the change happened in the CRM: an older change than the deal loses' })
  timestamp: string;
}

export class CrmWebhookResultDto {
  @ApiProperty() received: boolean;
  @ApiProperty({ type: 'integer', nullable: true }) deal_id: number | null;
  @ApiProperty({
    enum: ['updated', 'skipped', 'ignored'],
    description: 'updated: fields applied; skipped: stale or our own echo; ignored: no linked deal',
  })
  action: string;
  @ApiProperty({ type: [String], description: 'Deal fields changed' }) fields_mapped: string[];
  @ApiProperty({ type: 'integer', nullable: true, description: 'The partial sync started (Form B run id)' }) sync_id: number | null;
}

export class CrmWebhookResponseDto {
  @ApiProperty({ type: CrmWebhookResultDto }) data: CrmWebhookResultDto;
}
