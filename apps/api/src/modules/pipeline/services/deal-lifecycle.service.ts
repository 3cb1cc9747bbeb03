import { Injectable, OnModuleInit } from '@nestjs/common';
import { Database } from '../../../platform/database/database.service';
import { Scope } from '../../../platform/database/tenant';
import { UnitOfWork } from '../../../platform/database/unit-of-work';
import { EventDispatcher } from '../../../platform/events/event-dispatcher';
import { DomainEvent, DomainEventType, recordEvent } from '../../../platform/events/events';
import { ApiError } from '../../../platform/errors/api-error';
import { Document, isInFlight } from '../entities/document.entities';
import { RecommendationsService } from './recommendations.service';
import { SummaryService } from './summary.service';
import { DealRepository } from '../repositories/deal.repository';
import { DocumentRepository } from '../repositories/document.repository';
import { TransactionRepository } from '../repositories/transaction.repository';
import { writeDealReport } from './deal-report';
import { LendersService } from '../../lenders/lenders.service';
import { lenderMatcher } from '@ledgerlens/underwriting';
import { Deal, DealStatus } from '../entities/deal.entities';

/** The document events after which a deal's state may have changed. */
export const LIFECYCLE_TRIGGERS: readonly DomainEventType[] = [
  'document.completed',
  'document.failed',
  'document.cancelled',
  'document.requeued',
];

const ACTOR = 'system:lifecycle';

/** Bumped when scoring itself changes, so that a rescore of a deal scored before recomputes it. */
const SCORING_VERSION = 2;

/**
 * What the deal's report follows from: each terminal document at its attempt, whether a person
 * marked it reviewed, the corrections made to their rows (the append-only trail only grows:
 * a field fixed, a row added or deleted), and the lender names matched (the directory's version
 * and the organization's own entries).
 */
const inputsKey = (docs: Document[], corrections: number, lenders: string) =>
  `v${SCORING_VERSION}|${docs.map((d) => `${d.id}:${d.attempt}:${d.status}${d.reviewedAt ? ':r' : ''}`).join(',')}|c${corrections}|l${lenders}`;

/** The outcome of a rescore: whether anything was recomputed (not when nothing changed since the last scoring). */
export interface RescoreOutcome {
  deal: Deal;
  rescored: boolean;
}

/**
 * The deal status its documents imply (the transition table of the lifecycle):
 * no document -> new; any in flight -> processing; all done and one completed -> ready (through
 * under_review while the report is built); all done, none completed, one failed -> failed;
 * only cancelled documents -> new.
 */
export function statusFor(docs: Pick<Document, 'status'>[]): DealStatus {
  if (docs.some((d) => isInFlight(d.status))) return 'processing';
  if (docs.some((d) => d.status === 'completed')) return 'ready';
  if (docs.some((d) => d.status === 'failed')) return 'failed';
  return 'new';
}

/**
 * The only writer of a deal's status, document count, analysis and report. Document commands
 * call `documentsQueued` in their own transaction (the deal is processing at once); everything
 * else follows document results, as domain events, off the request path: the report is built
 * here, with the default recommendation, and `deal.ready` is recorded.
 */
/**
 * `deal.updated` (spec: the status, fields or notes of a deal change) for a status the lifecycle
 * moved, in the same unit of work. Returns whether an event was recorded.
 */
function recordStatusChange(tx: UnitOfWork, scope: Scope, deal: Deal, previous: DealStatus): boolean {
  if (deal.status === previous) return false;
  recordEvent(tx, scope, 'deal.updated', {
    dealId: deal.id,
    actor: ACTOR,
    data: { deal_id: deal.id, changed_fields: ['status'], status: deal.status, previous_status: previous },
  });
  return true;
}

@Injectable()
export class DealLifecycleService implements OnModuleInit {
  constructor(
    private readonly db: Database,
    private readonly deals: DealRepository,
    private readonly documents: DocumentRepository,
    private readonly transactions: TransactionRepository,
    private readonly events: EventDispatcher,
    private readonly recommendations: RecommendationsService,
    private readonly summary: SummaryService,
    private readonly lenders: LendersService,
  ) {}

  onModuleInit(): void {
    this.events.subscribe('deal-lifecycle', (event) => this.onDocumentEvent(event));
  }

  /** In the caller's unit of work: `added` new documents (0 for requeued ones) are about to be processed. */
  documentsQueued(tx: UnitOfWork, scope: Scope, deal: Deal, added: number, now = new Date()): void {
    const previous = deal.status;
    deal.documentCount += added;
    deal.status = 'processing';
    deal.updatedAt = now;
    recordStatusChange(tx, scope, deal, previous);
  }

  private async onDocumentEvent(event: DomainEvent): Promise<void> {
    if (!LIFECYCLE_TRIGGERS.includes(event.type) || event.dealId === null) return;
    await this.refresh({ organizationId: event.organizationId, livemode: event.livemode }, event.dealId);
  }

  /**
   * Brings the deal in line with its documents. Idempotent: a deal already built from the same
   * documents at the same attempts is left alone (events are delivered at least once).
   */
  async refresh(scope: Scope, dealId: number): Promise<void> {
    let notify = false;
    await this.db.unitOfWork(scope).transaction(async (tx) => {
      const deal = await this.deals.lockForScoring(tx, dealId);
      if (!deal) return;
      const docs = await this.documents.listForDeal(tx, dealId);
      const status = statusFor(docs);
      const previous = deal.status;
      deal.documentCount = docs.length;
      if (status === 'ready') notify = await this.score(tx, scope, deal, docs, ACTOR);
      else if (status === 'processing') this.setStatus(deal, status);
      else this.clear(deal, status);
      if (recordStatusChange(tx, scope, deal, previous)) notify = true;
    });
    if (notify) this.events.notify();
  }

  /**
   * `POST /v1/deals/{id}/rescore`: the deal's screening, report and recommendation recomputed from
   * its stored, corrected transactions, in its own transaction. 409 unless the deal is ready;
   * idempotent (nothing changed since the last scoring: nothing is written, `rescored` false).
   */
  async rescore(scope: Scope, dealId: number, actor: string): Promise<RescoreOutcome> {
    const outcome = await this.db.unitOfWork(scope).transaction(async (tx) => {
      const deal = await this.deals.getOr404(tx, dealId, { lock: true });
      const rescored = await this.rescoreLocked(tx, scope, deal, actor);
      if (!rescored && deal.status !== 'ready') {
        throw ApiError.conflict(
          deal.status === 'processing' || deal.status === 'under_review'
            ? `Deal ${deal.id} is processing: it is scored from its stored transactions, corrections included, as soon as its documents are done`
            : `Deal ${deal.id} has nothing to score (status ${deal.status}): upload or reprocess its statements`,
        );
      }
      return { deal, rescored };
    });
    if (outcome.rescored) this.events.notify();
    return outcome;
  }

  /**
   * The rescore inside the caller's unit of work, the deal row locked by the caller (a correction
   * rescores in its own transaction). Only a ready deal is rescored: one still processing is scored
   * when its documents are done, from the same corrected rows. The caller notifies the dispatcher
   * when this returns true.
   */
  async rescoreLocked(tx: UnitOfWork, scope: Scope, deal: Deal, actor: string): Promise<boolean> {
    if (deal.status !== 'ready') return false;
    const docs = await this.documents.listForDeal(tx, deal.id);
    if (statusFor(docs) !== 'ready') return false;
    await tx.flush();
    return this.score(tx, scope, deal, docs, actor);
  }

  private setStatus(deal: Deal, status: DealStatus): void {
    if (deal.status === status) return;
    deal.status = status;
    deal.updatedAt = new Date();
  }

  /** new or failed: nothing to report on. */
  private clear(deal: Deal, status: DealStatus): void {
    if (deal.status === status && deal.report === null) return;
    Object.assign(deal, {
      status,
      report: null,
      recommendation: null,
      analysis: null,
      healthScore: null,
      healthGrade: null,
      avgMonthlyDeposits: null,
      avgDailyBalance: null,
      screeningFlags: 0,
      updatedAt: new Date(),
    });
  }

  /**
   * Scoring, the one place it happens (documents done, a correction, a rescore): builds the report
   * (screening, figures, review) from the stored transactions with their corrections, stores the
   * default recommendation, asks for the narrative and records deal.ready. Skipped when the deal
   * was already scored from the same documents and corrections.
   */
  private async score(tx: UnitOfWork, scope: Scope, deal: Deal, docs: Document[], actor: string): Promise<boolean> {
    const lenders = await this.lenders.entriesFor(tx, scope);
    const key = inputsKey(
      docs,
      await this.transactions.countCorrectionsForDocuments(
        tx,
        docs.map((d) => d.id),
      ),
      lenderMatcher(lenders).fingerprint,
    );
    if (deal.status === 'ready' && deal.report?.inputs_key === key) return false;
    deal.status = 'under_review';
    await writeDealReport(
      { deals: this.deals, documents: this.documents, transactions: this.transactions },
      tx,
      deal,
      docs,
      new Date().toISOString().slice(0, 10),
      lenders,
    );
    if (deal.report) deal.report = { ...deal.report, inputs_key: key };
    if (deal.analysis) await this.recommendations.generateDefault(tx, scope, deal, actor);
    await this.summary.requestSummary(tx, scope, deal.id, actor);
    deal.status = 'ready';
    deal.updatedAt = new Date();
    recordEvent(tx, scope, 'deal.ready', {
      dealId: deal.id,
      actor,
      data: {
        deal_id: deal.id,
        business_name: deal.businessName,
        status: deal.status,
        health_score: deal.healthScore,
        grade: deal.healthGrade,
        document_count: deal.documentCount,
      },
    });
    return true;
  }
}
