import { Entity, Index, OptionalProps, PrimaryKey, Unique } from '@mikro-orm/core';
import { Bool, Int, Json, Text, Timestamp } from '../../platform/database/columns';
import { TenantScoped } from '../../platform/database/tenant';

/** One webhook endpoint per organization and mode. The signing secret is stored sealed (SecretBox). */
@TenantScoped()
@Entity({ tableName: 'webhook_configs' })
@Unique({ properties: ['organizationId', 'livemode'] })
export class WebhookConfig {
  [OptionalProps]?: 'createdAt' | 'updatedAt';
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() organizationId: number;
  @Bool() livemode: boolean;
  @Text({ length: 2048 }) url: string;
  @Text() secretSealed: string;
  @Json() events: string[];
  @Bool() enabled: boolean;
  @Timestamp() createdAt: Date = new Date();
  @Timestamp() updatedAt: Date = new Date();
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/**
 * One event sent to the endpoint: the exact body (signed as is on every attempt), its status and
 * the time of the next attempt. The schedule lives here, not only in the queue, so a restart
 * re-enqueues every pending delivery (WebhookDeliveryService.sweep).
 */
@TenantScoped()
@Entity({ tableName: 'webhook_deliveries' })
@Index({ properties: ['status', 'nextAttemptAt'] })
@Index({ properties: ['organizationId', 'livemode', 'createdAt'] })
export class WebhookDelivery {
  [OptionalProps]?:
    | 'createdAt'
    | 'updatedAt'
    | 'deliveredAt'
    | 'responseStatus'
    | 'attemptNumber'
    | 'lastError'
    | 'dealId'
    | 'redeliveryOf'
    | 'targetUrl'
    | 'secretSealed';
  @PrimaryKey({ type: 'string', columnType: 'varchar(40)' }) id: string;
  @Int() organizationId: number;
  @Bool() livemode: boolean;
  /** Dedupes at-least-once event dispatch: one delivery per event (redeliveries carry their own key). */
  @Text({ length: 120, unique: true }) dedupeKey: string;
  @Text({ length: 40 }) eventId: string;
  @Text({ length: 64 }) eventType: string;
  @Int({ nullable: true }) dealId: number | null = null;
  @Text() body: string;
  @Text({ length: 16 }) status: DeliveryStatus;
  /** Attempts finished (logged), 0 before the first. */
  @Int({ default: 0 }) attemptNumber: number = 0;
  @Int() maxAttempts: number;
  @Timestamp({ nullable: true }) nextAttemptAt: Date | null;
  @Int({ nullable: true }) responseStatus: number | null = null;
  @Text({ nullable: true }) lastError: string | null = null;
  @Text({ length: 40, nullable: true }) redeliveryOf: string | null = null;
  /**
   * A callback (ingest batch completion): sent to this URL, signed with its own sealed secret,
   * instead of the organization's endpoint. Null for webhook deliveries.
   */
  @Text({ length: 2048, nullable: true }) targetUrl: string | null = null;
  @Text({ nullable: true }) secretSealed: string | null = null;
  @Timestamp({ nullable: true }) deliveredAt: Date | null = null;
  @Timestamp() createdAt: Date = new Date();
  @Timestamp() updatedAt: Date = new Date();
}

/** The log of one attempt: what was sent and what came back (bodies truncated), and how long it took. */
@TenantScoped()
@Entity({ tableName: 'webhook_attempts' })
@Index({ properties: ['deliveryId', 'attemptNumber'] })
export class WebhookAttempt {
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() organizationId: number;
  @Bool() livemode: boolean;
  @Text({ length: 40 }) deliveryId: string;
  @Int() attemptNumber: number;
  @Text({ length: 2048 }) requestUrl: string;
  @Json() requestHeaders: Record<string, string>;
  @Text() requestBody: string;
  @Int({ nullable: true }) responseStatus: number | null;
  @Json({ nullable: true }) responseHeaders: Record<string, string> | null;
  @Text({ nullable: true }) responseBody: string | null;
  @Bool() success: boolean;
  @Text({ nullable: true }) error: string | null;
  @Int() durationMs: number;
  @Timestamp() startedAt: Date;
}

/** The entities of the webhooks module, registered with the ORM by the composition root (entities.ts). */
export const WEBHOOKS_ENTITIES = [WebhookConfig, WebhookDelivery, WebhookAttempt];
