import type { LedgerlensCore } from '../core.js';
import type { CommonRequestOptions, components } from '../types.js';
import { type Download, toDownload } from './documents.js';

type S = components['schemas'];

/** `client.exports`: the underwriting report as PDF, CSV exports (streamed) and the document JSON export. */
export class ExportsResource {
  constructor(private readonly client: LedgerlensCore) {}

  /** The underwriting report PDF (409 until the deal is ready). */
  dealPdf(dealId: number, options?: CommonRequestOptions): Promise<Download> {
    return this.stream('/v1/deals/{deal_id}/export/pdf', { deal_id: dealId }, options);
  }

  /**
   * The same report as `dealPdf`, on the Form B path.
   * @deprecated Use `dealPdf`; `dealReport` is removed in the next minor version.
   */
  dealReport(dealId: number, options?: CommonRequestOptions): Promise<Download> {
    return this.stream('/v1/deals/{deal_id}/report', { deal_id: dealId }, options);
  }

  /** The deal export CSV (Form A columns), streamed. */
  dealCsv(dealId: number, options?: CommonRequestOptions): Promise<Download> {
    return this.stream('/v1/deals/{deal_id}/export/csv', { deal_id: dealId }, options);
  }

  /** Every transaction of the deal as CSV (Form B), streamed. */
  dealTransactionsCsv(dealId: number, options?: CommonRequestOptions): Promise<Download> {
    return this.stream('/v1/deals/{deal_id}/transactions/csv', { deal_id: dealId }, options);
  }

  /** One document's transactions as CSV, streamed. */
  documentCsv(documentId: number, options?: CommonRequestOptions): Promise<Download> {
    return this.stream('/v1/documents/{document_id}/export/csv', { document_id: documentId }, options);
  }

  /** One document as JSON: header fields, transactions and analysis. */
  /** One of the deal report's underwriting tables as CSV: positions, revenue (true revenue per month), transfers or affordability. */
  dealUnderwritingCsv(
    dealId: number,
    table: 'positions' | 'revenue' | 'transfers' | 'affordability',
    options?: CommonRequestOptions,
  ): Promise<Download> {
    return this.stream('/v1/deals/{deal_id}/export/underwriting/csv', { deal_id: dealId }, options, { table });
  }

  async document(documentId: number, options?: CommonRequestOptions): Promise<S['DocumentExportDto']> {
    return (await this.client.GET('/v1/documents/{document_id}/export', { ...options, params: { path: { document_id: documentId } } }))
      .data;
  }

  private async stream(
    path: string,
    pathParams: Record<string, number>,
    options?: CommonRequestOptions,
    query?: Record<string, string>,
  ): Promise<Download> {
    const res = await this.client.request<ReadableStream<Uint8Array>>('GET', path, {
      ...options,
      params: { path: pathParams, ...(query ? { query } : {}) },
      headers: { Accept: '*/*', ...options?.headers },
      parseAs: 'stream',
    });
    return toDownload(res.data, res.headers);
  }
}
