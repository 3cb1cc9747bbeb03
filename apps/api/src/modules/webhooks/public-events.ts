import type { DomainEvent, DomainEventType } from '../../platform/events/events';

/**
 * The one mapping from internal domain events to what leaves the service (webhooks and the SSE
 * stream). Only the spec's event types go out; internal ones (rulesets, keys, summaries, deletes)
 * stay in. `data` is the event's own data, chosen field by field so an internal field added
 * later does not leak by accident.
 */
export const PUBLIC_EVENT_TYPES = [
  'deal.created',
  'deal.updated',
  'deal.ready',
  'deal.decision',
  'document.uploaded',
  'document.completed',
  'document.failed',
  'batch.completed',
  'recommendation.generated',
  'export.ready',
  'notification.created',
  'webhook.test',
] as const;
export type PublicEventType = (typeof PUBLIC_EVENT_TYPES)[number];

/**
 * Spec envelope, union of both forms (README, "How the spec's variants became one API", rule 2):
 * `type` = `event`, `timestamp` = `created_at`.
 */
export interface PublicEvent {
  id: string;
  type: PublicEventType;
  event: PublicEventType;
  created_at: string;
  timestamp: string;
  deal_id: number | null;
  data: Record<string, unknown>;
}

const FIELDS: Record<Exclude<PublicEventType, 'webhook.test'>, readonly string[] | 'all'> = {
  'deal.created': ['deal_id', 'business_name'],
  'deal.updated': ['deal_id', 'changed_fields', 'status', 'previous_status'],
  'deal.ready': ['deal_id', 'business_name', 'status', 'health_score', 'grade', 'document_count'],
  'deal.decision': ['deal_id', 'decision', 'previous_decision'],
  'document.uploaded': ['document_id', 'deal_id', 'filename', 'document_type'],
  'document.completed': ['document_id', 'deal_id', 'document_type', 'transaction_count'],
  'document.failed': ['document_id', 'deal_id', 'error'],
  'notification.created': ['notification_id', 'user_id', 'user_email', 'type', 'title', 'message', 'deal_id', 'created_at'],
  'recommendation.generated': ['deal_id', 'decision', 'total_score', 'max_advance', 'cfcr', 'ruleset_id', 'ruleset_name', 'grade'],
  // Emitted by the ingest and export modules; their data is already the public payload.
  'batch.completed': 'all',
  'export.ready': 'all',
};

export function isPublicEventType(type: string): type is PublicEventType {
  return (PUBLIC_EVENT_TYPES as readonly string[]).includes(type);
}

export function toPublicEvent(
  event: Pick<DomainEvent, 'id' | 'dealId' | 'data' | 'createdAt'> & { type: DomainEventType | 'webhook.test' },
): PublicEvent | null {
  if (!isPublicEventType(event.type)) return null;
  const fields = event.type === 'webhook.test' ? 'all' : FIELDS[event.type];
  const data =
    fields === 'all' ? { ...event.data } : Object.fromEntries(fields.filter((f) => f in event.data).map((f) => [f, event.data[f]]));
  const at = event.createdAt.toISOString();
  return { id: event.id, type: event.type, event: event.type, created_at: at, timestamp: at, deal_id: event.dealId, data };
}
