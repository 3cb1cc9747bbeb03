import { Deal, DealDecision } from './deal.entities';
import { Document } from './document.entities';
import { RecommendationRecord } from './recommendation.entity';
import { Transaction, TransactionCorrection } from './transaction.entities';

/** The entities of the pipeline module, registered with the ORM by the composition root (entities.ts). */
export const PIPELINE_ENTITIES = [Deal, DealDecision, Document, Transaction, TransactionCorrection, RecommendationRecord];
