import { Entity, OptionalProps, PrimaryKey, Unique } from '@mikro-orm/core';
import { Bool, Int, Json, Text, Timestamp } from '../database/columns';

/**
 * A stored response for an `Idempotency-Key`. The unique key makes concurrent duplicates race on
 * the insert: exactly one request wins and executes, the others see `in_flight` (409) or the
 * stored response (replay).
 */
@Entity({ tableName: 'idempotency_keys' })
@Unique({ properties: ['organizationId', 'livemode', 'credentialKey', 'key'] })
export class IdempotencyRecord {
  [OptionalProps]?: 'createdAt' | 'responseStatus' | 'responseBody' | 'requestFingerprint';
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() organizationId: number;
  @Bool() livemode: boolean;
  /** Keys are per credential owner (user or API key), like Stripe's per-account keys. */
  @Text({ length: 64 }) credentialKey: string;
  @Text({ length: 255 }) key: string;
  @Text({ length: 16 }) method: string;
  @Text({ length: 512 }) path: string;
  @Text({ length: 16 }) state: 'in_flight' | 'completed';
  /**
   * SHA-256 of the request that claimed the key (method, route, path parameters, query, body):
   * a retry must match it. Null on rows stored before fingerprints, and on a multipart upload
   * still in flight (its body is read by the handler).
   */
  @Text({ length: 64, nullable: true }) requestFingerprint: string | null = null;
  @Int({ nullable: true }) responseStatus: number | null = null;
  @Json({ nullable: true }) responseBody: unknown = null;
  @Timestamp() createdAt: Date = new Date();
  @Timestamp() expiresAt: Date;
}
