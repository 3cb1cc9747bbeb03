import { Organization, OAuthClient, OAuthToken, Session, User } from './modules/auth/auth.entities';
import { ApiKey } from './modules/keys/keys.entities';
import { Deal, DealDecision } from './modules/deals/deals.entities';
import { Document } from './modules/documents/documents.entities';
import { Transaction, TransactionCorrection } from './modules/transactions/transactions.entities';
import { DomainEventRecord } from './platform/events/outbox.entity';
import { IdempotencyRecord } from './platform/idempotency/idempotency.entity';
import { RecommendationRecord, Ruleset } from './modules/rulesets/rulesets.entities';
import {
  Assignment,
  Comment,
  ConsumedEvent,
  DocumentRequest,
  Notification,
  TimelineEntry,
} from './modules/collaboration/collaboration.entities';
import { WebhookAttempt, WebhookConfig, WebhookDelivery } from './modules/webhooks/webhooks.entities';
import { ShareLink } from './modules/shares/shares.entities';
import { CrmConfig, CrmFieldMapping, CrmLink, CrmSyncLog, CrmSyncRun } from './modules/crm/crm.entities';
import { IngestBatch, IngestBatchDocument } from './modules/ingest/ingest.entities';

/** Every entity of the server, for MikroORM discovery (explicit: works compiled, in jest and bundled). */
export const ENTITIES = [
  Organization,
  User,
  Session,
  OAuthClient,
  OAuthToken,
  ApiKey,
  Deal,
  DealDecision,
  DomainEventRecord,
  IdempotencyRecord,
  Document,
  Transaction,
  TransactionCorrection,
  Ruleset,
  RecommendationRecord,
  WebhookConfig,
  WebhookDelivery,
  WebhookAttempt,
  ShareLink,
  CrmConfig,
  CrmFieldMapping,
  CrmLink,
  CrmSyncLog,
  CrmSyncRun,
  Assignment,
  Comment,
  DocumentRequest,
  TimelineEntry,
  Notification,
  ConsumedEvent,
  IngestBatch,
  IngestBatchDocument,
];
