import { Organization, OAuthClient, OAuthToken, Session, User } from './modules/auth/auth.entities';
import { ApiKey } from './modules/keys/keys.entities';
import { Deal, DealDecision } from './modules/deals/deals.entities';
import { DomainEventRecord } from './platform/events/outbox.entity';
import { IdempotencyRecord } from './platform/idempotency/idempotency.entity';

/** Every entity of the server, for MikroORM discovery (explicit: works compiled, in jest and bundled). */
export const ENTITIES = [Organization, User, Session, OAuthClient, OAuthToken, ApiKey, Deal, DealDecision, DomainEventRecord, IdempotencyRecord];
