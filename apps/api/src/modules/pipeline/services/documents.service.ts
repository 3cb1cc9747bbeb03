import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { AuthContext } from '../../../platform/auth/auth-context';
import { Database } from '../../../platform/database/database.service';
import { Scope } from '../../../platform/database/tenant';
import { UnitOfWork } from '../../../platform/database/unit-of-work';
import { ApiError, ErrorCode, validationEntry } from '../../../platform/errors/api-error';
import { recordEvent } from '../../../platform/events/events';
import { EventDispatcher } from '../../../platform/events/event-dispatcher';
import { Page, paginate, pageWindow } from '../../../platform/pagination/pagination';
import { FileStore } from '../../../platform/storage/file-store';
import { DealLifecycleService } from './deal-lifecycle.service';
import { DealRepository } from '../repositories/deal.repository';
import { DocumentRepository } from '../repositories/document.repository';
import { DocumentProducer } from './processing.producer';
import { Document, DOCUMENT_TYPE_ALIASES, DOCUMENT_TYPES, DocumentType, isInFlight } from '../entities/document.entities';
import {
  AnalysisRecordDto,
  BatchStatusDto,
  BulkUploadResultDto,
  DocumentActionDto,
  DocumentDetailDto,
  DocumentStatusDto,
  DocumentSummaryDto,
  ExtractionRecordDto,
  ReprocessFailedDto,
  ReviewDocumentDto,
  ReviewQueueItemDto,
  UploadedDocumentDto,
} from '../dto/document.dto';
import { CreateDocumentsCommand } from './create-documents.command';
import { ReceivedUpload } from '../controllers/upload-request';
import { mapAnalysis, mapDocumentDetail, mapDocumentStatus, mapDocumentSummary, mapExtraction } from '../mappers/documents.mapper';

export function parseDocumentType(value: unknown, source: 'body' | 'query'): DocumentType | null {
  if (value === undefined || value === null || value === '') return null;
  const raw = String(value);
  const type = DOCUMENT_TYPE_ALIASES[raw] ?? raw;
  if (!(DOCUMENT_TYPES as readonly string[]).includes(type)) {
    const message = `document_type must be one of: ${DOCUMENT_TYPES.join(', ')} (pnl_statement is accepted for profit_and_loss)`;
    throw ApiError.validation([validationEntry(source, ['document_type'], message, 'value_error.enum')]);
  }
  return type as DocumentType;
}

/** An optional ISO 4217 code declared with the upload (`currency` form field). */
export function parseCurrency(value: string | undefined): string | null {
  if (value === undefined || value.trim() === '') return null;
  const code = value.trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(code))
    throw ApiError.validation([
      validationEntry('body', ['currency'], 'currency must be a 3-letter ISO 4217 code such as USD', 'value_error.currency'),
    ]);
  return code;
}

const recordRequeued = (tx: UnitOfWork, auth: AuthContext, d: Document) =>
  recordEvent(tx, auth, 'document.requeued', {
    dealId: d.dealId,
    actor: auth.actor,
    data: { document_id: d.id, deal_id: d.dealId, attempt: d.attempt },
  });

@Injectable()
export class DocumentsService {
  constructor(
    private readonly db: Database,
    private readonly deals: DealRepository,
    private readonly documents: DocumentRepository,
    private readonly files: FileStore,
    private readonly producer: DocumentProducer,
    private readonly lifecycle: DealLifecycleService,
    private readonly create: CreateDocumentsCommand,
    private readonly events: EventDispatcher,
  ) {}

  /** Those of these documents the unit of work's scope can see (other modules, in their own unit of work). */
  findMany(uow: UnitOfWork, ids: number[]): Promise<Document[]> {
    return this.documents.findMany(uow, ids);
  }

  /** How many documents of the deal, other than these, are still in flight (other modules, in their own unit of work). */
  countInFlightForDeal(uow: UnitOfWork, dealId: number, except: number[]): Promise<number> {
    return this.documents.countInFlightForDeal(uow, dealId, except);
  }

  // ---- uploads -----------------------------------------------------------------------------

  /** 404 before the body is read. */
  async assertDeal(auth: AuthContext, dealId: number): Promise<void> {
    await this.deals.getOr404(this.db.unitOfWork(auth), dealId);
  }

  async uploadOne(auth: AuthContext, dealId: number, received: ReceivedUpload, queryType: unknown): Promise<UploadedDocumentDto> {
    try {
      const hint = parseDocumentType(
        received.fields.document_type ?? queryType,
        received.fields.document_type !== undefined ? 'body' : 'query',
      );
      const file = received.files[0];
      if (!file)
        throw ApiError.validation([
          validationEntry('body', ['file'], 'A file is required (multipart field "file")', 'value_error.missing'),
        ]);
      if (file.error)
        throw new ApiError(
          file.error.code === 'PAYLOAD_TOO_LARGE'
            ? ErrorCode.PAYLOAD_TOO_LARGE
            : file.error.code === 'UNSUPPORTED_MEDIA_TYPE'
              ? ErrorCode.UNSUPPORTED_MEDIA_TYPE
              : ErrorCode.VALIDATION_ERROR,
          file.error.detail,
          [],
          file.error.code === 'EMPTY_FILE' ? 422 : undefined,
        );
      const [doc] = await this.create.execute(auth, dealId, [
        { ...file, typeHint: hint, currency: parseCurrency(received.fields.currency), label: received.fields.label?.slice(0, 255) || null },
      ]);
      return { ...mapDocumentSummary(doc), message: 'Document uploaded; processing has started' };
    } catch (err) {
      await this.create.discard(received.files);
      throw err;
    }
  }

  async uploadMany(
    auth: AuthContext,
    dealIdFromPath: number | null,
    received: ReceivedUpload,
    queryType: unknown,
  ): Promise<BulkUploadResultDto> {
    try {
      let dealId = dealIdFromPath;
      if (dealId === null) {
        const raw = received.fields.deal_id;
        if (!raw || !/^\d+$/.test(raw))
          throw ApiError.validation([
            validationEntry('body', ['deal_id'], 'deal_id is required (integer form field)', 'value_error.missing'),
          ]);
        dealId = Number(raw);
        await this.deals.getOr404(this.db.unitOfWork(auth), dealId);
      }
      const hint = parseDocumentType(
        received.fields.document_type ?? queryType,
        received.fields.document_type !== undefined ? 'body' : 'query',
      );
      if (received.files.length === 0)
        throw ApiError.validation([
          validationEntry('body', ['files'], 'At least one file is required (multipart field "files")', 'value_error.missing'),
        ]);
      const docs = await this.create.execute(
        auth,
        dealId,
        received.files.map((f) => ({ ...f, typeHint: hint })),
      );
      const errors = received.files
        .filter((f) => f.error)
        .map((f) => ({ filename: f.filename, code: f.error!.code, detail: f.error!.detail }));
      return {
        deal_id: dealId,
        uploaded: docs.map((d) => ({ id: d.id, filename: d.filename, status: d.status, file_size: d.fileSize, mime_type: d.mimeType })),
        errors,
        total_uploaded: docs.length,
        total_errors: errors.length,
      };
    } catch (err) {
      await this.create.discard(received.files);
      throw err;
    }
  }

  // ---- reads -------------------------------------------------------------------------------

  async list(auth: AuthContext, dealId: number, query: { page?: number; per_page?: number }): Promise<Page<DocumentSummaryDto>> {
    const uow = this.db.unitOfWork(auth);
    await this.deals.getOr404(uow, dealId);
    return paginate(
      pageWindow(query),
      () => this.documents.countForDeal(uow, dealId),
      async (offset, limit) => (await this.documents.findPageForDeal(uow, dealId, offset, limit)).map(mapDocumentSummary),
    );
  }

  /** The document of the caller's scope, or 404 DOCUMENT_NOT_FOUND (other modules: exports). */
  findOr404(scope: Scope, id: number): Promise<Document> {
    return this.find(this.db.unitOfWork(scope), id);
  }

  /** The deal's completed documents (id and filename), oldest first. */
  completedForDeal(scope: Scope, dealId: number): Promise<Pick<Document, 'id' | 'dealId' | 'filename'>[]> {
    return this.documents.findCompletedForDeal(this.db.unitOfWork(scope), dealId);
  }

  async get(auth: AuthContext, id: number): Promise<DocumentDetailDto> {
    return mapDocumentDetail(await this.find(this.db.unitOfWork(auth), id));
  }

  async status(auth: AuthContext, id: number): Promise<DocumentStatusDto> {
    return mapDocumentStatus(await this.find(this.db.unitOfWork(auth), id));
  }

  /** Ids the caller cannot see are reported as not_found, never leaked. */
  async batchStatus(auth: AuthContext, ids: number[]): Promise<BatchStatusDto> {
    const found = new Map((await this.documents.findMany(this.db.unitOfWork(auth), ids)).map((d) => [d.id, d]));
    const items = ids.map((id) => {
      const doc = found.get(id);
      return doc
        ? { id, status: doc.status, document_type: doc.documentType, error: doc.error, updated_at: doc.updatedAt.toISOString() }
        : { id, status: 'not_found', document_type: null, error: 'Document not found', updated_at: null };
    });
    return { documents: items, statuses: items };
  }

  async extraction(auth: AuthContext, id: number): Promise<ExtractionRecordDto> {
    const doc = await this.find(this.db.unitOfWork(auth), id);
    if (!doc.extractedAt) throw ApiError.conflict(`Document ${id} has not been extracted yet (status ${doc.status})`);
    return mapExtraction(doc);
  }

  async analysis(auth: AuthContext, id: number): Promise<AnalysisRecordDto> {
    const doc = await this.find(this.db.unitOfWork(auth), id);
    if (doc.status !== 'completed')
      throw ApiError.conflict(`The analysis is available once the document is completed (status ${doc.status})`);
    if (doc.documentType !== 'bank_statement')
      throw ApiError.conflict(`Document ${id} is a ${doc.documentType}: only bank statements have an analysis`);
    return mapAnalysis(doc);
  }

  async file(auth: AuthContext, id: number): Promise<{ doc: Document; stream: Readable }> {
    const doc = await this.find(this.db.unitOfWork(auth), id);
    return { doc, stream: this.files.stream(doc.storageKey) };
  }

  // ---- review ------------------------------------------------------------------------------

  /**
   * A person checked the reading (and fixed what was wrong): the document's review flag is cleared,
   * with who and when, on the deal's timeline, and the deal is rescored in the same transaction (a
   * statement that still does not reconcile keeps the recommendation at review).
   */
  async markReviewed(auth: AuthContext, id: number, dto: ReviewDocumentDto): Promise<DocumentDetailDto> {
    let rescored = false;
    const doc = await this.db.unitOfWork(auth).transaction(async (tx) => {
      const deal = await this.deals.getOr404(tx, (await this.find(tx, id)).dealId, { lock: true });
      const d = await this.documents.lockById(tx, id);
      if (!d) throw ApiError.notFound('Document', ErrorCode.DOCUMENT_NOT_FOUND);
      if (d.status !== 'completed') throw ApiError.conflict(`A document is reviewed once it is read (status ${d.status})`);
      const now = new Date();
      Object.assign(d, { needsReview: false, reviewedAt: now, reviewedBy: auth.actor, updatedAt: now });
      recordEvent(tx, auth, 'document.reviewed', {
        dealId: d.dealId,
        actor: auth.actor,
        data: { document_id: d.id, deal_id: d.dealId, filename: d.filename, note: dto.note ?? null, review_reasons: d.reviewReasons ?? [] },
      });
      rescored = await this.lifecycle.rescoreLocked(tx, auth, deal, auth.actor);
      return d;
    });
    if (rescored) this.events.notify();
    return mapDocumentDetail(doc);
  }

  /** The organization's documents a person should look at: those on `firstDealIds` first, then oldest first. */
  async reviewQueue(
    auth: AuthContext,
    firstDealIds: number[],
    query: { page?: number; per_page?: number },
  ): Promise<Page<ReviewQueueItemDto>> {
    const uow = this.db.unitOfWork(auth);
    const mine = new Set(firstDealIds);
    return paginate(
      pageWindow(query),
      () => this.documents.countNeedingReview(uow),
      async (offset, limit) =>
        (await this.documents.findNeedingReview(uow, firstDealIds, offset, limit)).map(({ doc, businessName }) => ({
          document_id: doc.id,
          deal_id: doc.dealId,
          business_name: businessName,
          filename: doc.filename,
          bank_name: doc.bankName,
          statement_start_date: doc.statementStartDate,
          statement_end_date: doc.statementEndDate,
          review_reasons: doc.reviewReasons ?? [],
          transaction_count: doc.transactionCount ?? 0,
          processing_completed_at: doc.processingCompletedAt?.toISOString() ?? null,
          assigned_to_me: mine.has(doc.dealId),
        })),
    );
  }

  // ---- state changes -----------------------------------------------------------------------

  async cancel(auth: AuthContext, id: number): Promise<DocumentActionDto> {
    const doc = await this.transition(auth, id, (d) => {
      if (!isInFlight(d.status)) throw ApiError.conflict(`Only a document being processed can be cancelled (status ${d.status})`);
      d.status = 'cancelled';
      d.error = 'Cancelled by request';
      d.processingCompletedAt = new Date();
    });
    return { status: 'ok', success: true, message: 'Processing cancelled', document_id: doc.id, document_status: doc.status };
  }

  async reprocess(auth: AuthContext, id: number): Promise<DocumentActionDto> {
    const doc = await this.transition(auth, id, (d) => {
      if (d.status !== 'failed' && d.status !== 'cancelled')
        throw ApiError.conflict(
          d.status === 'completed'
            ? `Only failed or cancelled documents can be reprocessed (status completed): POST /v1/deals/${d.dealId}/rescore recomputes the deal from its stored, corrected transactions; POST /v1/documents/${d.id}/reclassify reads the file again`
            : `Only failed or cancelled documents can be reprocessed (status ${d.status})`,
        );
      this.restart(d);
    });
    return { status: 'ok', success: true, message: 'Document queued for reprocessing', document_id: doc.id, document_status: doc.status };
  }

  async reclassify(auth: AuthContext, id: number, type: DocumentType | null): Promise<DocumentActionDto> {
    if (!type)
      throw ApiError.validation([
        validationEntry('query', ['document_type'], 'document_type is required (query or JSON body)', 'value_error.missing'),
      ]);
    const doc = await this.transition(auth, id, (d) => {
      if (isInFlight(d.status))
        throw ApiError.conflict(`A document cannot be reclassified while it is being processed (status ${d.status})`);
      d.documentTypeHint = type;
      d.documentType = type;
      this.restart(d);
    });
    return {
      status: 'ok',
      success: true,
      message: `Document reclassified as ${type} and queued for reprocessing`,
      document_id: doc.id,
      document_status: doc.status,
      new_document_type: type,
      document_type: type,
    };
  }

  async reprocessFailed(auth: AuthContext, dealId: number): Promise<ReprocessFailedDto> {
    const queued = await this.db.unitOfWork(auth).transaction(async (tx) => {
      const deal = await this.deals.getOr404(tx, dealId, { lock: true });
      const docs = await this.documents.findRetryableForDeal(tx, dealId);
      docs.forEach((d) => this.restart(d));
      if (docs.length) {
        this.lifecycle.documentsQueued(tx, auth, deal, 0);
        for (const d of docs) recordRequeued(tx, auth, d);
      }
      return docs;
    });
    this.events.notify();
    for (const doc of queued) await this.producer.enqueue(doc);
    return {
      status: 'ok',
      success: true,
      message: queued.length ? `${queued.length} document(s) queued for reprocessing` : 'No failed or cancelled documents to reprocess',
      deal_id: dealId,
      queued_document_ids: queued.map((d) => d.id),
    };
  }

  private restart(doc: Document): void {
    doc.attempt += 1;
    doc.status = 'uploaded';
    doc.error = null;
    doc.steps = [];
    doc.processingStartedAt = null;
    doc.processingCompletedAt = null;
    doc.updatedAt = new Date();
  }

  /**
   * Applies a state change to a locked row and records it; a restarted document is queued. The
   * deal follows through its lifecycle (a processing deal at once, anything else from the event),
   * never by rebuilding its report in this request.
   */
  private async transition(auth: AuthContext, id: number, change: (doc: Document) => void): Promise<Document> {
    const doc = await this.db.unitOfWork(auth).transaction(async (tx) => {
      const d = await this.documents.lockById(tx, id);
      if (!d) throw ApiError.notFound('Document', ErrorCode.DOCUMENT_NOT_FOUND);
      change(d);
      d.updatedAt = new Date();
      if (d.status === 'uploaded') {
        this.lifecycle.documentsQueued(tx, auth, await this.deals.getOr404(tx, d.dealId, { lock: true }), 0);
        recordRequeued(tx, auth, d);
      } else {
        recordEvent(tx, auth, 'document.cancelled', {
          dealId: d.dealId,
          actor: auth.actor,
          data: { document_id: d.id, deal_id: d.dealId },
        });
      }
      return d;
    });
    this.events.notify();
    if (doc.status === 'uploaded') await this.producer.enqueue(doc);
    return doc;
  }

  private async find(uow: UnitOfWork, id: number): Promise<Document> {
    const doc = await this.documents.findById(uow, id);
    if (!doc) throw ApiError.notFound('Document', ErrorCode.DOCUMENT_NOT_FOUND);
    return doc;
  }
}
