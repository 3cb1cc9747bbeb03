import { Readable } from 'node:stream';
import { EntityManager } from '@mikro-orm/postgresql';
import { Inject, Injectable } from '@nestjs/common';
import { emptyBucketCounts } from '@ledgerlens/underwriting';
import type { AuthContext } from '../../platform/auth/auth-context';
import { Clock } from '../../platform/clock/clock';
import { APP_CONFIG, AppConfig } from '../../platform/config/config';
import { Database } from '../../platform/database/database.service';
import { ApiError, ErrorCode } from '../../platform/errors/api-error';
import { EventDispatcher } from '../../platform/events/event-dispatcher';
import { recordEvent } from '../../platform/events/events';
import { UnitOfWork } from '../../platform/database/unit-of-work';
import { DealsService } from '../pipeline/services/deals.service';
import { mapDealDetail } from '../pipeline/mappers/deals.mapper';
import { Document } from '../pipeline/entities/document.entities';
import { mapAnalysis, mapExtraction } from '../pipeline/mappers/documents.mapper';
import { RecommendationsService } from '../pipeline/services/recommendations.service';
import { Transaction } from '../pipeline/entities/transaction.entities';
import { DocumentExportDto, FlaggedTransactionDto } from './dto/export.dto';
import type * as ReportPdf from './pdf/report-pdf';

/**
 * The PDF renderer and its font stack (pdf-lib, fontkit: about a fifth of the server's load time)
 * are loaded with the first report, not at every start.
 */
const renderDealReportPdf: typeof ReportPdf.renderDealReportPdf = (input) =>
  (require('./pdf/report-pdf') as typeof ReportPdf).renderDealReportPdf(input);
import { CsvFormat, ExportRow, FORM_A, FORM_B } from './transaction-csv';

/** Rows per keyset page: memory stays flat whatever the number of transactions. */
const BATCH = 2000;
/** Characters per written chunk. */
const CHUNK_CHARS = 32 * 1024;
/** Flagged transactions read for the PDF, which lists the largest of each bucket (the CSV has them all). */
const PDF_FLAGGED_LIMIT = 5000;

const COLUMNS = [
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
] as const;

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
    private readonly db: Database,
    private readonly events: EventDispatcher,
    private readonly clock: Clock,
    private readonly recommendations: RecommendationsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Form A deal CSV: every transaction of the deal's completed documents, by date then upload order. */
  async dealCsv(auth: AuthContext, dealId: number): Promise<ExportFile> {
    const em = this.db.forScope(auth);
    const deal = await this.deals.findOr404(UnitOfWork.of(em), dealId);
    const docs = await this.completedDocuments(em, { dealId });
    return this.csvFile(auth, em, deal.id, null, docs, FORM_A, `deal-${deal.id}-${slug(deal.businessName)}-transactions.csv`);
  }

  /** Form B transactions CSV of a deal. */
  async dealTransactionsCsv(auth: AuthContext, dealId: number): Promise<ExportFile> {
    const em = this.db.forScope(auth);
    const deal = await this.deals.findOr404(UnitOfWork.of(em), dealId);
    const docs = await this.completedDocuments(em, { dealId });
    return this.csvFile(auth, em, deal.id, null, docs, FORM_B, `deal-${deal.id}-transactions.csv`);
  }

  /** Form A columns for one completed document. */
  async documentCsv(auth: AuthContext, documentId: number): Promise<ExportFile> {
    const em = this.db.forScope(auth);
    const doc = await this.findDocument(em, documentId);
    if (doc.status !== 'completed') throw ApiError.conflict(`Document ${doc.id} is not completed (status ${doc.status})`);
    return this.csvFile(auth, em, doc.dealId, doc.id, [doc], FORM_A, `document-${doc.id}-transactions.csv`);
  }

  async documentJson(auth: AuthContext, documentId: number): Promise<DocumentExportDto> {
    const em = this.db.forScope(auth);
    const doc = await this.findDocument(em, documentId);
    const [total, flagged] = await Promise.all([
      em.count(Transaction, { documentId: doc.id }),
      em.find(
        Transaction,
        { documentId: doc.id, screeningBucket: { $ne: null } },
        {
          orderBy: [{ date: 'asc' }, { position: 'asc' }],
          fields: ['id', 'date', 'description', 'amount', 'screeningBucket', 'flagReason'],
        },
      ),
    ]);
    const buckets = emptyBucketCounts() as Record<string, number>;
    for (const t of flagged) buckets[t.screeningBucket!] = (buckets[t.screeningBucket!] ?? 0) + 1;
    const isAnalysed = doc.status === 'completed' && doc.documentType === 'bank_statement';
    const exportedAt = this.clock.now().toISOString();
    await this.recordExport(auth, doc.dealId, { document_id: doc.id, format: 'json', filename: `document-${doc.id}.json` });
    return {
      document: { id: doc.id, deal_id: doc.dealId, filename: doc.filename, document_type: doc.documentType, status: doc.status },
      extraction: doc.extractedAt ? mapExtraction(doc) : null,
      analysis: isAnalysed ? mapAnalysis(doc) : null,
      screening: {
        total_flags: flagged.length,
        buckets: buckets as unknown as DocumentExportDto['screening']['buckets'],
        flagged_transactions: flagged.map(mapFlagged),
      },
      transactions: { total, included: false, download_url: `${this.config.publicUrl}/v1/documents/${doc.id}/export/csv` },
      exported_at: exportedAt,
    };
  }

  /** The PDF underwriting report of a ready deal (409 otherwise). */
  async dealPdf(auth: AuthContext, dealId: number): Promise<ExportFile> {
    const em = this.db.forScope(auth);
    const deal = await this.deals.findOr404(UnitOfWork.of(em), dealId);
    if (deal.status !== 'ready') {
      throw ApiError.conflict(
        `Deal ${deal.id} is not ready (status: ${deal.status}): the PDF report exists once every document is processed`,
      );
    }
    const recommendation = await this.recommendations.get(auth, deal.id);
    const flagged = await em.find(
      Transaction,
      { dealId: deal.id, screeningBucket: { $ne: null } },
      {
        orderBy: [{ date: 'asc' }, { documentId: 'asc' }, { position: 'asc' }],
        limit: PDF_FLAGGED_LIMIT,
        fields: ['id', 'date', 'description', 'amount', 'screeningBucket', 'flagReason'],
      },
    );
    const flaggedTotal = await em.count(Transaction, { dealId: deal.id, screeningBucket: { $ne: null } });
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

  private async findDocument(em: EntityManager, id: number): Promise<Document> {
    const doc = await em.findOne(Document, { id });
    if (!doc) throw ApiError.notFound('Document', ErrorCode.DOCUMENT_NOT_FOUND);
    return doc;
  }

  private completedDocuments(em: EntityManager, where: { dealId: number }): Promise<Pick<Document, 'id' | 'dealId' | 'filename'>[]> {
    return em.find(Document, { ...where, status: 'completed' }, { orderBy: { id: 'asc' }, fields: ['id', 'dealId', 'filename'] });
  }

  private csvFile(
    auth: AuthContext,
    em: EntityManager,
    dealId: number,
    documentId: number | null,
    docs: Pick<Document, 'id' | 'filename'>[],
    format: CsvFormat,
    filename: string,
  ): ExportFile {
    const names = new Map(docs.map((d) => [d.id, d.filename]));
    const pages = this.rows(em, dealId, [...names.keys()]);
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

  /** Keyset pages over (date, document, position, id): each page is one indexed query, nothing accumulates. */
  private async *rows(em: EntityManager, dealId: number, documentIds: number[]): AsyncGenerator<ExportRow[]> {
    if (!documentIds.length) return;
    let after: ExportRow | null = null;
    for (;;) {
      const qb = em
        .createQueryBuilder(Transaction, 't')
        .select([...COLUMNS])
        .where({ dealId, documentId: { $in: documentIds } });
      if (after) {
        qb.andWhere('(t.date, t.document_id, t.position, t.id) > (?, ?, ?, ?)', [after.date, after.documentId, after.position, after.id]);
      }
      qb.orderBy([{ date: 'asc' }, { documentId: 'asc' }, { position: 'asc' }, { id: 'asc' }]).limit(BATCH);
      await qb.applyFilters();
      const batch = (await qb.execute('all')) as unknown as ExportRow[];
      if (!batch.length) return;
      yield batch;
      if (batch.length < BATCH) return;
      after = batch[batch.length - 1];
    }
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

function mapFlagged(
  t: Pick<Transaction, 'id' | 'date' | 'description' | 'amount' | 'screeningBucket' | 'flagReason'>,
): FlaggedTransactionDto {
  return {
    id: t.id,
    date: t.date,
    description: t.description,
    amount: Number(t.amount),
    screening_bucket: t.screeningBucket ?? '',
    flag_reason: t.flagReason,
  };
}
