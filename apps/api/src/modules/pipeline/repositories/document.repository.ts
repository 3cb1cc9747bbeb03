import { LockMode, QueryOrder, raw, RequiredEntityData } from '@mikro-orm/core';
import { Injectable } from '@nestjs/common';
import { Database } from '../../../platform/database/database.service';
import { entityManagerOf, UnitOfWork } from '../../../platform/database/unit-of-work';
import { Deal } from '../entities/deal.entities';
import { Document, DOCUMENT_STATUSES, TERMINAL_STATUSES } from '../entities/document.entities';

/** The statuses of a document not yet finished (an `in` list: the status index serves it). */
/** What the report's related deals compare of another deal's document. */
export type SightedDocument = Pick<Document, 'id' | 'dealId' | 'sha256' | 'bankName' | 'accountNumberLast4' | 'accountHolder'>;

const IN_FLIGHT = DOCUMENT_STATUSES.filter((s) => !TERMINAL_STATUSES.includes(s));

/**
 * Every query on documents. Most work in the caller's unit of work, scoped by its tenant filters;
 * the queue's workers (processor, producer, sweeper) find a document by id before they know its
 * organization, so their methods (`...Unscoped`, `...Backlog`) say so and pass `filters: false`.
 */
@Injectable()
export class DocumentRepository {
  constructor(private readonly db: Database) {}

  /** The document, or null. */
  findById(uow: UnitOfWork, id: number): Promise<Document | null> {
    return entityManagerOf(uow).findOne(Document, { id });
  }

  /** Those of these documents the scope can see. */
  findMany(uow: UnitOfWork, ids: number[]): Promise<Document[]> {
    return entityManagerOf(uow).find(Document, { id: { $in: ids } });
  }

  /** How many documents of the deal, other than these, are still in flight. */
  countInFlightForDeal(uow: UnitOfWork, dealId: number, except: number[]): Promise<number> {
    return entityManagerOf(uow).count(Document, { dealId, id: { $nin: except }, status: { $nin: [...TERMINAL_STATUSES] } });
  }

  /** The document, its row locked until the transaction ends, or null. */
  lockById(tx: UnitOfWork, id: number): Promise<Document | null> {
    return entityManagerOf(tx).findOne(Document, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  }

  /** Every document of the deal, oldest first. */
  listForDeal(uow: UnitOfWork, dealId: number): Promise<Document[]> {
    return entityManagerOf(uow).find(Document, { dealId }, { orderBy: { id: 'asc' } });
  }

  countForDeal(uow: UnitOfWork, dealId: number): Promise<number> {
    return entityManagerOf(uow).count(Document, { dealId });
  }

  /** One page of the deal's documents, oldest first. */
  findPageForDeal(uow: UnitOfWork, dealId: number, offset: number, limit: number): Promise<Document[]> {
    return entityManagerOf(uow).find(Document, { dealId }, { orderBy: { id: 'asc' }, offset, limit });
  }

  /** How many read documents are flagged for a person's review (the review queue's partial index serves it). */
  countNeedingReview(uow: UnitOfWork): Promise<number> {
    return entityManagerOf(uow).count(Document, { status: 'completed', needsReview: true });
  }

  /**
   * One page of the review queue: documents on `firstDealIds` first, then the oldest reading first
   * (id breaks ties), each with its deal's business name.
   */
  async findNeedingReview(
    uow: UnitOfWork,
    firstDealIds: number[],
    offset: number,
    limit: number,
  ): Promise<Array<{ doc: Document; businessName: string }>> {
    const em = entityManagerOf(uow);
    const ids = firstDealIds.filter((id) => Number.isSafeInteger(id));
    const qb = em.createQueryBuilder(Document, 'd').select('*').where({ status: 'completed', needsReview: true });
    const mineFirst = ids.length ? [{ [raw(`case when d.deal_id in (${ids.join(', ')}) then 0 else 1 end`)]: QueryOrder.ASC }] : [];
    qb.orderBy([...mineFirst, { processingCompletedAt: QueryOrder.ASC_NULLS_LAST }, { id: QueryOrder.ASC }])
      .offset(offset)
      .limit(limit);
    await qb.applyFilters();
    const docs = await qb.getResultList();
    const deals = new Map(
      (await em.find(Deal, { id: { $in: [...new Set(docs.map((d) => d.dealId))] } }, { fields: ['id', 'businessName'] })).map((d) => [
        d.id,
        d.businessName,
      ]),
    );
    return docs.map((doc) => ({ doc, businessName: deals.get(doc.dealId) ?? '' }));
  }

  /** The deal's failed and cancelled documents, oldest first (reprocess-failed). */
  findRetryableForDeal(uow: UnitOfWork, dealId: number): Promise<Document[]> {
    return entityManagerOf(uow).find(Document, { dealId, status: { $in: ['failed', 'cancelled'] } }, { orderBy: { id: 'asc' } });
  }

  /** The deal's completed documents (id and filename), oldest first. */
  findCompletedForDeal(uow: UnitOfWork, dealId: number): Promise<Pick<Document, 'id' | 'dealId' | 'filename'>[]> {
    return entityManagerOf(uow).find(
      Document,
      { dealId, status: 'completed' },
      { orderBy: { id: 'asc' }, fields: ['id', 'dealId', 'filename'] },
    );
  }

  /** The ids of the deal's completed documents. */
  async completedIdsForDeal(uow: UnitOfWork, dealId: number): Promise<number[]> {
    return (await entityManagerOf(uow).find(Document, { dealId, status: 'completed' }, { fields: ['id'] })).map((d) => d.id);
  }

  /**
   * Documents of the scope's other deals holding one of these files (content hash) or a statement
   * of an account ending in one of these last 4 digits, oldest first (the report's related deals).
   */
  findSightings(uow: UnitOfWork, dealId: number, hashes: string[], last4s: string[]): Promise<SightedDocument[]> {
    return entityManagerOf(uow).find(
      Document,
      { dealId: { $ne: dealId }, $or: [{ sha256: { $in: hashes } }, ...(last4s.length ? [{ accountNumberLast4: { $in: last4s } }] : [])] },
      { orderBy: { id: 'asc' }, fields: ['id', 'dealId', 'sha256', 'bankName', 'accountNumberLast4', 'accountHolder'] },
    );
  }

  /** A new document, written with the unit of work (flush it for the id). */
  create(uow: UnitOfWork, fields: RequiredEntityData<Document>): Document {
    return entityManagerOf(uow).create(Document, fields);
  }

  // ---- the documents queue (unscoped: a job names only its document) -------------------------

  /** The document, whatever its organization, or null. */
  findByIdUnscoped(uow: UnitOfWork, id: number): Promise<Document | null> {
    return entityManagerOf(uow).findOne(Document, { id }, { filters: false });
  }

  /** The document, whatever its organization, its row locked until the transaction ends, or null. */
  lockByIdUnscoped(tx: UnitOfWork, id: number): Promise<Document | null> {
    return entityManagerOf(tx).findOne(Document, { id }, { filters: false, lockMode: LockMode.PESSIMISTIC_WRITE });
  }

  /** Up to `limit` unfinished documents of any organization with no progress since `bound`, oldest first. */
  findStuck(uow: UnitOfWork, bound: Date, limit: number): Promise<Document[]> {
    return entityManagerOf(uow).find(
      Document,
      { status: { $nin: [...TERMINAL_STATUSES] }, updatedAt: { $lt: bound } },
      { filters: false, orderBy: { id: 'asc' }, limit },
    );
  }

  /** The document's place in its organization's backlog: its unfinished documents up to it. */
  placeInBacklog(doc: Pick<Document, 'id' | 'organizationId'>): Promise<number> {
    return this.db
      .system()
      .count(Document, { organizationId: doc.organizationId, status: { $in: IN_FLIGHT }, id: { $lte: doc.id } }, { filters: false });
  }

  /** Every unfinished document of every organization, oldest first (what a restart queues again). */
  findUnfinishedBacklog(): Promise<Pick<Document, 'id' | 'attempt' | 'organizationId'>[]> {
    return this.db
      .system()
      .find(
        Document,
        { status: { $nin: [...TERMINAL_STATUSES] } },
        { filters: false, fields: ['id', 'attempt', 'organizationId'], orderBy: { id: 'asc' } },
      );
  }
}
