import { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { emptyBucketCounts, SCREENING_BUCKETS } from '@ledgerlens/underwriting';
import type { AuthContext } from '../../platform/auth/auth-context';
import { Clock } from '../../platform/clock/clock';
import { APP_CONFIG, AppConfig } from '../../platform/config/config';
import { Database } from '../../platform/database/database.service';
import { ApiError } from '../../platform/errors/api-error';
import { EventDispatcher } from '../../platform/events/event-dispatcher';
import { recordEvent } from '../../platform/events/events';
import { DealsService } from '../pipeline/services/deals.service';
import { mapDealDetail } from '../pipeline/mappers/deals.mapper';
import { mapAnalysis, mapExtraction } from '../pipeline/mappers/documents.mapper';
import { RecommendationsService } from '../pipeline/services/recommendations.service';
import { DocumentsService } from '../pipeline/services/documents.service';
import { FlaggedTransaction, TransactionsService } from '../pipeline/services/transactions.service';
import { DocumentExportDto, FlaggedTransactionDto } from './dto/export.dto';
import type * as ReportPdf from './pdf/report-pdf';

/**
 * The PDF renderer and its font stack (pdf-lib, fontkit: about a fifth of the server's load time)
 * are loaded with the first report, not at every start.
 */
const renderDealReportPdf: typeof ReportPdf.renderDealReportPdf = (input) =>
  (require('./pdf/report-pdf') as typeof ReportPdf).renderDealReportPdf(input);
import { CsvFormat, FORM_A, FORM_B } from './transaction-csv';
import { underwritingCsv, type UnderwritingTable } from './underwriting-csv';

/** Rows per keyset page: memory stays flat whatever the number of transactions. */
const BATCH = 2000;
/** Characters per written chunk. */
const CHUNK_CHARS = 32 * 1024;
/** Flagged transactions read for the PDF, which lists the largest of each bucket (the CSV has them all). */
const PDF_FLAGGED_LIMIT = 5000;

export interface ExportFile {
  filename: string;
  contentType: string;
  body: Readable | Buffer;
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60) || 'deal';

@Injectable()
export class ExportsService {
  constructor(
    private readonly deals: DealsService,
    private readonly documents: DocumentsService,
    private readonly transactions: TransactionsService,
    private readonly db: Database,
    private readonly events: EventDispatcher,
    private readonly clock: Clock,
    private readonly recommendations: RecommendationsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Form A deal CSV: every transaction of the deal's completed documents, by date then upload order. */
  async dealCsv(auth: AuthContext, dealId: number): Promise<ExportFile> {
    const deal = await this.deals.findOr404(this.db.unitOfWork(auth), dealId);
    const docs = await this.documents.completedForDeal(auth, dealId);
    return this.csvFile(auth, deal.id, null, docs, FORM_A, `deal-${deal.id}-${slug(deal.businessName)}-transactions.csv`);
  }

  /** Form B transactions CSV of a deal. */
  async dealTransactionsCsv(auth: AuthContext, dealId: number): Promise<ExportFile> {
    const deal = await this.deals.findOr404(this.db.unitOfWork(auth), dealId);
    const docs = await this.documents.completedForDeal(auth, dealId);
    return this.csvFile(auth, deal.id, null, docs, FORM_B, `deal-${deal.id}-transactions.csv`);
  }

  /** Form A columns for one completed document. */
  async documentCsv(auth: AuthContext, documentId: number): Promise<ExportFile> {
    const doc = await this.documents.findOr404(auth, documentId);
    if (doc.status !== 'completed') throw ApiError.conflict(`Document ${doc.id} is not completed (status ${doc.status})`);
    return this.csvFile(auth, doc.dealId, doc.id, [doc], FORM_A, `document-${doc.id}-transactions.csv`);
  }

  async documentJson(auth: AuthContext, documentId: number): Promise<DocumentExportDto> {
    const doc = await this.documents.findOr404(auth, documentId);
    const [total, flagged] = await Promise.all([
      this.transactions.countForDocument(auth, doc.id),
      this.transactions.flaggedForDocument(auth, doc.id),
    ]);
    const buckets = emptyBucketCounts();
    for (const t of flagged) {
      const bucket = SCREENING_BUCKETS.find((b) => b === t.screeningBucket);
      if (bucket) buckets[bucket]++;
    }
    const isAnalysed = doc.status === 'completed' && doc.documentType === 'bank_statement';
    const exportedAt = this.clock.now().toISOString();
    await this.recordExport(auth, doc.dealId, { document_id: doc.id, format: 'json', filename: `document-${doc.id}.json` });
    return {
      document: { id: doc.id, deal_id: doc.dealId, filename: doc.filename, document_type: doc.documentType, status: doc.status },
      extraction: doc.extractedAt ? mapExtraction(doc) : null,
      analysis: isAnalysed ? mapAnalysis(doc) : null,
      screening: {
        total_flags: flagged.length,
        buckets,
        flagged_transactions: flagged.map(mapFlagged),
      },
      transactions: { total, included: false, download_url: `${this.config.publicUrl}/v1/documents/${doc.id}/export/csv` },
      exported_at: exportedAt,
    };
  }

  /** The PDF underwriting report of a ready deal (409 otherwise). */
  async dealPdf(auth: AuthContext, dealId: number): Promise<ExportFile> {
    const deal = await this.deals.findOr404(this.db.unitOfWork(auth), dealId);
    if (deal.status !== 'ready') {
      throw ApiError.conflict(
        `Deal ${deal.id} is not ready (status: ${deal.status}): the PDF report exists once every document is processed`,
      );
    }
    const recommendation = await this.recommendations.get(auth, deal.id);
    const { rows: flagged, total: flaggedTotal } = await this.transactions.flaggedForDeal(auth, deal.id, PDF_FLAGGED_LIMIT);
    const bytes = await renderDealReportPdf({
      deal: mapDealDetail(deal),
      recommendation,
      flagged: flagged.map(mapFlagged),
      flaggedTotal,
      generatedAt: this.clock.now(),
    });
    const filename = `underwriting-report-${deal.id}-${slug(deal.businessName)}.pdf`;
    await this.recordExport(auth, deal.id, { format: 'pdf', filename, bytes: bytes.length });
    return { filename, contentType: 'application/pdf', body: Buffer.from(bytes) };
  }

  /** One of the deal report's underwriting tables as CSV (positions, true revenue, transfers, affordability). */
  async dealUnderwritingCsv(auth: AuthContext, dealId: number, table: UnderwritingTable): Promise<ExportFile> {
    const deal = await this.deals.findOr404(this.db.unitOfWork(auth), dealId);
    if (deal.status !== 'ready') {
      throw ApiError.conflict(
        `Deal ${deal.id} is not ready (status: ${deal.status}): its underwriting tables exist once every document is processed`,
      );
    }
    const body = Buffer.from(underwritingCsv(mapDealDetail(deal), table), 'utf8');
    const filename = `deal-${deal.id}-${slug(deal.businessName)}-${table}.csv`;
    await this.recordExport(auth, deal.id, { format: 'csv', filename, bytes: body.length });
    return { filename, contentType: 'text/csv; charset=utf-8', body };
  }

  private csvFile(
    auth: AuthContext,
    dealId: number,
    documentId: number | null,
    docs: { id: number; filename: string }[],
    format: CsvFormat,
    filename: string,
  ): ExportFile {
    const names = new Map(docs.map((d) => [d.id, d.filename]));
    const pages = this.transactions.exportPages(auth, dealId, [...names.keys()], BATCH);
    const done = (rows: number) =>
      this.recordExport(auth, dealId, { ...(documentId ? { document_id: documentId } : {}), format: 'csv', filename, rows });
    async function* lines(): AsyncGenerator<string> {
      yield format.header;
      let rows = 0;
      for await (const batch of pages) {
        let chunk = '';
        for (const row of batch) {
          chunk += format.line(row, names.get(row.documentId) ?? '');
          // small chunks stay in V8's young generation (cheap to collect); large strings would pile up in old space
          if (chunk.length >= CHUNK_CHARS) {
            yield chunk;
            chunk = '';
          }
        }
        rows += batch.length;
        if (chunk) yield chunk;
      }
      await done(rows);
    }
    return { filename, contentType: 'text/csv; charset=utf-8', body: Readable.from(lines(), { objectMode: false }) };
  }

  /** `export.ready` (spec: Events) through the outbox: webhooks and the stream pick it up. */
  private async recordExport(auth: AuthContext, dealId: number, data: Record<string, unknown>): Promise<void> {
    await this.db.forScope(auth).transactional(async (tx) => {
      recordEvent(tx, auth, 'export.ready', {
        dealId,
        actor: auth.actor,
        data: { deal_id: dealId, ...data, exported_at: this.clock.now().toISOString() },
      });
    });
    this.events.notify();
  }
}

function mapFlagged(t: FlaggedTransaction): FlaggedTransactionDto {
  return {
    id: t.id,
    date: t.date,
    description: t.description,
    amount: Number(t.amount),
    screening_bucket: t.screeningBucket ?? '',
    flag_reason: t.flagReason,
  };
}
