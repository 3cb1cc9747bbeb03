import { CrmConfig, CrmFieldMapping, CrmSyncLog, CrmSyncRun } from './crm.entities';
import { CRM_OBJECT, toFormB } from './crm.fields';
import {
  CrmConfigDto,
  CrmMappingDto,
  CrmMappingFormBDto,
  CrmRunDetailDto,
  CrmRunDto,
  CrmSingleConfigDto,
  CrmSyncLogDto,
} from './dto/crm.dto';

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function mapConfig(c: CrmConfig): CrmConfigDto {
  return {
    provider: c.provider,
    enabled: c.enabled,
    has_credentials: !!c.credentialsSealed,
    sync_interval_minutes: c.syncIntervalMinutes,
    last_sync_at: iso(c.lastSyncAt),
    last_sync_status: c.lastSyncStatus,
    next_sync_at: c.enabled ? iso(c.nextSyncAt) : null,
  };
}

export function mapSingleConfig(c: CrmConfig): CrmSingleConfigDto {
  return {
    provider: c.provider,
    base_url: c.baseUrl,
    enabled: c.enabled,
    connected_at: c.connectedAt.toISOString(),
    last_sync_at: iso(c.lastSyncAt),
    updated_at: c.updatedAt.toISOString(),
    sync_interval_minutes: c.syncIntervalMinutes,
  };
}

export const mapMapping = (m: CrmFieldMapping): CrmMappingDto => ({
  banklyze_field: m.dealField,
  crm_field: m.crmField,
  direction: m.direction,
});

export function mapMappingFormB(m: CrmFieldMapping): CrmMappingFormBDto {
  const object = CRM_OBJECT[m.provider];
  return {
    banklyze_field: m.dealField,
    crm_field: m.crmField.includes('.') ? m.crmField : `${object}.${m.crmField}`,
    direction: toFormB(m.direction),
  };
}

export const mapLog = (l: CrmSyncLog): CrmSyncLogDto => ({
  id: l.id,
  deal_id: l.dealId,
  provider: l.provider,
  direction: l.direction,
  status: l.status,
  external_id: l.externalId,
  error: l.error,
  sync_id: l.runId,
  synced_at: l.syncedAt.toISOString(),
});

export const mapRun = (r: CrmSyncRun): CrmRunDto => ({
  id: r.id,
  status: r.status,
  direction: toFormB(r.direction),
  trigger: r.trigger,
  provider: r.provider,
  deal_id: r.dealId,
  records_queued: r.recordsQueued,
  records_synced: r.recordsSynced,
  records_failed: r.recordsFailed,
  started_at: r.startedAt.toISOString(),
  completed_at: iso(r.completedAt),
  duration_ms: r.durationMs,
});

export const mapRunDetail = (r: CrmSyncRun): CrmRunDetailDto => ({ ...mapRun(r), details: r.details });
