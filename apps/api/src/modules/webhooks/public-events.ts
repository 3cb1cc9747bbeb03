import type { DomainEvent, DomainEventType } from '../../platform/events/events';
import { EVENT_DATA_SCHEMAS } from './event-schemas';

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

/**
 * The data fields let out per type: the properties of its schema in the contract
 * (event-schemas.ts). `batch.completed` and `export.ready` are emitted by the ingest and export
 * modules with their public payload already, and `webhook.test` by the webhooks module: passed whole.
 */
const PASSED_WHOLE: readonly PublicEventType[] = ['batch.completed', 'export.ready', 'webhook.test'];
const FIELDS = Object.fromEntries(
  PUBLIC_EVENT_TYPES.map((t) => [t, PASSED_WHOLE.includes(t) ? 'all' : Object.keys(EVENT_DATA_SCHEMAS[t].properties ?? {})]),
) as Record<PublicEventType, readonly string[] | 'all'>;

export function isPublicEventType(type: string): type is PublicEventType {
  return (PUBLIC_EVENT_TYPES as readonly string[]).includes(type);
}

export function toPublicEvent(
  event: Pick<DomainEvent, 'id' | 'dealId' | 'data' | 'createdAt'> & { type: DomainEventType | 'webhook.test' },
): PublicEvent | null {
  if (!isPublicEventType(event.type)) return null;
  const fields = FIELDS[event.type];
  const data =
    fields === 'all' ? { ...event.data } : Object.fromEntries(fields.filter((f) => f in event.data).map((f) => [f, event.data[f]]));
  const at = event.createdAt.toISOString();
  // the event's deal, else the deal its data names (an event recorded without one, e.g. export.ready)
  const dealId = event.dealId ?? (typeof data.deal_id === 'number' ? data.deal_id : null);
  return { id: event.id, type: event.type, event: event.type, created_at: at, timestamp: at, deal_id: dealId, data };
}
