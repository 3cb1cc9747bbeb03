import { Entity, Index, OptionalProps, PrimaryKey } from '@mikro-orm/core';
import { Bool, Int, Text, Timestamp } from '../../platform/database/columns';
import { TenantScoped } from '../../platform/database/tenant';

/**
 * Token prefix: Form A's `shr_` wins over Form B's `sh_` (README, "How the spec's variants became one
 * API", rule 3: where two shapes cannot coexist, Form A wins).
 */
export const SHARE_TOKEN_PREFIX = 'shr_';

/**
 * A read-only link to a deal's summary. The token is the link itself (shown in lists, like a URL);
 * the optional password is stored only as a scrypt hash. Revoked links are kept for the audit trail.
 */
@TenantScoped()
@Entity({ tableName: 'share_links' })
@Index({ properties: ['dealId', 'id'] })
export class ShareLink {
  [OptionalProps]?:
    | 'label'
    | 'passwordHash'
    | 'expiresAt'
    | 'revokedAt'
    | 'viewCount'
    | 'lastViewedAt'
    | 'failedPasswordAttempts'
    | 'passwordLockedUntil'
    | 'createdAt';
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() organizationId: number;
  @Bool() livemode: boolean;
  @Int() dealId: number;
  @Text({ length: 64, unique: true }) token: string;
  @Text({ length: 255, nullable: true }) label: string | null = null;
  @Text({ nullable: true }) passwordHash: string | null = null;
  @Timestamp({ nullable: true }) expiresAt: Date | null = null;
  @Timestamp({ nullable: true }) revokedAt: Date | null = null;
  @Int({ default: 0 }) viewCount: number = 0;
  @Timestamp({ nullable: true }) lastViewedAt: Date | null = null;
  /** Password attempts since the last right one (an attempt counts when it starts; a right password resets it). */
  @Int({ default: 0 }) failedPasswordAttempts: number = 0;
  /** No password is checked before this time (backoff after repeated wrong ones). */
  @Timestamp({ nullable: true }) passwordLockedUntil: Date | null = null;
  @Text({ length: 64 }) createdBy: string;
  @Timestamp() createdAt: Date = new Date();
}

export function isActive(link: Pick<ShareLink, 'expiresAt' | 'revokedAt'>, now: Date): boolean {
  return link.revokedAt === null && (link.expiresAt === null || link.expiresAt.getTime() > now.getTime());
}

/** The entities of the shares module, registered with the ORM by the composition root (entities.ts). */
export const SHARES_ENTITIES = [ShareLink];
