import { Entity, OptionalProps, Index, PrimaryKey, Unique } from '@mikro-orm/core';
import { Bool, Int, Json, Text, Timestamp } from '../../platform/database/columns';
import { OrgScoped } from '../../platform/database/tenant';

export const USER_ROLES = ['admin', 'manager', 'underwriter', 'reviewer'] as const;
export type UserRole = (typeof USER_ROLES)[number];

@Entity({ tableName: 'organizations' })
export class Organization {
  [OptionalProps]?: 'createdAt';
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Text({ length: 255 }) name: string;
  @Timestamp() createdAt: Date = new Date();
}

/** Users are looked up by email at login (before any scope exists), so they are not filter-scoped. */
@Entity({ tableName: 'users' })
export class User {
  [OptionalProps]?: 'createdAt' | 'name';
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() @Index() organizationId: number;
  @Text({ length: 320, unique: true }) email: string;
  @Text({ length: 255, nullable: true }) name: string | null = null;
  @Text() passwordHash: string;
  @Text({ length: 32 }) role: UserRole;
  @Timestamp() createdAt: Date = new Date();
}

@Entity({ tableName: 'sessions' })
export class Session {
  [OptionalProps]?: 'createdAt' | 'lastUsedAt' | 'revokedAt';
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() @Index() userId: number;
  @Int() organizationId: number;
  @Text({ length: 64, unique: true }) tokenHash: string;
  @Timestamp() lastUsedAt: Date = new Date();
  @Timestamp() expiresAt: Date;
  @Timestamp({ nullable: true }) revokedAt: Date | null = null;
  @Timestamp() createdAt: Date = new Date();
}

@OrgScoped()
@Entity({ tableName: 'oauth_clients' })
export class OAuthClient {
  [OptionalProps]?: 'createdAt' | 'revokedAt' | 'userId';
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() @Index() organizationId: number;
  @Int({ nullable: true }) userId: number | null = null;
  @Text({ length: 64, unique: true }) clientId: string;
  @Text() secretHash: string;
  @Text({ length: 255 }) name: string;
  @Json() scopes: string[];
  @Timestamp({ nullable: true }) revokedAt: Date | null = null;
  @Timestamp() createdAt: Date = new Date();
}

@Entity({ tableName: 'oauth_tokens' })
@Unique({ properties: ['tokenHash'] })
export class OAuthToken {
  [OptionalProps]?: 'createdAt' | 'livemode';
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() @Index() clientId: number;
  @Int() organizationId: number;
  @Text({ length: 64 }) tokenHash: string;
  @Json() scopes: string[];
  @Bool({ default: true }) livemode: boolean = true;
  @Timestamp() expiresAt: Date;
  @Timestamp() createdAt: Date = new Date();
}

/** The entities of the auth module, registered with the ORM by the composition root (entities.ts). */
export const AUTH_ENTITIES = [Organization, User, Session, OAuthClient, OAuthToken];
