import type { PublicEventType } from './public-events';

/**
 * The contract of every public event: one schema per event type's `data`, its envelope, and the
 * union of all envelopes (`LedgerlensEvent`, discriminated by `type`). `addEventSchemas` writes
 * them into the OpenAPI document (components, and `x-webhooks`: the document is OpenAPI 3.0, which
 * has no `webhooks` section); packages/webhooks and packages/sdk generate their event types from
 * there (packages/sdk/scripts/generate-events.mjs). The data fields the server lets out of a
 * filtered event type are these schemas' properties (public-events.ts), so the contract and the
 * payloads cannot drift.
 */
export interface EventSchema {
  type?: 'object' | 'string' | 'integer' | 'number' | 'boolean' | 'array';
  description?: string;
  nullable?: boolean;
  enum?: readonly (string | null)[];
  format?: string;
  properties?: Record<string, EventSchema>;
  required?: readonly string[];
  additionalProperties?: boolean | EventSchema;
  items?: EventSchema;
  $ref?: string;
  allOf?: EventSchema[];
  oneOf?: EventSchema[];
  discriminator?: { propertyName: string; mapping: Record<string, string> };
}

const REF = '#/components/schemas/';
const str = (description?: string): EventSchema => ({ type: 'string', ...(description ? { description } : {}) });
const int = (description?: string): EventSchema => ({ type: 'integer', ...(description ? { description } : {}) });
const nullable = (s: EventSchema): EventSchema => (s.$ref ? { allOf: [s], nullable: true } : { ...s, nullable: true });
const ref = (name: string): EventSchema => ({ $ref: REF + name });
const object = (properties: Record<string, EventSchema>, optional: readonly string[] = []): EventSchema => ({
  type: 'object',
  properties,
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
  additionalProperties: false,
});

/** Shared value sets of the event data (named, so the generated types name them too). */
export const EVENT_SHARED_SCHEMAS = {
  EventDealStatus: { type: 'string', enum: ['new', 'processing', 'under_review', 'ready', 'failed'] },
  EventDocumentType: { type: 'string', enum: ['bank_statement', 'tax_return', 'profit_and_loss', 'other'] },
  EventDealDecision: { type: 'string', enum: ['approve', 'decline', 'funded'] },
} satisfies Record<string, EventSchema>;

/** The `data` of each public event type. */
export const EVENT_DATA_SCHEMAS: Record<PublicEventType, EventSchema> = {
  'deal.created': object({ deal_id: int(), business_name: str() }),
  'deal.updated': object(
    {
      deal_id: int(),
      changed_fields: { type: 'array', items: str(), description: 'The fields the change set' },
      status: ref('EventDealStatus'),
      previous_status: ref('EventDealStatus'),
    },
    ['status', 'previous_status'],
  ),
  'deal.ready': object({
    deal_id: int(),
    business_name: str(),
    status: ref('EventDealStatus'),
    health_score: nullable({ type: 'number' }),
    grade: nullable(str()),
    document_count: int(),
  }),
  'deal.decision': object({ deal_id: int(), decision: ref('EventDealDecision'), previous_decision: nullable(ref('EventDealDecision')) }),
  'document.uploaded': object({ document_id: int(), deal_id: int(), filename: str(), document_type: nullable(ref('EventDocumentType')) }),
  'document.completed': object({
    document_id: int(),
    deal_id: int(),
    document_type: nullable(ref('EventDocumentType')),
    transaction_count: int(),
  }),
  'document.failed': object({ document_id: int(), deal_id: int(), error: nullable(str('Why the document could not be read')) }),
  'batch.completed': object({
    batch_id: str(),
    deal_id: int(),
    total_documents: int(),
    completed: int(),
    failed: int(),
    recommendation: nullable({ type: 'object', additionalProperties: {}, description: "The batch deal's recommendation" }),
  }),
  'recommendation.generated': object({
    deal_id: int(),
    decision: { type: 'string', enum: ['approve', 'review', 'decline'] },
    total_score: { type: 'number' },
    max_advance: nullable({ type: 'number' }),
    cfcr: { type: 'number' },
    ruleset_id: int(),
    ruleset_name: str(),
    grade: str(),
  }),
  'export.ready': object(
    {
      deal_id: int(),
      document_id: int(),
      format: { type: 'string', enum: ['pdf', 'csv', 'json'] },
      filename: str(),
      bytes: int(),
      rows: int(),
      exported_at: { type: 'string', format: 'date-time' },
    },
    ['document_id', 'bytes', 'rows'],
  ),
  'notification.created': object({
    notification_id: int(),
    user_id: int(),
    user_email: str(),
    type: str(),
    title: str(),
    message: str(),
    deal_id: int(),
    created_at: { type: 'string', format: 'date-time' },
  }),
  'webhook.test': object({
    message: str(),
    event_type: nullable(str('The event type the test was sent for, if any')),
    mode: { type: 'string', enum: ['live', 'test'] },
  }),
};

/** `deal.created` -> `DealCreated`. */
export function eventSchemaName(type: PublicEventType): string {
  return type
    .split(/[._]/)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');
}

/** The envelope of one event type, as a webhook delivers it and the event stream sends it. */
function envelope(type: PublicEventType): EventSchema {
  const literal: EventSchema = { type: 'string', enum: [type] };
  return object({
    id: str('The event id (`evt_...`): the same on every delivery of this event; deduplicate on it'),
    type: literal,
    event: { ...literal, description: 'The same as `type`' },
    created_at: { type: 'string', format: 'date-time' },
    timestamp: { type: 'string', format: 'date-time', description: 'The same as `created_at`' },
    deal_id: nullable(int()),
    data: ref(`${eventSchemaName(type)}EventData`),
  });
}

/** Every schema of the events, by component name. */
export function eventComponentSchemas(types: readonly PublicEventType[]): Record<string, EventSchema> {
  const schemas: Record<string, EventSchema> = { ...EVENT_SHARED_SCHEMAS };
  for (const type of types) {
    schemas[`${eventSchemaName(type)}EventData`] = EVENT_DATA_SCHEMAS[type];
    schemas[`${eventSchemaName(type)}Event`] = envelope(type);
  }
  schemas.LedgerlensEvent = {
    description:
      'One event, as a webhook delivers it (the request body) and the event stream sends it (the `data:` JSON): `type` (= `event`) names the event and decides `data`.',
    oneOf: types.map((t) => ref(`${eventSchemaName(t)}Event`)),
    discriminator: { propertyName: 'type', mapping: Object.fromEntries(types.map((t) => [t, REF + `${eventSchemaName(t)}Event`])) },
  };
  return schemas;
}

interface DocumentLike {
  components?: { schemas?: Record<string, unknown> };
  [key: string]: unknown;
}

/**
 * Adds the event schemas to `document.components.schemas` and one `x-webhooks` entry per event type
 * (the request a receiver gets: POST with the envelope, signed; see the webhooks guide).
 */
export function addEventSchemas(document: DocumentLike, types: readonly PublicEventType[]): void {
  document.components ??= {};
  document.components.schemas ??= {};
  Object.assign(document.components.schemas, eventComponentSchemas(types));
  document['x-webhooks'] = Object.fromEntries(
    types.map((t) => [
      t,
      {
        post: {
          operationId: `webhook_${t.replace(/\./g, '_')}`,
          summary: `${t} (webhook delivery)`,
          description:
            'Sent to the configured URL for a subscribed event, signed (X-Ledgerlens-Signature, X-Service-Signature); the same envelope is the `data:` JSON of the event stream.',
          requestBody: { required: true, content: { 'application/json': { schema: ref(`${eventSchemaName(t)}Event`) } } },
          responses: { '2XX': { description: 'Received: any 2xx ends the delivery; anything else is retried' } },
        },
      },
    ]),
  );
}
