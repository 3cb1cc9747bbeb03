import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { join, dirname } from 'node:path';
import {
  fieldSourcesToApiJson,
  ParseResult,
  readingsToApiJson,
  ParserPool,
  ParseStep,
  StatementError,
  tamperFindingsToApiJson,
  type StatementTransaction,
} from '@ledgerlens/statements';
import { categorizeTransaction } from '@ledgerlens/underwriting';
import { APP_CONFIG, AppConfig } from '../../../platform/config/config';
import { Database } from '../../../platform/database/database.service';
import { Scope } from '../../../platform/database/tenant';
import { UnitOfWork } from '../../../platform/database/unit-of-work';
import { recordEvent } from '../../../platform/events/events';
import { EventDispatcher } from '../../../platform/events/event-dispatcher';
import { DocumentJob, JobHandedBack, JobQueue, QUEUES } from '../../../platform/queue/job-queue';
import { FileStore } from '../../../platform/storage/file-store';
import { Metrics, RecordedStep } from '../../../platform/metrics/metrics';
import { DealLifecycleService } from './deal-lifecycle.service';
import { carryCorrections, unmatchedWarning } from './carry-corrections';
import { Document, DocumentStatus, isInFlight } from '../entities/document.entities';
import { DocumentRepository } from '../repositories/document.repository';
import { CorrectedRows, TransactionRepository } from '../repositories/transaction.repository';
import { Transaction } from '../entities/transaction.entities';

/** The document's fields from what the reader found. */
function applyReading(doc: Document, parsed: ParseResult, now: Date): void {
  Object.assign(doc, {
    documentType: parsed.documentType,
    classificationConfidence: parsed.classificationConfidence,
    pageCount: parsed.pageCount,
    mimeType: doc.mimeType,
    bankName: parsed.bankName,
    accountNumberLast4: parsed.accountNumberLast4,
    accountType: parsed.accountType,
    accountHolder: parsed.accountHolder,
    statementStartDate: parsed.periodStart,
    statementEndDate: parsed.periodEnd,
    openingBalance: parsed.openingBalance,
    closingBalance: parsed.closingBalance,
    // a currency the statement prints wins over the one declared with the upload, which wins over
    // the default for the bank's country
    currency: parsed.currencyFrom === 'printed' ? parsed.currency : (doc.currency ?? parsed.currency),
    extractionMethod: parsed.extractionMethod,
    extractionConfidence: parsed.extractionConfidence,
    extractionModel: parsed.parser.model,
    parserFallbackReason: parsed.parser.fallbackReason,
    pdfRiskLevel: parsed.pdfRiskLevel,
    riskReasons: parsed.riskReasons,
    tamperFindings: tamperFindingsToApiJson(parsed.tamperFindings ?? []),
    reconciliation: parsed.reconciliation,
    rawTextPages: parsed.rawTextPages,
    warnings: parsed.warnings,
    needsReview: parsed.needsReview,
    reviewReasons: parsed.reviewReasons,
    // a new reading is reviewed anew
    reviewedAt: null,
    reviewedBy: null,
    fieldSources: fieldSourcesToApiJson(
      parsed.currencyFrom === 'bank_country' && doc.currency ? { ...parsed.fieldSources, currency: undefined } : parsed.fieldSources,
    ),
    readings: readingsToApiJson(parsed.readings ?? []),
    extractedAt: now,
  });
}

/** A row's screening before the deal's analysis: nothing flagged. */
const UNSCREENED = {
  isNsfFee: false,
  isOverdraftFee: false,
  isLargeDeposit: false,
  isLargeStrange: false,
  isRepeatCharge: false,
  isSuspicious: false,
  screeningBucket: null,
  flagReason: null,
} as const;

/** What `insertReading` stores of one row. */
type NewTransactionRow = Parameters<TransactionRepository['insertReading']>[1][number];

/** One stored row: the transaction at `position` of the reading, with the reading's provenance, not yet screened. */
function transactionRow(
  scope: Scope,
  doc: Document,
  position: number,
  t: StatementTransaction,
  correctedCategory: string | undefined,
): NewTransactionRow {
  return {
    organizationId: scope.organizationId,
    livemode: scope.livemode,
    dealId: doc.dealId,
    documentId: doc.id,
    position,
    date: t.date,
    description: t.description ?? '',
    amount: t.amount,
    balance: t.balance ?? null,
    transactionType: t.amount < 0 ? 'debit' : t.amount > 0 ? 'credit' : (t.transactionType ?? 'credit'),
    category: correctedCategory ?? categorizeTransaction(t).category,
    ...UNSCREENED,
    // where the reader found the row (none for a row a person added)
    source: t.source ?? null,
    rowWarnings: t.rowWarnings ?? null,
  };
}

/** Closes the open step and adds `completed`; returns the steps. */
function markCompleted(doc: Document, now: Date): RecordedStep[] {
  doc.steps = [
    ...doc.steps.map((s) => (s.completed_at ? s : { ...s, completed_at: now.toISOString() })),
    { name: 'completed', started_at: now.toISOString(), completed_at: now.toISOString() },
  ];
  doc.status = 'completed';
  doc.processingCompletedAt = now;
  doc.updatedAt = now;
  return doc.steps;
}

/** The compiled worker of @ledgerlens/statements (built with the server). */
const STATEMENTS_WORKER = join(dirname(require.resolve('@ledgerlens/statements/package.json')), 'dist', 'worker.js');

class StaleJob extends Error {}

/**
 * The consumer side of the documents queue. Runs the reading of packages/statements for one document (screening is the deal's), writing each
 * status change, then rebuilds the deal's state. Every write checks the document's `attempt`, so a
 * cancelled or reprocessed document never receives a stale job's results. Parsing runs in a pool
 * of child processes with hard time and memory limits (never on this event loop). After the
 * server listens, the producer queues every non-terminal document again (a crash resumes); a job out of
 * retries fails its document, and a periodic sweep fails documents stuck beyond a bound.
 */
@Injectable()
export class DocumentProcessor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Processing');
  private pool: ParserPool | null = null;
  private shuttingDown = false;
  /** Past the shutdown grace: a document still in flight is handed back, not failed. */
  private handingBack = false;
  private sweeper: NodeJS.Timeout | null = null;
  constructor(
    private readonly db: Database,
    private readonly documents: DocumentRepository,
    private readonly transactions: TransactionRepository,
    private readonly queue: JobQueue,
    private readonly files: FileStore,
    private readonly events: EventDispatcher,
    private readonly lifecycle: DealLifecycleService,
    private readonly metrics: Metrics,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.role === 'api') return;
    const { concurrency, sweepSeconds } = this.config.pipeline;
    this.queue.process<DocumentJob>(
      QUEUES.documents,
      (job) => this.run(job),
      concurrency,
      (job, err) => this.exhausted(job, err),
    );
    this.sweeper = setInterval(
      () => void this.sweep().catch((e: Error) => this.logger.error(`Sweep failed: ${e.message}`)),
      sweepSeconds * 1000,
    );
    this.sweeper.unref();
  }

  /**
   * Graceful stop: no new document is taken; those being processed have SHUTDOWN_GRACE_SECONDS to
   * finish, then their parser processes are killed and their jobs handed back to the queue (with
   * Redis, another worker takes them at once; in-process, the next start resumes them).
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.shuttingDown = true;
    if (this.sweeper) clearInterval(this.sweeper);
    if (this.config.role === 'api') return;
    const stopped = this.queue.stop(QUEUES.documents);
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.config.shutdownGraceSeconds * 1000)));
    await Promise.race([stopped, grace]);
    clearTimeout(timer);
    this.handingBack = true;
    await this.pool?.close();
    await stopped;
  }

  /** The parser processes (monitoring and tests); null until the first document. */
  parserPool(): ParserPool | null {
    return this.pool;
  }

  /**
   * Started with the first document, then kept warm: a process that parses nothing (an admin
   * command, an idle replica) does not load mupdf twice over.
   */
  private ensurePool(): ParserPool {
    if (this.shuttingDown && !this.pool) throw new JobHandedBack('the pipeline is shutting down');
    if (!this.pool) {
      const { concurrency, timeoutMs, maxRssMb } = this.config.pipeline;
      this.pool = new ParserPool({ size: concurrency, timeoutMs, maxRssMb, workerScript: STATEMENTS_WORKER });
      this.pool.on('restart', (why: Error) => this.logger.warn(`Parser process replaced: ${why.message}`));
    }
    return this.pool;
  }

  /** A job out of retries: its document fails with the last error instead of staying in flight. */
  private async exhausted(job: DocumentJob, err: Error): Promise<void> {
    const doc = await this.documents.findByIdUnscoped(this.db.systemUnitOfWork(), job.documentId);
    if (!doc || doc.attempt !== job.attempt || !isInFlight(doc.status)) return;
    const scope: Scope = { organizationId: doc.organizationId, livemode: doc.livemode };
    await this.fail(doc, scope, job.attempt, `retries exhausted: ${err.message}`);
    await this.refreshDeal(scope, doc.dealId);
  }

  /** Fails documents with no progress for PIPELINE_STUCK_SECONDS (a lost job, a crashed worker). */
  async sweep(now = new Date()): Promise<number> {
    const { stuckSeconds } = this.config.pipeline;
    const bound = new Date(now.getTime() - stuckSeconds * 1000);
    const docs = await this.documents.findStuck(this.db.systemUnitOfWork(), bound, 500);
    for (const doc of docs) {
      const scope: Scope = { organizationId: doc.organizationId, livemode: doc.livemode };
      await this.fail(doc, scope, doc.attempt, `stuck: no progress for more than ${stuckSeconds} s`, bound);
      await this.refreshDeal(scope, doc.dealId);
    }
    if (docs.length) this.logger.warn(`Failed ${docs.length} stuck document(s)`);
    return docs.length;
  }

  async run(job: DocumentJob): Promise<void> {
    const doc = await this.documents.findByIdUnscoped(this.db.systemUnitOfWork(), job.documentId);
    if (!doc || doc.attempt !== job.attempt || !isInFlight(doc.status)) return;
    const scope: Scope = { organizationId: doc.organizationId, livemode: doc.livemode };
    const started = Date.now();
    try {
      await this.process(doc, scope, job.attempt);
      this.logger.log(`Document ${doc.id} processed (attempt ${job.attempt}) in ${Date.now() - started} ms`);
    } catch (err) {
      if (err instanceof StaleJob) return;
      if (err instanceof JobHandedBack) throw err;
      if (this.handingBack) {
        this.logger.warn(`Document ${doc.id} handed back to the queue (shutting down)`);
        throw new JobHandedBack(`document ${doc.id}: the worker is shutting down`);
      }
      if (err instanceof StatementError) {
        await this.fail(doc, scope, job.attempt, `${err.code}: ${err.message}`);
      } else {
        throw err;
      }
    }
  }

  private async process(doc: Document, scope: Scope, attempt: number): Promise<void> {
    let stepChain: Promise<void> = Promise.resolve();
    const step = (status: DocumentStatus) => {
      stepChain = stepChain.then(() => this.setStep(doc.id, attempt, status));
      // Marked handled here; the rejection (a cancelled document) surfaces at `await stepChain`.
      stepChain.catch(() => undefined);
      return stepChain;
    };
    await this.setStep(doc.id, attempt, 'extracting_text', true);
    const bytes = await this.files.read(doc.storageKey);
    const llm = this.config.groq.apiKey
      ? {
          apiKey: this.config.groq.apiKey,
          baseURL: this.config.groq.baseUrl,
          model: this.config.groq.model,
          timeoutMs: this.config.groq.timeoutMs,
        }
      : undefined;
    const options = {
      filename: doc.filename,
      documentTypeHint: doc.documentTypeHint ?? undefined,
      llm,
      // years of yearless dates, and the check that nothing is dated after the upload
      receivedAt: doc.createdAt,
      onStep: (s: ParseStep) => void step(s),
    };
    const input = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const parsed = await this.ensurePool().parse(input, options);
    await stepChain;
    await step('computing_metrics');
    await this.complete(doc.id, scope, attempt, parsed);
  }

  /** Moves the document to `status`, closing the previous step; throws StaleJob when cancelled or superseded. */
  private async setStep(id: number, attempt: number, status: DocumentStatus, starting = false): Promise<void> {
    await this.db.systemUnitOfWork().transaction(async (tx) => {
      const doc = await this.lockCurrent(tx, id, attempt);
      if (doc.status === status && !starting) return;
      const now = new Date();
      const steps = doc.steps.map((s) => (s.completed_at ? s : { ...s, completed_at: now.toISOString() }));
      if (starting) {
        doc.processingStartedAt = now;
        doc.error = null;
        doc.steps = [];
        steps.length = 0;
      }
      steps.push({ name: status, started_at: now.toISOString(), completed_at: null });
      doc.steps = steps;
      doc.status = status;
      doc.updatedAt = now;
    });
  }

  private async lockCurrent(tx: UnitOfWork, id: number, attempt: number): Promise<Document> {
    const doc = await this.documents.lockByIdUnscoped(tx, id);
    if (!doc || doc.attempt !== attempt || !isInFlight(doc.status)) throw new StaleJob();
    return doc;
  }

  /** The reading's result, in one transaction: the document's fields, its rows, its completion and `document.completed`. */
  private async complete(id: number, scope: Scope, attempt: number, parsed: ParseResult): Promise<void> {
    let steps: RecordedStep[] = [];
    await this.db.systemUnitOfWork().transaction(async (tx) => {
      const doc = await this.lockCurrent(tx, id, attempt);
      const now = new Date();
      // corrections of the earlier reading are applied again to this one (their rows keep their ids)
      const corrected = await this.transactions.loadCorrectedRowsUnscoped(tx, doc.id);
      await this.transactions.deleteReadingUnscoped(
        tx,
        doc.id,
        corrected.rows.map((r) => r.id),
      );
      applyReading(doc, parsed, now);
      let unmatched = corrected.rows;
      if (parsed.documentType === 'bank_statement') {
        unmatched = await this.storeStatement(tx, scope, doc, parsed, corrected, now);
      } else {
        doc.analysis = null;
        doc.transactionCount = 0;
        doc.screeningFlags = 0;
      }
      if (unmatched.length) {
        this.transactions.remove(tx, unmatched);
        doc.warnings = [...(doc.warnings ?? []), ...unmatched.map(unmatchedWarning)];
      }
      steps = markCompleted(doc, now);
      recordEvent(tx, scope, 'document.completed', {
        dealId: doc.dealId,
        actor: 'system:pipeline',
        data: { document_id: doc.id, deal_id: doc.dealId, document_type: doc.documentType, transaction_count: doc.transactionCount },
      });
    });
    this.metrics.documentFinished('completed', steps, {
      bankStatement: parsed.documentType === 'bank_statement',
      reconciled: parsed.reconciliation.reconciled,
      needsReview: parsed.needsReview,
    });
    this.events.notify();
  }

  /**
   * A bank statement's rows as read (corrections of the earlier reading carried over), each with
   * the category its own description gives. Screening, flags and figures are the deal's: its
   * analysis writes them onto these rows and the document (deal-report.ts) once every document of
   * the deal is done. Returns the corrected rows of the earlier reading this one has no row for.
   */
  private async storeStatement(
    tx: UnitOfWork,
    scope: Scope,
    doc: Document,
    parsed: ParseResult,
    corrected: CorrectedRows,
    now: Date,
  ): Promise<Transaction[]> {
    const carried = carryCorrections(parsed.transactions, corrected);
    const rows = carried.transactions.map((t, position) => transactionRow(scope, doc, position, t, carried.categories.get(position)));
    for (const [position, row] of carried.kept) Object.assign(row, rows[position]);
    const fresh = rows.filter((_, position) => !carried.kept.has(position));
    await this.transactions.insertReading(tx, fresh);
    doc.analysis = null;
    doc.transactionCount = rows.length;
    doc.screeningFlags = 0;
    doc.analyzedAt = now;
    return carried.unmatched;
  }

  /** `unchangedSince`: fail only if the document made no progress after that time (the sweeper). */
  private async fail(doc: Document, scope: Scope, attempt: number, message: string, unchangedSince?: Date): Promise<void> {
    try {
      let steps: RecordedStep[] | null = null;
      await this.db.systemUnitOfWork().transaction(async (tx) => {
        const current = await this.lockCurrent(tx, doc.id, attempt);
        if (unchangedSince && current.updatedAt >= unchangedSince) return;
        const now = new Date();
        current.status = 'failed';
        current.error = `PROCESSING_FAILED: ${message}`.slice(0, 2000);
        current.steps = current.steps.map((s) => (s.completed_at ? s : { ...s, completed_at: now.toISOString() }));
        current.processingCompletedAt = now;
        current.updatedAt = now;
        steps = current.steps;
        recordEvent(tx, scope, 'document.failed', {
          dealId: current.dealId,
          actor: 'system:pipeline',
          data: { document_id: current.id, deal_id: current.dealId, error: current.error },
        });
      });
      if (steps) this.metrics.documentFinished('failed', steps);
      this.events.notify();
    } catch (err) {
      if (!(err instanceof StaleJob)) throw err;
    }
  }

  /** The deal follows its documents' events; this asks its lifecycle directly (retries and sweeps). */
  async refreshDeal(scope: Scope, dealId: number): Promise<void> {
    await this.lifecycle.refresh(scope, dealId);
  }
}
