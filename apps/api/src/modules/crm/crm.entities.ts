import { Entity, Index, OptionalProps, PrimaryKey, Unique } from '@mikro-orm/core';
import { Bool, Int, Json, Text, Timestamp } from '../../platform/database/columns';
import { TenantScoped } from '../../platform/database/tenant';

export const CRM_PROVIDERS = ['salesforce', 'hubspot', 'pipedrive'] as const;
/** `custom` (a generic HTTPS JSON endpoint) only through the single-config form (Form B). */
export const ALL_CRM_PROVIDERS = [...CRM_PROVIDERS, 'custom'] as const;
export type CrmProviderName = (typeof ALL_CRM_PROVIDERS)[number];
/** Canonical (Form A) directions; Form B names are translated at the edge (crm.mapper). */
export const DIRECTIONS = ['to_crm', 'from_crm', 'both'] as const;
export type Direction = (typeof DIRECTIONS)[number];

/**
 * One CRM connection per organization, mode and provider. Credentials are one sealed JSON object
 * (SecretBox, AES-256-GCM), never returned. `isPrimary` marks the single configuration of Form B.
 * `nextSyncAt` is the interval schedule (kept here so a restart re-enqueues it); `pulledUntil` is
 * the CRM-side modification time up to which changes were pulled.
 */
@TenantScoped()
@Entity({ tableName: 'crm_configs' })
@Unique({ properties: ['organizationId', 'livemode', 'provider'] })
@Index({ properties: ['enabled', 'nextSyncAt'] })
export class CrmConfig {
  [OptionalProps]?: 'createdAt' | 'updatedAt' | 'lastSyncAt' | 'lastSyncStatus' | 'pulledUntil' | 'nextSyncAt' | 'baseUrl' | 'isPrimary';
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() organizationId: number;
  @Bool() livemode: boolean;
  @Text({ length: 16 }) provider: CrmProviderName;
  @Bool() enabled: boolean;
  @Bool({ default: false }) isPrimary: boolean = false;
  @Text() credentialsSealed: string;
  @Text({ length: 2048, nullable: true }) baseUrl: string | null = null;
  @Int() syncIntervalMinutes: number;
  @Timestamp({ nullable: true }) lastSyncAt: Date | null = null;
  @Text({ length: 16, nullable: true }) lastSyncStatus: string | null = null;
  @Timestamp({ nullable: true }) pulledUntil: Date | null = null;
  @Timestamp({ nullable: true }) nextSyncAt: Date | null = null;
  @Timestamp() connectedAt: Date;
  @Timestamp() createdAt: Date = new Date();
  @Timestamp() updatedAt: Date = new Date();
}

/** A field mapping of one provider's configuration; the set is replaced as a whole. */
@TenantScoped()
@Entity({ tableName: 'crm_field_mappings' })
@Index({ properties: ['organizationId', 'livemode', 'provider'] })
export class CrmFieldMapping {
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() organizationId: number;
  @Bool() livemode: boolean;
  @Text({ length: 16 }) provider: CrmProviderName;
  @Int() position: number;
  @Text({ length: 64 }) dealField: string;
  @Text({ length: 255 }) crmField: string;
  @Text({ length: 16 }) direction: Direction;
}

/**
 * The CRM record a deal is synced with, per provider, and the times last-write-wins compares:
 * `syncedAt` is the deal's `updatedAt` as last exchanged, `remoteModifiedAt` the CRM's.
 */
@TenantScoped()
@Entity({ tableName: 'crm_links' })
@Unique({ properties: ['organizationId', 'livemode', 'provider', 'dealId'] })
@Index({ properties: ['organizationId', 'livemode', 'provider', 'externalId'] })
export class CrmLink {
  [OptionalProps]?: 'remoteModifiedAt' | 'syncedAt';
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() organizationId: number;
  @Bool() livemode: boolean;
  @Text({ length: 16 }) provider: CrmProviderName;
  @Int() dealId: number;
  @Text({ length: 255 }) externalId: string;
  @Timestamp({ nullable: true }) syncedAt: Date | null = null;
  @Timestamp({ nullable: true }) remoteModifiedAt: Date | null = null;
}

/** Form A sync log: one row per deal, provider and direction exchanged. Purged after 90 days. */
@TenantScoped()
@Entity({ tableName: 'crm_sync_logs' })
@Index({ properties: ['organizationId', 'livemode', 'syncedAt'] })
@Index({ properties: ['syncedAt'] })
export class CrmSyncLog {
  [OptionalProps]?: 'runId' | 'externalId' | 'error';
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() organizationId: number;
  @Bool() livemode: boolean;
  @Int() dealId: number;
  @Text({ length: 16 }) provider: CrmProviderName;
  @Text({ length: 16 }) direction: 'to_crm' | 'from_crm';
  @Text({ length: 16 }) status: 'success' | 'error';
  @Text({ length: 255, nullable: true }) externalId: string | null = null;
  @Text({ nullable: true }) error: string | null = null;
  @Int({ nullable: true }) runId: number | null = null;
  @Timestamp() syncedAt: Date;
}

export interface RunDetails {
  created_in_crm: number;
  updated_in_crm: number;
  created_in_banklyze: number;
  updated_in_banklyze: number;
  skipped: number;
  errors: { record_id: string; field: string | null; error: string; direction: string; provider?: string }[];
}

/** Form B sync run: a full (manual, interval) or partial (webhook, event) sync. Purged after 90 days. */
@TenantScoped()
@Entity({ tableName: 'crm_sync_runs' })
@Index({ properties: ['organizationId', 'livemode', 'startedAt'] })
@Index({ properties: ['startedAt'] })
export class CrmSyncRun {
  [OptionalProps]?: 'completedAt' | 'durationMs' | 'recordsSynced' | 'recordsFailed' | 'provider' | 'dealId';
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() organizationId: number;
  @Bool() livemode: boolean;
  @Text({ length: 16 }) status: 'running' | 'completed' | 'failed';
  @Text({ length: 16 }) direction: Direction;
  @Text({ length: 16 }) trigger: 'manual' | 'interval' | 'webhook' | 'event';
  /** Null: every enabled provider. */
  @Text({ length: 16, nullable: true }) provider: CrmProviderName | null = null;
  /** Set for a partial sync of one deal. */
  @Int({ nullable: true }) dealId: number | null = null;
  @Int() recordsQueued: number;
  @Int({ default: 0 }) recordsSynced: number = 0;
  @Int({ default: 0 }) recordsFailed: number = 0;
  @Json() details: RunDetails;
  @Timestamp() startedAt: Date;
  @Timestamp({ nullable: true }) completedAt: Date | null = null;
  @Int({ nullable: true }) durationMs: number | null = null;
}

/** The entities of the crm module, registered with the ORM by the composition root (entities.ts). */
export const CRM_ENTITIES = [CrmConfig, CrmFieldMapping, CrmLink, CrmSyncLog, CrmSyncRun];
