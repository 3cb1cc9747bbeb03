import { FilterQuery, LockMode, QueryOrder, raw, RequiredEntityData } from '@mikro-orm/core';
import { Injectable } from '@nestjs/common';
import { entityManagerOf, UnitOfWork } from '../../../platform/database/unit-of-work';
import { Transaction, TransactionCorrection } from '../entities/transaction.entities';

/** Which transactions a list shows (dates as ISO `YYYY-MM-DD`, inclusive). */
export interface TransactionFilter {
  type?: string;
  flagged?: boolean;
  from?: string;
  to?: string;
}

function conditions(filter: TransactionFilter): Record<string, unknown> {
  const where: Record<string, unknown> = {};
  if (filter.type) where.transactionType = filter.type;
  if (filter.flagged === true) where.screeningBucket = { $ne: null };
  if (filter.flagged === false) where.screeningBucket = null;
  if (filter.from || filter.to) where.date = { ...(filter.from ? { $gte: filter.from } : {}), ...(filter.to ? { $lte: filter.to } : {}) };
  return where;
}

/** A transaction row as the export query reads it (numeric columns may come back as strings). */
export interface TransactionExportRow {
  id: number;
  documentId: number;
  position: number;
  date: string;
  description: string;
  amount: string | number;
  balance: string | number | null;
  transactionType: string;
  category: string;
  isNsfFee: boolean;
  isOverdraftFee: boolean;
  isLargeDeposit: boolean;
  isLargeStrange: boolean;
  isRepeatCharge: boolean;
  isSuspicious: boolean;
  screeningBucket: string | null;
  flagReason: string | null;
  /** A deposit's revenue class (an underwriter's override included); null for a debit or a row not scored since. */
  revenueClass: string | null;
  revenueRule: string | null;
}

const EXPORT_COLUMNS = [
  'id',
  'documentId',
  'position',
  'date',
  'description',
  'amount',
  'balance',
  'transactionType',
  'category',
  'isNsfFee',
  'isOverdraftFee',
  'isLargeDeposit',
  'isLargeStrange',
  'isRepeatCharge',
  'isSuspicious',
  'screeningBucket',
  'flagReason',
  'revenueClass',
  'revenueRule',
] as const;

/** What a list of flagged transactions shows. */
export type FlaggedTransaction = Pick<Transaction, 'id' | 'date' | 'description' | 'amount' | 'screeningBucket' | 'flagReason'>;
const FLAGGED_FIELDS = ['id', 'date', 'description', 'amount', 'screeningBucket', 'flagReason'] as const;

/** The corrected rows of a document's current reading, with their audit trails (oldest first). */
export interface CorrectedRows {
  rows: Transaction[];
  trails: Map<number, TransactionCorrection[]>;
  /** rows a person deleted from an earlier reading, as the reader had read them */
  deleted: DeletedRow[];
}

/** A deleted row as its trail keeps it. */
export interface DeletedRow {
  date: string;
  description: string;
  amount: number;
  position: number;
}

/**
 * Every query on transactions and their correction trail, in the caller's unit of work (its
 * tenant filters scope it). The processor works unscoped (it writes a document it found by id):
 * its methods pass `filters: false` and say so.
 */
@Injectable()
export class TransactionRepository {
  // ---- lists -------------------------------------------------------------------------------

  countForDocument(uow: UnitOfWork, documentId: number, filter: TransactionFilter): Promise<number> {
    return entityManagerOf(uow).count(Transaction, { ...conditions(filter), documentId } as FilterQuery<Transaction>);
  }

  /** One page of the document's transactions in statement order (date, then position). */
  findPageForDocument(
    uow: UnitOfWork,
    documentId: number,
    filter: TransactionFilter,
    offset: number,
    limit: number,
  ): Promise<Transaction[]> {
    return entityManagerOf(uow).find(Transaction, { ...conditions(filter), documentId } as FilterQuery<Transaction>, {
      orderBy: [{ date: QueryOrder.ASC }, { position: QueryOrder.ASC }],
      offset,
      limit,
    });
  }

  countForDocuments(uow: UnitOfWork, dealId: number, documentIds: number[], filter: TransactionFilter): Promise<number> {
    return entityManagerOf(uow).count(Transaction, {
      ...conditions(filter),
      dealId,
      documentId: { $in: documentIds },
    } as FilterQuery<Transaction>);
  }

  /** One page of the deal's transactions of these documents, chronological; ties keep upload order and statement order. */
  findPageForDocuments(
    uow: UnitOfWork,
    dealId: number,
    documentIds: number[],
    filter: TransactionFilter,
    offset: number,
    limit: number,
  ): Promise<Transaction[]> {
    return entityManagerOf(uow).find(
      Transaction,
      { ...conditions(filter), dealId, documentId: { $in: documentIds } } as FilterQuery<Transaction>,
      { orderBy: [{ date: QueryOrder.ASC }, { documentId: QueryOrder.ASC }, { position: QueryOrder.ASC }], offset, limit },
    );
  }

  /** The rows of these documents, each document's in statement order (the deal report). */
  findForDocuments(uow: UnitOfWork, documentIds: number[]): Promise<Transaction[]> {
    return entityManagerOf(uow).find(
      Transaction,
      { documentId: { $in: documentIds } },
      { orderBy: [{ documentId: 'asc' }, { position: 'asc' }] },
    );
  }

  // ---- exports ------------------------------------------------------------------------------

  /** The document's flagged rows in statement order. */
  findFlaggedForDocument(uow: UnitOfWork, documentId: number): Promise<FlaggedTransaction[]> {
    return entityManagerOf(uow).find(
      Transaction,
      { documentId, screeningBucket: { $ne: null } },
      { orderBy: [{ date: 'asc' }, { position: 'asc' }], fields: [...FLAGGED_FIELDS] },
    );
  }

  /** Up to `limit` of the deal's flagged rows, chronological (ties: upload order, statement order). */
  findFlaggedForDeal(uow: UnitOfWork, dealId: number, limit: number): Promise<FlaggedTransaction[]> {
    return entityManagerOf(uow).find(
      Transaction,
      { dealId, screeningBucket: { $ne: null } },
      { orderBy: [{ date: 'asc' }, { documentId: 'asc' }, { position: 'asc' }], limit, fields: [...FLAGGED_FIELDS] },
    );
  }

  countFlaggedForDeal(uow: UnitOfWork, dealId: number): Promise<number> {
    return entityManagerOf(uow).count(Transaction, { dealId, screeningBucket: { $ne: null } });
  }

  /**
   * One keyset page of the deal's rows of these documents over (date, document, position, id),
   * after `after` (null: the first page): each page is one indexed query, nothing accumulates.
   */
  async findExportPage(
    uow: UnitOfWork,
    dealId: number,
    documentIds: number[],
    after: TransactionExportRow | null,
    limit: number,
  ): Promise<TransactionExportRow[]> {
    const qb = entityManagerOf(uow)
      .createQueryBuilder(Transaction, 't')
      .select([...EXPORT_COLUMNS])
      .where({ dealId, documentId: { $in: documentIds } });
    if (after) {
      qb.andWhere('(t.date, t.document_id, t.position, t.id) > (?, ?, ?, ?)', [after.date, after.documentId, after.position, after.id]);
    }
    qb.orderBy([{ date: 'asc' }, { documentId: 'asc' }, { position: 'asc' }, { id: 'asc' }]).limit(limit);
    await qb.applyFilters();
    return (await qb.execute('all')) as unknown as TransactionExportRow[];
  }

  // ---- corrections -------------------------------------------------------------------------

  /** The row of the document, or null; `lock` takes its row lock and reloads it (in a transaction). */
  findInDocument(uow: UnitOfWork, documentId: number, transactionId: number, lock = false): Promise<Transaction | null> {
    return entityManagerOf(uow).findOne(
      Transaction,
      { id: transactionId, documentId },
      lock ? { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true } : {},
    );
  }

  async exists(uow: UnitOfWork, id: number): Promise<boolean> {
    return (await entityManagerOf(uow).count(Transaction, { id })) > 0;
  }

  /** A row a person adds (persisted with the unit of work's flush). */
  create(uow: UnitOfWork, fields: RequiredEntityData<Transaction>): Transaction {
    const em = entityManagerOf(uow);
    const t = em.create(Transaction, fields);
    em.persist(t);
    return t;
  }

  /** Moves the document's rows at `position` and after down one place, for a row inserted there. */
  async makeRoomAt(tx: UnitOfWork, documentId: number, position: number): Promise<void> {
    await entityManagerOf(tx).nativeUpdate(Transaction, { documentId, position: { $gte: position } }, { position: raw('position + 1') });
  }

  /** One audit row of the trail. */
  addCorrection(uow: UnitOfWork, fields: RequiredEntityData<TransactionCorrection>): void {
    const em = entityManagerOf(uow);
    em.persist(em.create(TransactionCorrection, fields));
  }

  /** The row's trail, oldest first (it outlives the row). */
  trailOf(uow: UnitOfWork, transactionId: number): Promise<TransactionCorrection[]> {
    return entityManagerOf(uow).find(TransactionCorrection, { transactionId }, { orderBy: { id: QueryOrder.ASC } });
  }

  /** How many entries the trail of these documents' rows holds (append-only: it grows with every correction, addition and deletion). */
  countCorrectionsForDocuments(uow: UnitOfWork, documentIds: number[]): Promise<number> {
    if (!documentIds.length) return Promise.resolve(0);
    return entityManagerOf(uow).count(TransactionCorrection, { documentId: { $in: documentIds } });
  }

  /** Of these rows, those whose category a person corrected (the screening does not override it). */
  async categoryCorrected(uow: UnitOfWork, rows: Transaction[], fields: string[] = ['category', 'row']): Promise<Set<number>> {
    const corrected = rows.filter((r) => r.correctionCount > 0).map((r) => r.id);
    if (!corrected.length) return new Set();
    const entries = await entityManagerOf(uow).find(
      TransactionCorrection,
      // a row a person added (field `row`) has the category the person gave it
      { transactionId: { $in: corrected }, field: { $in: fields } },
      { fields: ['transactionId'] },
    );
    return new Set(entries.map((e) => e.transactionId));
  }

  // ---- a document's reading (the processor, unscoped) ----------------------------------------

  /** The corrected rows of a document's current reading, with their audit trails (oldest first). */
  async loadCorrectedRowsUnscoped(tx: UnitOfWork, documentId: number): Promise<CorrectedRows> {
    const em = entityManagerOf(tx);
    const rows = await em.find(Transaction, { documentId, correctionCount: { $gt: 0 } }, { filters: false, orderBy: { position: 'asc' } });
    const trails = new Map<number, TransactionCorrection[]>();
    const deletions = await em.find(
      TransactionCorrection,
      { documentId, field: 'row', newValue: null },
      { filters: false, orderBy: { id: 'asc' } },
    );
    const deleted = deletions.flatMap((d) => {
      const row = JSON.parse(d.oldValue ?? '{}') as Partial<DeletedRow> & { amount?: string; origin?: string };
      // a deleted row a person had added has nothing to find in a new reading
      if (row.origin === 'added' || !row.date || row.amount === undefined) return [];
      return [{ date: row.date, description: row.description ?? '', amount: Number(row.amount), position: row.position ?? 0 }];
    });
    if (!rows.length) return { rows, trails, deleted };
    const entries = await em.find(
      TransactionCorrection,
      { transactionId: { $in: rows.map((r) => r.id) } },
      { filters: false, orderBy: { id: 'asc' } },
    );
    for (const e of entries) trails.set(e.transactionId, [...(trails.get(e.transactionId) ?? []), e]);
    return { rows, trails, deleted };
  }

  /** Deletes the document's rows but those kept (the corrected rows carried into a new reading). */
  async deleteReadingUnscoped(tx: UnitOfWork, documentId: number, keep: number[]): Promise<void> {
    await entityManagerOf(tx).nativeDelete(Transaction, { documentId, ...(keep.length ? { id: { $nin: keep } } : {}) }, { filters: false });
  }

  /** Inserts the rows of a new reading, 1,000 per statement. */
  async insertReading(tx: UnitOfWork, rows: RequiredEntityData<Transaction>[]): Promise<void> {
    for (let i = 0; i < rows.length; i += 1000) await entityManagerOf(tx).insertMany(Transaction, rows.slice(i, i + 1000));
  }

  /** Deletes these rows with the unit of work. */
  remove(tx: UnitOfWork, rows: Transaction[]): void {
    entityManagerOf(tx).remove(rows);
  }
}
