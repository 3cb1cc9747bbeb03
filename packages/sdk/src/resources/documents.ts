import type { LedgerlensCore } from '../core.js';
import type {
  AnalysisRecord,
  BatchStatus,
  BulkUploadResult,
  CommonRequestOptions,
  DocumentAction,
  DocumentDetail,
  DocumentList,
  DocumentStatus,
  DocumentSummary,
  DocumentType,
  ExtractionRecord,
  ReviewQueue,
  ReviewQueueItem,
  UploadedDocument,
} from '../types.js';
import { isUploadFile, toFile, UploadFile, UploadSource } from '../upload.js';

export interface UploadOptions extends CommonRequestOptions {
  /** Type hint; detected from the content when omitted. */
  documentType?: DocumentType;
  /** Label shown with the document (e.g. `March 2026 operating account`). */
  label?: string;
  /** ISO 4217 code of the statement when it does not print one (a currency read from it wins). */
  currency?: string;
  /** File name (default: the path's base name, a File's name, or `document.pdf`). */
  filename?: string;
  /** Largest stream the SDK reads into memory for an upload (streams are buffered so retries can resend them). */
  maxStreamBytes?: number;
}

export interface BulkUploadOptions extends CommonRequestOptions {
  documentType?: DocumentType;
  maxStreamBytes?: number;
}

/** A binary download: the body as a web ReadableStream plus its media type and file name. */
export interface Download {
  stream: ReadableStream<Uint8Array>;
  contentType: string | null;
  /** From Content-Disposition, when the server sent one. */
  filename: string | null;
  /** Content-Length, when known. */
  size: number | null;
}

const id = (documentId: number) => ({ path: { document_id: documentId } });

/** `client.documents`: upload statements and other documents, follow their processing, read results. */
export class DocumentsResource {
  constructor(private readonly client: LedgerlensCore) {}

  /**
   * Uploads one document to a deal. `file` is a Buffer/Uint8Array, Blob/File, file path (Node.js,
   * streamed from disk) or stream. Sends an Idempotency-Key (generated unless given), so a retry
   * after a lost answer never stores the file twice.
   */
  async upload(dealId: number, file: UploadSource | UploadFile, options: UploadOptions = {}): Promise<UploadedDocument> {
    const { documentType, label, currency, filename, maxStreamBytes, ...rest } = options;
    const form = new FormData();
    const spec = isUploadFile(file) ? { ...file, filename: filename ?? file.filename } : { file, filename };
    form.append('file', await toFile(spec, maxStreamBytes));
    if (documentType) form.append('document_type', documentType);
    if (label !== undefined) form.append('label', label);
    if (currency !== undefined) form.append('currency', currency);
    const { data } = await this.client.request<UploadedDocument>('POST', '/v1/deals/{deal_id}/documents', {
      ...rest,
      params: { path: { deal_id: dealId } },
      body: form,
    });
    return data;
  }

  /** Uploads several documents to a deal in one request (`files` field, at most 25). */
  async uploadMany(dealId: number, files: (UploadSource | UploadFile)[], options: BulkUploadOptions = {}): Promise<BulkUploadResult> {
    const { documentType, maxStreamBytes, ...rest } = options;
    const form = new FormData();
    for (const f of files) form.append('files', await toFile(f, maxStreamBytes));
    if (documentType) form.append('document_type', documentType);
    const { data } = await this.client.request<BulkUploadResult>('POST', '/v1/deals/{deal_id}/documents/bulk', {
      ...rest,
      params: { path: { deal_id: dealId } },
      body: form,
    });
    return data;
  }

  /**
   * The same as `uploadMany`, on the path that names the deal in the form (`POST /v1/bulk-upload`).
   * @deprecated Use `uploadMany`; `bulkUpload` is removed in the next minor version.
   */
  async bulkUpload(dealId: number, files: (UploadSource | UploadFile)[], options: BulkUploadOptions = {}): Promise<BulkUploadResult> {
    const { documentType, maxStreamBytes, ...rest } = options;
    const form = new FormData();
    form.append('deal_id', String(dealId));
    for (const f of files) form.append('files', await toFile(f, maxStreamBytes));
    if (documentType) form.append('document_type', documentType);
    const { data } = await this.client.request<BulkUploadResult>('POST', '/v1/bulk-upload', { ...rest, body: form });
    return data;
  }

  /** One page of a deal's documents. */
  async list(dealId: number, query: { page?: number; per_page?: number } = {}, options?: CommonRequestOptions): Promise<DocumentList> {
    return (await this.client.GET('/v1/deals/{deal_id}/documents', { ...options, params: { path: { deal_id: dealId }, query } })).data;
  }

  /** Every document of a deal, page after page. */
  listAll(dealId: number, options?: CommonRequestOptions): AsyncGenerator<DocumentSummary, void, undefined> {
    return this.client.paginate('/v1/deals/{deal_id}/documents', { path: { deal_id: dealId }, query: { per_page: 100 } }, options);
  }

  async get(documentId: number, options?: CommonRequestOptions): Promise<DocumentDetail> {
    return (await this.client.GET('/v1/documents/{document_id}', { ...options, params: id(documentId) })).data;
  }

  /** Processing status and the current step. */
  async status(documentId: number, options?: CommonRequestOptions): Promise<DocumentStatus> {
    return (await this.client.GET('/v1/documents/{document_id}/status', { ...options, params: id(documentId) })).data;
  }

  /** Status of many documents at once. */
  async batchStatus(documentIds: number[], options?: CommonRequestOptions): Promise<BatchStatus> {
    return (await this.client.POST('/v1/documents/batch-status', { ...options, body: { document_ids: documentIds } })).data;
  }

  async analysis(documentId: number, options?: CommonRequestOptions): Promise<AnalysisRecord> {
    return (await this.client.GET('/v1/documents/{document_id}/analysis', { ...options, params: id(documentId) })).data;
  }

  async extraction(documentId: number, options?: CommonRequestOptions): Promise<ExtractionRecord> {
    return (await this.client.GET('/v1/documents/{document_id}/extraction', { ...options, params: id(documentId) })).data;
  }

  /** Marks a read document reviewed (its `needs_review` flag cleared, with who and when); the deal is rescored. */
  async markReviewed(documentId: number, body: { note?: string } = {}, options?: CommonRequestOptions): Promise<DocumentDetail> {
    return (await this.client.POST('/v1/documents/{document_id}/review', { ...options, params: id(documentId), body })).data;
  }

  /** One page of the organization's documents needing review: the caller's assigned deals first, then oldest first. */
  async reviewQueue(query: { page?: number; per_page?: number } = {}, options?: CommonRequestOptions): Promise<ReviewQueue> {
    return (await this.client.GET('/v1/review-queue', { ...options, params: { query } })).data;
  }

  /** Every document of the review queue, page after page. */
  reviewQueueAll(options?: CommonRequestOptions): AsyncGenerator<ReviewQueueItem, void, undefined> {
    return this.client.paginate('/v1/review-queue', { per_page: 100 }, options);
  }

  async cancel(documentId: number, options?: CommonRequestOptions): Promise<DocumentAction> {
    return (await this.client.POST('/v1/documents/{document_id}/cancel', { ...options, params: id(documentId) })).data;
  }

  async reprocess(documentId: number, options?: CommonRequestOptions): Promise<DocumentAction> {
    return (await this.client.POST('/v1/documents/{document_id}/reprocess', { ...options, params: id(documentId) })).data;
  }

  /** Sets the document's type and processes it again. */
  async reclassify(documentId: number, documentType: DocumentType, options?: CommonRequestOptions): Promise<DocumentAction> {
    return (
      await this.client.POST('/v1/documents/{document_id}/reclassify', {
        ...options,
        params: id(documentId),
        body: { document_type: documentType as 'bank_statement' },
      })
    ).data;
  }

  /** The file as uploaded, as a stream. */
  download(documentId: number, options?: CommonRequestOptions): Promise<Download> {
    return this.binary('/v1/documents/{document_id}/download', documentId, options);
  }

  /** The document as PDF (images are converted), as a stream. */
  pdf(documentId: number, options?: CommonRequestOptions): Promise<Download> {
    return this.binary('/v1/documents/{document_id}/pdf', documentId, options);
  }

  private async binary(path: string, documentId: number, options?: CommonRequestOptions): Promise<Download> {
    const res = await this.client.request<ReadableStream<Uint8Array>>('GET', path, {
      ...options,
      params: id(documentId),
      headers: { Accept: '*/*', ...options?.headers },
      parseAs: 'stream',
    });
    return toDownload(res.data, res.headers);
  }
}

export function toDownload(stream: ReadableStream<Uint8Array>, headers: Headers): Download {
  const disposition = headers.get('content-disposition') ?? '';
  const star = /filename\*=(?:UTF-8'')?([^;]+)/i.exec(disposition);
  const plain = /filename="?([^";]+)"?/i.exec(disposition);
  const length = headers.get('content-length');
  return {
    stream,
    contentType: headers.get('content-type'),
    filename: star ? decodeURIComponent(star[1].trim()) : plain ? plain[1].trim() : null,
    size: length !== null && /^\d+$/.test(length) ? Number(length) : null,
  };
}
