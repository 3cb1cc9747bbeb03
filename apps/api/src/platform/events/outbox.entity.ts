import { Entity, OptionalProps, Index, PrimaryKey } from '@mikro-orm/core';
import { Bool, Int, Json, Text, Timestamp } from '../database/columns';

/**
 * The outbox: a domain event is written in the same transaction as the change it describes and
 * delivered to subscribers afterwards, at least once, by the dispatcher. Not filter-scoped: only
 * the dispatcher reads it, for every organization.
 */
@Entity({ tableName: 'domain_events' })
@Index({ properties: ['dispatchedAt', 'nextAttemptAt'] })
export class DomainEventRecord {
  [OptionalProps]?: 'createdAt' | 'attempts' | 'nextAttemptAt' | 'dispatchedAt' | 'lastError' | 'dealId' | 'actor';
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Text({ length: 40, unique: true }) eventId: string;
  @Int() organizationId: number;
  @Bool() livemode: boolean;
  @Text({ length: 64 }) type: string;
  @Int({ nullable: true }) dealId: number | null = null;
  @Json() data: Record<string, unknown>;
  @Text({ length: 255, nullable: true }) actor: string | null = null;
  @Int({ default: 0 }) attempts: number = 0;
  @Text({ nullable: true }) lastError: string | null = null;
  @Timestamp() nextAttemptAt: Date = new Date();
  @Timestamp({ nullable: true }) dispatchedAt: Date | null = null;
  @Timestamp() createdAt: Date = new Date();
}
