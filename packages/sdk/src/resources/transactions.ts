import type { LedgerlensCore } from '../core.js';
import type {
  AddTransaction,
  CommonRequestOptions,
  CorrectionTrail,
  CorrectTransaction,
  DeletedTransaction,
  Transaction,
  TransactionList,
  TransactionQuery,
} from '../types.js';

/** `client.transactions`: the transactions read from statements, their screening flags and corrections. */
export class TransactionsResource {
  constructor(private readonly client: LedgerlensCore) {}

  /** One page of a deal's transactions (`flagged: true` for the screening's flagged ones). */
  async listForDeal(dealId: number, query: TransactionQuery = {}, options?: CommonRequestOptions): Promise<TransactionList> {
    return (await this.client.GET('/v1/deals/{deal_id}/transactions', { ...options, params: { path: { deal_id: dealId }, query } })).data;
  }

  /** Every transaction of a deal matching `query`, page after page. */
  listAllForDeal(
    dealId: number,
    query: Omit<TransactionQuery, 'page'> = {},
    options?: CommonRequestOptions,
  ): AsyncGenerator<Transaction, void, undefined> {
    return this.client.paginate(
      '/v1/deals/{deal_id}/transactions',
      { path: { deal_id: dealId }, query: { per_page: 100, ...query } },
      options,
    );
  }

  async listForDocument(documentId: number, query: TransactionQuery = {}, options?: CommonRequestOptions): Promise<TransactionList> {
    return (
      await this.client.GET('/v1/documents/{document_id}/transactions', {
        ...options,
        params: { path: { document_id: documentId }, query },
      })
    ).data;
  }

  listAllForDocument(
    documentId: number,
    query: Omit<TransactionQuery, 'page'> = {},
    options?: CommonRequestOptions,
  ): AsyncGenerator<Transaction, void, undefined> {
    return this.client.paginate(
      '/v1/documents/{document_id}/transactions',
      { path: { document_id: documentId }, query: { per_page: 100, ...query } },
      options,
    );
  }

  /**
   * Corrects a transaction read from a statement (category, amount, date, description), or overrides a deposit's revenue class
   * (`revenue_class`: the deal's figures and recommendation are computed again with it); kept in its correction trail.
   */
  async correct(
    documentId: number,
    transactionId: number,
    correction: CorrectTransaction,
    options?: CommonRequestOptions,
  ): Promise<Transaction> {
    return (
      await this.client.PATCH('/v1/documents/{document_id}/transactions/{transaction_id}', {
        ...options,
        params: { path: { document_id: documentId, transaction_id: transactionId } },
        body: correction,
      })
    ).data;
  }

  /** Adds a row the reader missed (after `after_transaction_id`, or first), with a reason; the deal is rescored. */
  async add(documentId: number, row: AddTransaction, options?: CommonRequestOptions): Promise<Transaction> {
    return (
      await this.client.POST('/v1/documents/{document_id}/transactions', {
        ...options,
        params: { path: { document_id: documentId } },
        body: row,
      })
    ).data;
  }

  /** Deletes a row the reader invented or read twice, with a reason; its trail is kept and the deal is rescored. */
  async delete(
    documentId: number,
    transactionId: number,
    correctionReason: string,
    options?: CommonRequestOptions,
  ): Promise<DeletedTransaction> {
    return (
      await this.client.DELETE('/v1/documents/{document_id}/transactions/{transaction_id}', {
        ...options,
        params: { path: { document_id: documentId, transaction_id: transactionId } },
        body: { correction_reason: correctionReason },
      })
    ).data;
  }

  /** Every correction of a transaction, oldest first. */
  async corrections(transactionId: number, options?: CommonRequestOptions): Promise<CorrectionTrail> {
    return (
      await this.client.GET('/v1/transactions/{transaction_id}/corrections', {
        ...options,
        params: { path: { transaction_id: transactionId } },
      })
    ).data;
  }
}
