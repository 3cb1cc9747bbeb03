import { Entity, OptionalProps, Index, PrimaryKey } from '@mikro-orm/core';
import { Bool, Int, Json, Text, Timestamp } from '../../platform/database/columns';
import { OrgScoped } from '../../platform/database/tenant';

/**
 * An API key. Only a SHA-256 of the full key is stored (keys carry 192 bits of randomness, so a
 * fast hash is enough and keeps authentication a single indexed lookup). Keys belong to the
 * organization; `livemode` says which data the key sees.
 */
@OrgScoped()
@Entity({ tableName: 'api_keys' })
export class ApiKey {
  [OptionalProps]?: 'createdAt' | 'userId' | 'expiresAt' | 'lastUsedAt' | 'revokedAt';
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() @Index() organizationId: number;
  @Int({ nullable: true }) userId: number | null = null;
  @Text({ length: 255 }) name: string;
  @Bool() livemode: boolean;
  @Text({ length: 64, unique: true }) keyHash: string;
  @Text({ length: 16 }) keyPrefix: string;
  @Text({ length: 4 }) last4: string;
  @Json() scopes: string[];
  @Timestamp({ nullable: true }) expiresAt: Date | null = null;
  @Timestamp({ nullable: true }) lastUsedAt: Date | null = null;
  @Timestamp({ nullable: true }) revokedAt: Date | null = null;
  @Timestamp() createdAt: Date = new Date();
}

/** The entities of the keys module, registered with the ORM by the composition root (entities.ts). */
export const KEYS_ENTITIES = [ApiKey];
