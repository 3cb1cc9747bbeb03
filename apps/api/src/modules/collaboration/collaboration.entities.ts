import { Entity, Index, OptionalProps, PrimaryKey, Unique } from '@mikro-orm/core';
import { Bool, Int, Json, Text, Timestamp } from '../../platform/database/columns';
import { TenantScoped } from '../../platform/database/tenant';

/** Both forms' roles: Form A `admin`, Form B `manager`. */
export const ASSIGNMENT_ROLES = ['reviewer', 'underwriter', 'manager', 'admin'] as const;
export type AssignmentRole = (typeof ASSIGNMENT_ROLES)[number];

export const REQUESTABLE_DOCUMENT_TYPES = ['bank_statement', 'tax_return', 'profit_and_loss'] as const;
export type RequestableDocumentType = (typeof REQUESTABLE_DOCUMENT_TYPES)[number];
export const DOCUMENT_REQUEST_STATUSES = ['pending', 'fulfilled', 'cancelled'] as const;
export type DocumentRequestStatus = (typeof DOCUMENT_REQUEST_STATUSES)[number];

/** One role per user per deal: assigning again replaces the role (unique deal + user). */
@TenantScoped()
@Entity({ tableName: 'deal_assignments' })
@Unique({ properties: ['dealId', 'userId'] })
@Index({ properties: ['userId', 'organizationId', 'livemode'] })
export class Assignment {
  [OptionalProps]?: 'assignedAt' | 'updatedAt' | 'assignedBy';
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() organizationId: number;
  @Bool() livemode: boolean;
  @Int() dealId: number;
  @Int() userId: number;
  @Text({ length: 32 }) role: AssignmentRole;
  /** The assigning user, null when an API key without a user assigned. */
  @Int({ nullable: true }) assignedBy: number | null = null;
  @Timestamp() assignedAt: Date = new Date();
  @Timestamp() updatedAt: Date = new Date();
}

/** Soft-deleted comments keep their row (audit); lists hide them. One level of replies. */
@TenantScoped()
@Entity({ tableName: 'deal_comments' })
@Index({ properties: ['dealId', 'createdAt'] })
export class Comment {
  [OptionalProps]?: 'createdAt' | 'updatedAt' | 'deletedAt' | 'deletedBy' | 'parentId' | 'mentions';
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() organizationId: number;
  @Bool() livemode: boolean;
  @Int() dealId: number;
  @Int() userId: number;
  @Int({ nullable: true }) parentId: number | null = null;
  @Text() body: string;
  /** Ids of the organization's users the body mentions, resolved when it was written. */
  @Json() mentions: number[] = [];
  @Timestamp() createdAt: Date = new Date();
  @Timestamp() updatedAt: Date = new Date();
  @Timestamp({ nullable: true }) deletedAt: Date | null = null;
  @Int({ nullable: true }) deletedBy: number | null = null;
}

@TenantScoped()
@Entity({ tableName: 'document_requests' })
@Index({ properties: ['dealId', 'status'] })
export class DocumentRequest {
  [OptionalProps]?: 'createdAt' | 'updatedAt' | 'status' | 'message' | 'dueDate' | 'requestedBy' | 'fulfilledAt' | 'fulfilledDocumentId';
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() organizationId: number;
  @Bool() livemode: boolean;
  @Int() dealId: number;
  @Text({ length: 32 }) documentType: RequestableDocumentType;
  /** Form A `message`, Form B `description`: one text. */
  @Text({ length: 2000, nullable: true }) message: string | null = null;
  @Text({ length: 16 }) status: DocumentRequestStatus = 'pending';
  /** YYYY-MM-DD */
  @Text({ length: 10, nullable: true }) dueDate: string | null = null;
  @Int({ nullable: true }) requestedBy: number | null = null;
  @Int({ nullable: true }) fulfilledDocumentId: number | null = null;
  @Timestamp({ nullable: true }) fulfilledAt: Date | null = null;
  @Timestamp() createdAt: Date = new Date();
  @Timestamp() updatedAt: Date = new Date();
}

/**
 * One line of a deal's history, written by the collaboration feed from a domain event (`sourceKey`
 * = the event id, or event id + suffix for derived lines): redelivered events add nothing.
 * `eventType` is the Form A vocabulary, `kind` the Form B one.
 */
@TenantScoped()
@Entity({ tableName: 'timeline_entries' })
@Index({ properties: ['dealId', 'createdAt'] })
@Index({ properties: ['organizationId', 'livemode', 'createdAt'] })
export class TimelineEntry {
  [OptionalProps]?: 'actorId';
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() organizationId: number;
  @Bool() livemode: boolean;
  @Int() dealId: number;
  @Text({ length: 80, unique: true }) sourceKey: string;
  @Text({ length: 64 }) eventType: string;
  @Text({ length: 32 }) kind: string;
  /** Audit name of the cause: `user:12`, `api_key:3`, `system:pipeline`. */
  @Text({ length: 255 }) actor: string;
  @Int({ nullable: true }) actorId: number | null = null;
  @Text({ length: 320 }) actorName: string;
  @Text({ length: 1000 }) description: string;
  @Json() metadata: Record<string, unknown>;
  @Timestamp() createdAt: Date;
}

/** A user's notification; one per (source event, user), so a redelivered event notifies once. */
@TenantScoped()
@Entity({ tableName: 'notifications' })
@Unique({ properties: ['sourceKey', 'userId'] })
@Index({ properties: ['userId', 'organizationId', 'livemode', 'createdAt'] })
export class Notification {
  [OptionalProps]?: 'read' | 'readAt' | 'dealId';
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() organizationId: number;
  @Bool() livemode: boolean;
  @Int() userId: number;
  @Int({ nullable: true }) dealId: number | null = null;
  @Text({ length: 80 }) sourceKey: string;
  @Text({ length: 64 }) type: string;
  @Text({ length: 300 }) title: string;
  @Text({ length: 1000 }) message: string;
  @Bool({ default: false }) read: boolean = false;
  @Timestamp({ nullable: true }) readAt: Date | null = null;
  @Timestamp() createdAt: Date;
}

/** The events the collaboration feed has applied (its idempotency ledger; not scoped: the feed reads it for every organization). */
@Entity({ tableName: 'collaboration_consumed_events' })
export class ConsumedEvent {
  @PrimaryKey({ type: 'string', columnType: 'varchar(40)' }) eventId: string;
  @Timestamp() consumedAt: Date;
}

/** The entities of the collaboration module, registered with the ORM by the composition root (entities.ts). */
export const COLLABORATION_ENTITIES = [Assignment, Comment, DocumentRequest, TimelineEntry, Notification, ConsumedEvent];
