import type { DomainEvent, DomainEventType } from '../../platform/events/events';

/** What a timeline line says: Form A `event_type`, Form B `type` (kind), the sentence, the metadata. */
export interface TimelineLine {
  eventType: string;
  kind: string;
  description: string;
  metadata: Record<string, unknown>;
}

/** Names the line needs besides the event: who acted, and the user an assignment is about. */
export interface LineNames {
  actor: string;
  subject?: string;
}

const str = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const pick = (data: Record<string, unknown>, keys: string[]) =>
  Object.fromEntries(keys.filter((k) => k in data).map((k) => [k, data[k] ?? null]));

/** ` with an offer of $50,000 at 1.35 over 6 months, 12% holdback` (nothing without an offer). */
function offerWords(offer: unknown): string {
  if (!offer || typeof offer !== 'object') return '';
  const o = offer as { amount?: number; factor_rate?: number; term_months?: number; holdback_percent?: number };
  const amount =
    typeof o.amount === 'number' ? o.amount.toLocaleString('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 0 }) : '?';
  return ` with an offer of ${amount} at ${str(o.factor_rate)} over ${str(o.term_months)} months, ${str(o.holdback_percent)}% holdback`;
}

/** The domain events that become timeline lines (the feed applies these and no others). */
export const TIMELINE_EVENTS: readonly DomainEventType[] = [
  'deal.created',
  'deal.updated',
  'deal.decision',
  'document.uploaded',
  'document.completed',
  'document.failed',
  'document.cancelled',
  'document.reviewed',
  'recommendation.generated',
  'deal.assigned',
  'deal.unassigned',
  'comment.added',
  'comment.updated',
  'comment.deleted',
  'document_request.created',
  'document_request.updated',
];

/**
 * The timeline line of a domain event, or null for an event the timeline does not show. Spec:
 * Form A `deal.created`, `document.uploaded`, `deal.assigned`, `comment.added`,
 * `deal.decision_set` (metadata `{decision}`), `document.uploaded` (metadata `{document_id}`);
 * Form B `status_change`, `document_uploaded`, `comment`, `assignment`. Processing results,
 * status moves, comment edits and document requests are added in the same manner.
 */
export function timelineLine(event: Pick<DomainEvent, 'type' | 'data'>, names: LineNames): TimelineLine | null {
  const d = event.data;
  const who = names.actor;
  switch (event.type) {
    case 'deal.created':
      return {
        eventType: 'deal.created',
        kind: 'status_change',
        description: `${who} created the deal`,
        metadata: { status: 'new', ...pick(d, ['business_name']) },
      };
    case 'deal.updated': {
      // Field edits (PATCH) are not lines: the deal.updated webhook and stream event carry them.
      const changed = Array.isArray(d.changed_fields) ? (d.changed_fields as string[]) : [];
      if (!changed.includes('status') || d.status === undefined) return null;
      return {
        eventType: 'deal.status_changed',
        kind: 'status_change',
        description: `Status changed from ${str(d.previous_status) || 'unknown'} to ${str(d.status)}`,
        metadata: pick(d, ['status', 'previous_status']),
      };
    }
    case 'deal.decision':
      return {
        eventType: 'deal.decision_set',
        kind: 'status_change',
        description: `${who} set the decision to ${str(d.decision)}${offerWords(d.offer)}${d.reason ? `: ${str(d.reason)}` : ''}`,
        metadata: pick(d, ['decision', 'previous_decision', 'reason', 'offer']),
      };
    case 'document.uploaded':
      return {
        eventType: 'document.uploaded',
        kind: 'document_uploaded',
        description: `${who} uploaded ${str(d.filename) || `document ${str(d.document_id)}`}`,
        metadata: pick(d, ['document_id', 'filename', 'document_type']),
      };
    case 'document.completed':
      return {
        eventType: 'document.completed',
        kind: 'document_processed',
        description: `Document ${str(d.document_id)} processed${d.document_type ? ` as ${str(d.document_type)}` : ''}`,
        metadata: pick(d, ['document_id', 'document_type', 'transaction_count']),
      };
    case 'document.failed':
      return {
        eventType: 'document.failed',
        kind: 'document_processed',
        description: `Document ${str(d.document_id)} failed to process`,
        metadata: pick(d, ['document_id', 'error']),
      };
    case 'document.cancelled':
      return {
        eventType: 'document.cancelled',
        kind: 'document_processed',
        description: `${who} cancelled the processing of document ${str(d.document_id)}`,
        metadata: pick(d, ['document_id']),
      };
    case 'document.reviewed':
      return {
        eventType: 'document.reviewed',
        kind: 'document_reviewed',
        description: `${who} marked ${str(d.filename) || `document ${str(d.document_id)}`} reviewed${d.note ? `: ${str(d.note)}` : ''}`,
        metadata: pick(d, ['document_id', 'note', 'review_reasons']),
      };
    case 'recommendation.generated':
      return {
        eventType: 'recommendation.generated',
        kind: 'recommendation',
        description: `Recommendation: ${str(d.decision)}${d.ruleset_name ? ` (${str(d.ruleset_name)})` : ''}`,
        metadata: pick(d, ['decision', 'total_score', 'grade', 'ruleset_id', 'ruleset_name']),
      };
    case 'deal.assigned':
      return {
        eventType: 'deal.assigned',
        kind: 'assignment',
        description:
          d.previous_role === null || d.previous_role === undefined
            ? `${who} assigned ${names.subject ?? `user ${str(d.user_id)}`} as ${str(d.role)}`
            : `${who} changed the role of ${names.subject ?? `user ${str(d.user_id)}`} from ${str(d.previous_role)} to ${str(d.role)}`,
        metadata: pick(d, ['assignment_id', 'user_id', 'role', 'previous_role']),
      };
    case 'deal.unassigned':
      return {
        eventType: 'deal.unassigned',
        kind: 'assignment',
        description: `${who} removed ${names.subject ?? `user ${str(d.user_id)}`} from the deal`,
        metadata: pick(d, ['assignment_id', 'user_id', 'role']),
      };
    case 'comment.added':
      return {
        eventType: 'comment.added',
        kind: 'comment',
        description: `${d.parent_id ? `${who} replied to a comment` : `${who} commented`}${d.excerpt ? `: ${str(d.excerpt)}` : ''}`,
        metadata: pick(d, ['comment_id', 'parent_id', 'mentioned_user_ids', 'excerpt']),
      };
    case 'comment.updated':
      return {
        eventType: 'comment.updated',
        kind: 'comment',
        description: `${who} edited a comment`,
        metadata: pick(d, ['comment_id']),
      };
    case 'comment.deleted':
      return {
        eventType: 'comment.deleted',
        kind: 'comment',
        description: `${who} deleted a comment`,
        metadata: pick(d, ['comment_id']),
      };
    case 'document_request.created':
      return {
        eventType: 'document_request.created',
        kind: 'document_request',
        description: `${who} requested a ${str(d.document_type).replace(/_/g, ' ')}${d.due_date ? ` by ${str(d.due_date)}` : ''}`,
        metadata: pick(d, ['request_id', 'document_type', 'due_date']),
      };
    case 'document_request.updated':
      return {
        eventType: 'document_request.updated',
        kind: 'document_request',
        description: `${who} marked the ${str(d.document_type).replace(/_/g, ' ')} request ${str(d.status)}`,
        metadata: pick(d, ['request_id', 'document_type', 'status', 'previous_status']),
      };
    default:
      return null;
  }
}

/** The line for a request fulfilled by an upload (derived from the upload's or the result's event). */
export function fulfilledLine(request: { id: number; documentType: string }, documentId: unknown): TimelineLine {
  return {
    eventType: 'document_request.fulfilled',
    kind: 'document_request',
    description: `The ${request.documentType.replace(/_/g, ' ')} request was fulfilled by document ${str(documentId)}`,
    metadata: { request_id: request.id, document_type: request.documentType, document_id: documentId ?? null, status: 'fulfilled' },
  };
}
