import { entityManagerOf, UnitOfWork } from '../database/unit-of-work';
import { randomUUID } from 'node:crypto';
import { EntityManager } from '@mikro-orm/core';
import { Scope } from '../database/tenant';
import { DomainEventRecord } from './outbox.entity';

/** Domain event types (spec: Events). Webhooks, timeline, SSE and CRM sync consume them. */
export type DomainEventType =
  | 'deal.created'
  | 'deal.updated'
  | 'deal.deleted'
  | 'deal.ready'
  | 'deal.decision'
  | 'document.uploaded'
  | 'document.completed'
  | 'document.failed'
  | 'document.cancelled'
  | 'document.requeued'
  | 'document.reviewed'
  | 'batch.completed'
  | 'recommendation.generated'
  | 'ruleset.created'
  | 'ruleset.updated'
  | 'ruleset.deleted'
  | 'ruleset.default_changed'
  | 'lender.created'
  | 'lender.updated'
  | 'lender.deleted'
  | 'deal.summary_requested'
  | 'export.ready'
  | 'key.created'
  | 'key.revoked'
  | 'key.rotated'
  | 'deal.assigned'
  | 'deal.unassigned'
  | 'comment.added'
  | 'comment.updated'
  | 'comment.deleted'
  | 'document_request.created'
  | 'document_request.updated'
  | 'notification.created'
  | 'user.invited'
  | 'user.updated';

export interface DomainEvent {
  id: string;
  /** The outbox row id: increasing, so streams can resume after it (SSE `id:`, Last-Event-ID). */
  sequence: number;
  type: DomainEventType;
  organizationId: number;
  livemode: boolean;
  dealId: number | null;
  actor: string | null;
  data: Record<string, unknown>;
  createdAt: Date;
}

/**
 * Records an event in the caller's unit of work: it is written by the same flush/transaction as
 * the change it describes, so an event exists if and only if the change committed.
 */
export function recordEvent(
  work: EntityManager | UnitOfWork,
  scope: Scope,
  type: DomainEventType,
  fields: { dealId?: number | null; actor?: string | null; data?: Record<string, unknown> } = {},
): DomainEventRecord {
  const em = work instanceof UnitOfWork ? entityManagerOf(work) : work;
  const record = em.create(DomainEventRecord, {
    eventId: `evt_${randomUUID().replace(/-/g, '')}`,
    organizationId: scope.organizationId,
    livemode: scope.livemode,
    type,
    dealId: fields.dealId ?? null,
    actor: fields.actor ?? null,
    data: fields.data ?? {},
  });
  em.persist(record);
  return record;
}

export function toDomainEvent(r: DomainEventRecord): DomainEvent {
  return {
    id: r.eventId,
    sequence: r.id,
    type: r.type as DomainEventType,
    organizationId: r.organizationId,
    livemode: r.livemode,
    dealId: r.dealId,
    actor: r.actor,
    data: r.data,
    createdAt: r.createdAt,
  };
}
