import type { CrmProviderName } from '../crm.entities';

/** What an adapter needs to know of a deal: our reference (the CRM's external id) and its field values. */
export interface DealSnapshot {
  id: number;
  /** Stable reference stored in the CRM record (external id): `LL-<id>`, `LL-test-<id>` in test mode. */
  ref: string;
  values: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export interface PushInput {
  deal: DealSnapshot;
  /** The CRM record already linked to the deal, if any. */
  externalId: string | null;
  /** Mapped fields (CRM field name -> value); they override the adapter's defaults. */
  fields: Record<string, unknown>;
}

export interface PushResult {
  externalId: string;
  created: boolean;
  /** The CRM's modification time of the record after the write, when the answer tells it. */
  modifiedAt: Date | null;
}

/** A CRM record as read back (pull or inbound webhook). */
export interface CrmRecord {
  externalId: string;
  /** Our deal reference when the record carries it (external-id field). */
  ref: string | null;
  fields: Record<string, unknown>;
  modifiedAt: Date;
}

export interface PullResult {
  records: CrmRecord[];
  /** The latest modification time seen (the next pull starts after it). */
  until: Date | null;
}

export interface InboundRequest {
  method: string;
  /** Path and query as received, e.g. `/v1/crm/webhooks`. */
  uri: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody: string;
  body: unknown;
  now: Date;
}

/** One change an inbound webhook reports. `echo`: caused by our own write (not applied). */
export interface InboundChange {
  externalId: string;
  ref: string | null;
  event: string;
  fields: Record<string, unknown>;
  occurredAt: Date;
  echo: boolean;
}

/**
 * The port every CRM adapter implements. Adapters speak the provider's REST API through CrmHttp
 * (SSRF guard, retries on 429/5xx) and throw CrmError with the provider's message on failure.
 */
export interface CrmProvider {
  readonly name: CrmProviderName;
  /** Makes an authenticated call that proves the credentials work; throws CrmError otherwise. */
  testConnection(): Promise<string>;
  pushDeal(input: PushInput): Promise<PushResult>;
  /** Records modified after `since` (all when null), oldest first, with the requested fields. */
  pullChanges(since: Date | null, fields: string[]): Promise<PullResult>;
  /** Verifies the provider's signature where it signs (throws CrmSignatureError) and lists the changes. */
  parseWebhook(req: InboundRequest): InboundChange[];
}

export class CrmError extends Error {
  override readonly name = 'CrmError';
  constructor(
    message: string,
    readonly status: number | null = null,
    readonly code: string | null = null,
    /** The field the provider named, when it named one (REQUIRED_FIELD_MISSING, PROPERTY_DOESNT_EXIST). */
    readonly field: string | null = null,
  ) {
    super(message);
  }
}

export class CrmSignatureError extends Error {
  override readonly name = 'CrmSignatureError';
}

/** The deal reference written to the CRM's external-id field, and back. */
export const dealRef = (dealId: number, livemode: boolean) => (livemode ? `LL-${dealId}` : `LL-test-${dealId}`);
export function dealIdOfRef(ref: string | null | undefined, livemode: boolean): number | null {
  const m = (livemode ? /^LL-(\d+)$/ : /^LL-test-(\d+)$/).exec(ref ?? '');
  return m ? Number(m[1]) : null;
}

/** Salesforce/HubSpot stage names by deal state (decision wins over status). */
export function stageOf(values: Record<string, unknown>): 'new' | 'review' | 'ready' | 'won' | 'lost' {
  if (values.decision === 'funded' || values.decision === 'approve') return 'won';
  if (values.decision === 'decline') return 'lost';
  if (values.status === 'ready') return 'ready';
  if (values.status === 'under_review' || values.status === 'processing') return 'review';
  return 'new';
}

/** A date `days` after `from`, as YYYY-MM-DD. */
export function dateAfter(from: Date, days: number): string {
  return new Date(from.getTime() + days * 86_400_000).toISOString().slice(0, 10);
}
