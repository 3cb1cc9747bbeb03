import { Injectable } from '@nestjs/common';
import { OVERRIDE_RULE } from '@ledgerlens/underwriting';
import { AuthContext } from '../../../platform/auth/auth-context';
import { Database } from '../../../platform/database/database.service';
import { Scope, scopeFields } from '../../../platform/database/tenant';
import { UnitOfWork } from '../../../platform/database/unit-of-work';
import { ApiError, ErrorCode, validationEntry } from '../../../platform/errors/api-error';
import { Page, paginate, pageWindow } from '../../../platform/pagination/pagination';
import { EventDispatcher } from '../../../platform/events/event-dispatcher';
import { DealLifecycleService } from './deal-lifecycle.service';
import { Transaction } from '../entities/transaction.entities';
import { DealRepository } from '../repositories/deal.repository';
import { DocumentRepository } from '../repositories/document.repository';
import { FlaggedTransaction, TransactionExportRow, TransactionFilter, TransactionRepository } from '../repositories/transaction.repository';

export type { FlaggedTransaction, TransactionExportRow };
import {
  AddTransactionDto,
  CorrectionTrailDto,
  CorrectTransactionDto,
  DeletedTransactionDto,
  DeleteTransactionDto,
  TransactionDto,
  TransactionQueryDto,
} from '../dto/transaction.dto';

const CORRECTOR_ROLES = ['admin', 'manager'];

function assertCorrector(auth: AuthContext): void {
  if (!auth.role || !CORRECTOR_ROLES.includes(auth.role)) throw ApiError.forbidden('Only an admin or a manager may correct transactions');
}

export function mapTransaction(t: Transaction): TransactionDto {
  const correctedAt = t.lastCorrectedAt?.toISOString() ?? null;
  return {
    id: t.id,
    document_id: t.documentId,
    deal_id: t.dealId,
    date: t.date,
    description: t.description,
    amount: t.amount,
    balance: t.balance,
    transaction_type: t.transactionType,
    category: t.category,
    is_nsf_fee: t.isNsfFee,
    is_overdraft_fee: t.isOverdraftFee,
    is_large_deposit: t.isLargeDeposit,
    is_large_strange: t.isLargeStrange,
    is_repeat_charge: t.isRepeatCharge,
    is_suspicious: t.isSuspicious,
    screening_bucket: t.screeningBucket,
    flag_reason: t.flagReason,
    correction_count: t.correctionCount,
    last_corrected_at: correctedAt,
    corrected: t.correctionCount > 0,
    corrected_at: correctedAt,
    corrected_by: t.correctedBy,
    source: t.source,
    row_warnings: t.rowWarnings ?? [],
    origin: t.origin ?? 'read',
    revenue_class: t.revenueClass ?? null,
    revenue_rule: t.revenueRule ?? null,
    is_cash_deposit: t.isCashDeposit ?? false,
    revenue_class_override: t.revenueClassOverride ?? null,
  };
}

const money = (n: number) => (Math.round(n * 100) / 100).toFixed(2);

/** A YYYY-MM-DD the calendar has (a person's correction must be one, though a statement may print another). */
export function isCalendarDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

function assertCalendarDate(value: string | undefined): void {
  if (value !== undefined && !isCalendarDate(value))
    throw ApiError.validation([validationEntry('body', ['date'], `date ${value} is not a calendar date`, 'value_error.date')]);
}

/** The row as the audit trail keeps it when it is added or deleted. */
export function rowSnapshot(t: Pick<Transaction, 'date' | 'description' | 'amount' | 'balance' | 'position' | 'origin'>): string {
  const { date, description, balance, position, origin } = t;
  return JSON.stringify({ date, description, amount: money(t.amount), balance, position, origin });
}

@Injectable()
export class TransactionsService {
  constructor(
    private readonly db: Database,
    private readonly deals: DealRepository,
    private readonly documents: DocumentRepository,
    private readonly transactions: TransactionRepository,
    private readonly lifecycle: DealLifecycleService,
    private readonly events: EventDispatcher,
  ) {}

  private filters(query: TransactionQueryDto): TransactionFilter {
    const from = query.start_date ?? query.date_from;
    const to = query.end_date ?? query.date_to;
    if (from && to && from > to) {
      throw ApiError.validation([
        validationEntry('query', ['end_date'], 'end_date must not be before start_date', 'value_error.date.range'),
      ]);
    }
    return { type: query.type ?? query.transaction_type, flagged: query.flagged, from, to };
  }

  async forDocument(auth: AuthContext, documentId: number, query: TransactionQueryDto): Promise<Page<TransactionDto>> {
    const uow = this.db.unitOfWork(auth);
    const doc = await this.documents.findById(uow, documentId);
    if (!doc) throw ApiError.notFound('Document', ErrorCode.DOCUMENT_NOT_FOUND);
    if (doc.status !== 'completed')
      throw ApiError.conflict(`Transactions are available once the document is completed (status ${doc.status})`);
    const filter = this.filters(query);
    return paginate(
      pageWindow(query, 50),
      () => this.transactions.countForDocument(uow, documentId, filter),
      async (offset, limit) => (await this.transactions.findPageForDocument(uow, documentId, filter, offset, limit)).map(mapTransaction),
    );
  }

  /** All processed documents of the deal, chronological; ties keep upload order and statement order. */
  async forDeal(auth: AuthContext, dealId: number, query: TransactionQueryDto): Promise<Page<TransactionDto>> {
    const uow = this.db.unitOfWork(auth);
    if (!(await this.deals.exists(uow, dealId))) throw ApiError.notFound('Deal', ErrorCode.DEAL_NOT_FOUND);
    const completed = await this.documents.completedIdsForDeal(uow, dealId);
    const filter = this.filters(query);
    return paginate(
      pageWindow(query, 50),
      () => this.transactions.countForDocuments(uow, dealId, completed, filter),
      async (offset, limit) =>
        (await this.transactions.findPageForDocuments(uow, dealId, completed, filter, offset, limit)).map(mapTransaction),
    );
  }

  // ---- for exports -------------------------------------------------------------------------

  /** How many rows the document has. */
  countForDocument(scope: Scope, documentId: number): Promise<number> {
    return this.transactions.countForDocument(this.db.unitOfWork(scope), documentId, {});
  }

  /** The document's flagged rows in statement order. */
  flaggedForDocument(scope: Scope, documentId: number): Promise<FlaggedTransaction[]> {
    return this.transactions.findFlaggedForDocument(this.db.unitOfWork(scope), documentId);
  }

  /** Up to `limit` of the deal's flagged rows, chronological, and how many there are in all. */
  async flaggedForDeal(scope: Scope, dealId: number, limit: number): Promise<{ rows: FlaggedTransaction[]; total: number }> {
    const uow = this.db.unitOfWork(scope);
    const rows = await this.transactions.findFlaggedForDeal(uow, dealId, limit);
    return { rows, total: await this.transactions.countFlaggedForDeal(uow, dealId) };
  }

  /** The deal's rows of these documents in keyset pages of `pageSize` (date, document, position, id). */
  async *exportPages(scope: Scope, dealId: number, documentIds: number[], pageSize: number): AsyncGenerator<TransactionExportRow[]> {
    if (!documentIds.length) return;
    const uow = this.db.unitOfWork(scope);
    let after: TransactionExportRow | null = null;
    for (;;) {
      const batch = await this.transactions.findExportPage(uow, dealId, documentIds, after, pageSize);
      if (!batch.length) return;
      yield batch;
      if (batch.length < pageSize) return;
      after = batch[batch.length - 1];
    }
  }

  /**
   * Writes a correction: one append-only audit row per changed field, in the same transaction as
   * the change, then rescores the deal from its corrected transactions in that transaction (a
   * ready deal: screening, report, recommendation, `deal.ready`; a deal still processing is scored
   * with the correction when its documents are done). The deal row is locked first, as the
   * lifecycle does.
   */
  async correct(auth: AuthContext, documentId: number, transactionId: number, dto: CorrectTransactionDto): Promise<TransactionDto> {
    assertCorrector(auth);
    let rescored = false;
    const result = await this.db.unitOfWork(auth).transaction(async (tx) => {
      const deal = await this.deals.getOr404(tx, (await this.findTransaction(tx, documentId, transactionId)).dealId, { lock: true });
      const t = await this.findTransaction(tx, documentId, transactionId, true);
      const next = this.resolve(t, dto);
      const now = new Date();
      let changes = 0;
      for (const [field, [oldValue, newValue]] of Object.entries(next)) {
        if (oldValue === newValue) continue;
        changes++;
        this.transactions.addCorrection(tx, {
          ...scopeFields(auth),
          transactionId: t.id,
          dealId: t.dealId,
          documentId: t.documentId,
          field,
          oldValue,
          newValue,
          correctionReason: dto.correction_reason,
          correctedBy: auth.actor,
          correctedAt: now,
        });
      }
      if (changes) {
        if (dto.amount !== undefined || dto.transaction_type !== undefined) {
          t.amount = Number(next.amount[1]);
          t.transactionType = next.transaction_type[1] as 'credit' | 'debit';
        }
        if (dto.date !== undefined) t.date = dto.date;
        if (dto.description !== undefined) t.description = dto.description;
        if (dto.category !== undefined) t.category = dto.category;
        if (dto.revenue_class !== undefined && next.revenue_class[0] !== next.revenue_class[1]) {
          // the person's class wins over the rules from now on (the rescore below and every new reading)
          t.revenueClassOverride = dto.revenue_class;
          t.revenueClass = dto.revenue_class;
          t.revenueRule = OVERRIDE_RULE;
        }
        t.correctionCount += changes;
        t.lastCorrectedAt = now;
        t.correctedBy = auth.actor;
        rescored = await this.lifecycle.rescoreLocked(tx, auth, deal, auth.actor);
      }
      return mapTransaction(t);
    });
    if (rescored) this.events.notify();
    return result;
  }

  /**
   * Adds a row the reader missed, after `after_transaction_id` (or first), with a reason: the rows
   * after it move down one place, the trail records the row (field `row`, old value null), and the
   * deal is rescored in the same transaction, as a correction is. The row survives a new reading.
   */
  async add(auth: AuthContext, documentId: number, dto: AddTransactionDto): Promise<TransactionDto> {
    assertCorrector(auth);
    assertCalendarDate(dto.date);
    if (dto.amount === 0)
      throw ApiError.validation([validationEntry('body', ['amount'], 'amount must not be 0: give a signed amount', 'value_error.number')]);
    let rescored = false;
    const result = await this.db.unitOfWork(auth).transaction(async (tx) => {
      const doc = await this.documents.findById(tx, documentId);
      if (!doc) throw ApiError.notFound('Document', ErrorCode.DOCUMENT_NOT_FOUND);
      const deal = await this.deals.getOr404(tx, doc.dealId, { lock: true });
      if (doc.status !== 'completed' || doc.documentType !== 'bank_statement')
        throw ApiError.conflict(`Rows are added to a completed bank statement (document ${doc.id} is ${doc.documentType ?? doc.status})`);
      let position = 0;
      if (dto.after_transaction_id != null) {
        const after = await this.transactions.findInDocument(tx, documentId, dto.after_transaction_id, true);
        if (!after)
          throw ApiError.validation([
            validationEntry(
              'body',
              ['after_transaction_id'],
              `transaction ${dto.after_transaction_id} is not a row of document ${documentId}`,
              'value_error.reference',
            ),
          ]);
        position = after.position + 1;
      }
      await this.transactions.makeRoomAt(tx, documentId, position);
      const type = dto.amount < 0 ? 'debit' : 'credit';
      const now = new Date();
      const t = this.transactions.create(tx, {
        ...scopeFields(auth),
        dealId: doc.dealId,
        documentId,
        position,
        date: dto.date,
        description: dto.description,
        amount: dto.amount,
        balance: dto.balance ?? null,
        transactionType: type,
        category: dto.category ?? (type === 'credit' ? 'revenue' : 'operating_expense'),
        origin: 'added',
        correctionCount: 1,
        lastCorrectedAt: now,
        correctedBy: auth.actor,
      });
      await tx.flush();
      this.trailRow(tx, auth, t, [null, rowSnapshot(t)], dto.correction_reason, now);
      doc.transactionCount = (doc.transactionCount ?? 0) + 1;
      rescored = await this.lifecycle.rescoreLocked(tx, auth, deal, auth.actor);
      return mapTransaction(t);
    });
    if (rescored) this.events.notify();
    return result;
  }

  /**
   * Deletes a row the reader invented or read twice, with a reason. The trail keeps the row (field
   * `row`, new value null) and outlives it; a new reading of the file drops the same row again.
   */
  async delete(auth: AuthContext, documentId: number, transactionId: number, dto: DeleteTransactionDto): Promise<DeletedTransactionDto> {
    assertCorrector(auth);
    let rescored = false;
    const result = await this.db.unitOfWork(auth).transaction(async (tx) => {
      const deal = await this.deals.getOr404(tx, (await this.findTransaction(tx, documentId, transactionId)).dealId, { lock: true });
      const t = await this.findTransaction(tx, documentId, transactionId, true);
      const doc = await this.documents.findById(tx, documentId);
      this.trailRow(tx, auth, t, [rowSnapshot(await this.asRead(tx, t)), null], dto.correction_reason, new Date());
      this.transactions.remove(tx, [t]);
      if (doc) doc.transactionCount = Math.max(0, (doc.transactionCount ?? 1) - 1);
      rescored = await this.lifecycle.rescoreLocked(tx, auth, deal, auth.actor);
      return { id: t.id, document_id: t.documentId, deal_id: t.dealId, deleted: true as const };
    });
    if (rescored) this.events.notify();
    return result;
  }

  /** The trail entry of a row added ([null, row]) or deleted ([row, null]), the row as JSON. */
  private trailRow(
    tx: UnitOfWork,
    auth: AuthContext,
    t: Transaction,
    [oldValue, newValue]: [string | null, string | null],
    reason: string,
    at: Date,
  ): void {
    this.transactions.addCorrection(tx, {
      ...scopeFields(auth),
      transactionId: t.id,
      dealId: t.dealId,
      documentId: t.documentId,
      field: 'row',
      oldValue,
      newValue,
      correctionReason: reason,
      correctedBy: auth.actor,
      correctedAt: at,
    });
  }

  /** The row as the reader read it (before any correction), so a new reading can find it again. */
  private async asRead(tx: UnitOfWork, t: Transaction): Promise<Transaction> {
    if (!t.correctionCount) return t;
    const trail = await this.transactions.trailOf(tx, t.id);
    const first = (field: string) => trail.find((c) => c.field === field);
    const amount = first('amount')?.oldValue;
    return Object.assign(Object.create(Transaction.prototype) as Transaction, t, {
      date: first('date')?.oldValue ?? t.date,
      description: first('description')?.oldValue ?? t.description,
      amount: amount != null ? Number(amount) : t.amount,
    });
  }

  /** New values as strings for the audit trail; amount sign and transaction_type stay consistent. */
  private resolve(t: Transaction, dto: CorrectTransactionDto): Record<string, [string | null, string | null]> {
    const editable = [dto.date, dto.amount, dto.description, dto.transaction_type, dto.category, dto.revenue_class];
    if (editable.every((v) => v === undefined)) {
      throw ApiError.validation([
        validationEntry(
          'body',
          [],
          'Give at least one of date, amount, description, transaction_type, category, revenue_class',
          'value_error.missing',
        ),
      ]);
    }
    assertCalendarDate(dto.date);
    let amount = t.amount;
    let type = t.transactionType;
    if (dto.amount !== undefined) {
      amount = dto.amount;
      const implied = amount < 0 ? 'debit' : amount > 0 ? 'credit' : type;
      if (dto.transaction_type !== undefined && dto.transaction_type !== implied) {
        throw ApiError.validation([
          validationEntry(
            'body',
            ['transaction_type'],
            `transaction_type ${dto.transaction_type} contradicts the sign of amount ${dto.amount}`,
            'value_error.inconsistent',
          ),
        ]);
      }
      type = implied;
    } else if (dto.transaction_type !== undefined) {
      type = dto.transaction_type;
      amount = type === 'debit' ? -Math.abs(amount) : Math.abs(amount);
    }
    if (dto.revenue_class !== undefined && !(amount > 0)) {
      throw ApiError.validation([
        validationEntry(
          'body',
          ['revenue_class'],
          `revenue_class applies to a deposit (a credit); transaction ${t.id} is a debit of ${money(amount)}`,
          'value_error.inconsistent',
        ),
      ]);
    }
    const revenueClass = t.revenueClassOverride ?? t.revenueClass;
    return {
      date: [t.date, dto.date ?? t.date],
      amount: [money(t.amount), money(amount)],
      transaction_type: [t.transactionType, type],
      description: [t.description, dto.description ?? t.description],
      category: [t.category, dto.category ?? t.category],
      // the class as the deal's screening (or an earlier override) had it -> the person's
      revenue_class: [revenueClass, dto.revenue_class ?? revenueClass],
    };
  }

  /** The trail outlives its row (a document read again may have no row matching a corrected one): 404 only when neither exists. */
  async corrections(auth: AuthContext, transactionId: number): Promise<CorrectionTrailDto> {
    const uow = this.db.unitOfWork(auth);
    const rows = await this.transactions.trailOf(uow, transactionId);
    if (!rows.length && !(await this.transactions.exists(uow, transactionId))) throw ApiError.notFound('Transaction');
    const corrections = rows.map((c) => ({
      id: c.id,
      transaction_id: c.transactionId,
      field: c.field,
      old_value: c.oldValue,
      new_value: c.newValue,
      correction_reason: c.correctionReason,
      corrected_by: c.correctedBy,
      corrected_at: c.correctedAt.toISOString(),
    }));
    return { transaction_id: transactionId, corrections, total: corrections.length, total_corrections: corrections.length };
  }

  private async findTransaction(tx: UnitOfWork, documentId: number, transactionId: number, lock = false): Promise<Transaction> {
    const t = await this.transactions.findInDocument(tx, documentId, transactionId, lock);
    if (!t) throw ApiError.notFound('Transaction');
    return t;
  }
}
