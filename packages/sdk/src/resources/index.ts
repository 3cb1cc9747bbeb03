export { DealsResource, isReady } from './deals.js';
export type { CreateDealOptions, DecideOptions, WaitOptions } from './deals.js';
export { DocumentsResource } from './documents.js';
export type { BulkUploadOptions, Download, UploadOptions } from './documents.js';
export { EventsResource, toEnvelope } from './events.js';
export type { LiveEvent, LiveEventData, StreamOptions } from './events.js';
export { KeysResource } from './keys.js';
export { RulesetsResource } from './rulesets.js';
export { LendersResource } from './lenders.js';
export { TransactionsResource } from './transactions.js';
export { WebhooksResource } from './webhooks.js';
export { ExportsResource } from './exports.js';
export { SharesResource } from './shares.js';
export { CrmResource } from './crm.js';
export type { CrmProvider } from './crm.js';
export { UsageResource } from './usage.js';
export { UsersResource } from './users.js';
export {
  ActivityResource,
  AssignmentsResource,
  CommentsResource,
  DocumentRequestsResource,
  NotificationsResource,
} from './collaboration.js';
export { IngestResource } from './ingest.js';
export type { IngestOptions } from './ingest.js';
export { SessionResource } from './session.js';
export type { BrowserSession } from './session.js';
