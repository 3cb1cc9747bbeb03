import { DomainEventRecord } from '../events/outbox.entity';
import { IdempotencyRecord } from '../idempotency/idempotency.entity';

/** The platform's own entities (the outbox, idempotency keys); the modules export theirs. */
export const PLATFORM_ENTITIES = [DomainEventRecord, IdempotencyRecord];
