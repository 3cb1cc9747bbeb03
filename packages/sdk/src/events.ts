// The Ledgerlens events and their data, as webhooks deliver them and the event stream sends them.
// This file is shared: packages/sdk/src/events.ts is a byte-for-byte copy (a test checks it), so
// neither package depends on the other. Its tests check it against the server's list of public
// event types and the data fields of each.

/** Every event type that leaves the service (webhooks, the event stream). */
export const EVENT_TYPES = [
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

export type EventType = (typeof EVENT_TYPES)[number];

export type EventDealStatus = 'new' | 'processing' | 'under_review' | 'ready' | 'failed';
export type EventDocumentType = 'bank_statement' | 'tax_return' | 'profit_and_loss' | 'other';

/** The `data` of each event type. */
export interface EventDataMap {
  'deal.created': { deal_id: number; business_name: string };
  'deal.updated': { deal_id: number; changed_fields: string[]; status?: EventDealStatus; previous_status?: EventDealStatus };
  'deal.ready': {
    deal_id: number;
    business_name: string;
    status: EventDealStatus;
    health_score: number | null;
    grade: string | null;
    document_count: number;
  };
  'deal.decision': {
    deal_id: number;
    decision: 'approve' | 'decline' | 'funded';
    previous_decision: 'approve' | 'decline' | 'funded' | null;
  };
  'document.uploaded': { document_id: number; deal_id: number; filename: string; document_type: EventDocumentType | null };
  'document.completed': { document_id: number; deal_id: number; document_type: EventDocumentType | null; transaction_count: number };
  'document.failed': { document_id: number; deal_id: number; error: string | null };
  'batch.completed': {
    batch_id: string;
    deal_id: number;
    total_documents: number;
    completed: number;
    failed: number;
    recommendation: Record<string, unknown> | null;
  };
  'recommendation.generated': {
    deal_id: number;
    decision: 'approve' | 'review' | 'decline';
    total_score: number;
    max_advance: number | null;
    cfcr: number;
    ruleset_id: number;
    ruleset_name: string;
    grade: string;
  };
  'export.ready': {
    deal_id: number;
    document_id?: number;
    format: 'pdf' | 'csv' | 'json';
    filename: string;
    bytes?: number;
    rows?: number;
    exported_at: string;
  };
  'notification.created': {
    notification_id: number;
    user_id: number;
    user_email: string;
    type: string;
    title: string;
    message: string;
    deal_id: number;
    created_at: string;
  };
  'webhook.test': { message: string; event_type: string | null; mode: 'live' | 'test' };
}

/**
 * One event in the envelope webhooks deliver: `type` (= `event`) discriminates `data`.
 * `switch (event.type)` narrows `event.data` to that type's fields.
 */
export type LedgerlensEvent = {
  [T in EventType]: {
    /** The event id (`evt_...`): the same on every delivery of this event; deduplicate on it. */
    id: string;
    type: T;
    /** The same as `type`. */
    event: T;
    created_at: string;
    /** The same as `created_at`. */
    timestamp: string;
    deal_id: number | null;
    data: EventDataMap[T];
  };
}[EventType];

/** The event of one type. */
export type EventOf<T extends EventType> = Extract<LedgerlensEvent, { type: T }>;

/** True when `type` is an event type this version knows (a newer server may send others). */
export function isEventType(type: string): type is EventType {
  return (EVENT_TYPES as readonly string[]).includes(type);
}
