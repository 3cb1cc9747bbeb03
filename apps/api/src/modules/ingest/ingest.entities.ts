import { Entity, Index, OptionalProps, PrimaryKey, Unique } from '@mikro-orm/core';
import { Bool, Int, Json, Text, Timestamp } from '../../platform/database/columns';
import { TenantScoped } from '../../platform/database/tenant';

/** How the batch found its deal (spec: matching order external_reference, ein, business_name). */
export const MATCH_METHODS = ['deal_id', 'external_reference', 'ein', 'business_name', 'created'] as const;
export type MatchMethod = (typeof MATCH_METHODS)[number];

/**
 * One bulk ingest: files that became documents of one deal. Open until every document is terminal
 * and the deal's lifecycle has caught up; then `completedAt`, the counts and the recommendation are
 * written once, with `batch.completed`. The callback secret is sealed (SecretBox).
 */
@TenantScoped()
@Entity({ tableName: 'ingest_batches' })
@Index({ properties: ['organizationId', 'livemode', 'dealId', 'completedAt'] })
export class IngestBatch {
  [OptionalProps]?: 'createdAt' | 'completedAt' | 'completed' | 'failed' | 'recommendation' | 'callbackDeliveryId';
  /** `bat_<24 hex>`: the public batch_id */
  @PrimaryKey({ type: 'string', columnType: 'varchar(40)' }) id: string;
  @Int() organizationId: number;
  @Bool() livemode: boolean;
  @Int() dealId: number;
  @Bool() dealMatched: boolean;
  @Text({ length: 32 }) matchMethod: MatchMethod;
  @Int() total: number;
  @Int({ default: 0 }) completed: number = 0;
  @Int({ default: 0 }) failed: number = 0;
  @Json({ nullable: true }) recommendation: Record<string, unknown> | null = null;
  @Text({ length: 2048, nullable: true }) callbackUrl: string | null;
  @Text({ nullable: true }) callbackSecretSealed: string | null;
  @Text({ length: 40, nullable: true }) callbackDeliveryId: string | null = null;
  @Timestamp({ nullable: true }) completedAt: Date | null = null;
  @Timestamp() createdAt: Date = new Date();
}

/** A document of a batch, in file order. */
@TenantScoped()
@Entity({ tableName: 'ingest_batch_documents' })
@Unique({ properties: ['documentId'] })
export class IngestBatchDocument {
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() organizationId: number;
  @Bool() livemode: boolean;
  @Text({ length: 40 }) @Index() batchId: string;
  @Int() documentId: number;
  @Int() position: number;
}

/** The entities of the ingest module, registered with the ORM by the composition root (entities.ts). */
export const INGEST_ENTITIES = [IngestBatch, IngestBatchDocument];
