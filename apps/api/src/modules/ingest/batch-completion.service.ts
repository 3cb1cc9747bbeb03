import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { LockMode } from '@mikro-orm/core';
import { Database } from '../../platform/database/database.service';
import { Scope } from '../../platform/database/tenant';
import { EventDispatcher } from '../../platform/events/event-dispatcher';
import { DomainEvent, DomainEventType, recordEvent } from '../../platform/events/events';
import { UnitOfWork } from '../../platform/database/unit-of-work';
import type { DealRecord } from '../pipeline/records';
import { isInFlight } from '../pipeline/records';
import { DealsService } from '../pipeline/services/deals.service';
import { DocumentsService } from '../pipeline/services/documents.service';
import { RecommendationsService } from '../pipeline/services/recommendations.service';
import { WebhookDeliveryService } from '../webhooks/webhook-delivery.service';
import { IngestBatch, IngestBatchDocument } from './ingest.entities';

const ACTOR = 'system:ingest';

/**
 * The events after which an open batch of the deal may be complete: a document of it finished, or
 * the deal's lifecycle moved (it writes the report and recommendation the callback carries).
 */
const TRIGGERS: readonly DomainEventType[] = ['document.completed', 'document.failed', 'document.cancelled', 'deal.ready', 'deal.updated'];

/**
 * Completes ingest batches from domain events (never from a request): once every document of a
 * batch is terminal and the deal's lifecycle has caught up, writes the counts and the
 * recommendation and records `batch.completed` in one transaction. The webhooks subscriber
 * delivers that event to the organization's endpoint; this one sends the batch's signed callback
 * through the webhook delivery machinery (retries, SSRF guard, attempt log).
 */
@Injectable()
export class BatchCompletion implements OnModuleInit {
  private readonly logger = new Logger('Ingest');

  constructor(
    private readonly db: Database,
    private readonly events: EventDispatcher,
    private readonly webhooks: WebhookDeliveryService,
    private readonly deals: DealsService,
    private readonly documents: DocumentsService,
    private readonly recommendations: RecommendationsService,
  ) {}

  onModuleInit(): void {
    this.events.subscribe('ingest', (event) => this.onEvent(event));
  }

  private async onEvent(event: DomainEvent): Promise<void> {
    const scope = { organizationId: event.organizationId, livemode: event.livemode };
    if (event.type === 'batch.completed') return this.sendCallback(scope, event);
    if (!TRIGGERS.includes(event.type) || event.dealId === null) return;
    // a PATCH of the deal's fields cannot complete a batch; a status the lifecycle moved can
    if (event.type === 'deal.updated' && !(event.data.changed_fields as string[] | undefined)?.includes('status')) return;
    const open = await this.db
      .forScope(scope)
      .find(IngestBatch, { dealId: event.dealId, completedAt: null }, { orderBy: { createdAt: 'asc' } });
    let completed = false;
    for (const batch of open) if (await this.tryComplete(scope, batch.id)) completed = true;
    if (completed) this.events.notify();
  }

  /** Idempotent: a completed batch is left alone (events arrive at least once). */
  async tryComplete(scope: Scope, batchId: string): Promise<boolean> {
    return this.db.forScope(scope).transactional(async (tx) => {
      const batch = await tx.findOne(IngestBatch, { id: batchId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!batch || batch.completedAt) return false;
      const links = await tx.find(IngestBatchDocument, { batchId });
      const ids = links.map((l) => l.documentId);
      const uow = UnitOfWork.of(tx);
      const docs = await this.documents.findMany(uow, ids);
      if (docs.some((d) => isInFlight(d.status))) return false;
      const deal = await this.deals.findById(uow, batch.dealId);
      if (!deal) return false;
      const othersInFlight = await this.documents.countInFlightForDeal(uow, deal.id, ids);
      // Wait for the lifecycle to write the deal's outcome, unless other uploads keep the deal busy.
      if (othersInFlight === 0 && (deal.status === 'processing' || deal.status === 'under_review')) return false;
      const completed = docs.filter((d) => d.status === 'completed').length;
      Object.assign(batch, {
        completed,
        failed: docs.length - completed,
        recommendation: completed > 0 && deal.status === 'ready' ? await this.recommendation(uow, scope, deal) : null,
        completedAt: new Date(),
      });
      recordEvent(tx, scope, 'batch.completed', {
        dealId: deal.id,
        actor: ACTOR,
        data: {
          batch_id: batch.id,
          deal_id: deal.id,
          total_documents: batch.total,
          completed: batch.completed,
          failed: batch.failed,
          recommendation: batch.recommendation,
        },
      });
      return true;
    });
  }

  private async recommendation(uow: UnitOfWork, scope: Scope, deal: DealRecord): Promise<Record<string, unknown> | null> {
    const rec = await this.recommendations.latestRecord(uow, scope, deal.id);
    if (!rec) return null;
    return {
      decision: rec.result.decision ?? null,
      health_score: deal.healthScore,
      grade: rec.result.grade ?? deal.healthGrade,
      ruleset_id: rec.rulesetId,
      ruleset_name: rec.rulesetName,
      factor_scores: rec.result.factor_scores ?? null,
    };
  }

  /** The spec's callback body (`event`, `batch_id`, `timestamp`) with the webhook envelope's `id`/`type`/`created_at`. */
  private async sendCallback(scope: Scope, event: DomainEvent): Promise<void> {
    const em = this.db.forScope(scope);
    const batch = await em.findOne(IngestBatch, { id: String(event.data.batch_id) });
    if (!batch?.callbackUrl || !batch.callbackSecretSealed) return;
    const at = event.createdAt.toISOString();
    const body = JSON.stringify({
      id: event.id,
      type: 'batch.completed',
      event: 'batch.completed',
      batch_id: batch.id,
      deal_id: batch.dealId,
      created_at: at,
      timestamp: at,
      data: {
        total_documents: batch.total,
        completed: batch.completed,
        failed: batch.failed,
        recommendation: batch.recommendation,
      },
    });
    const deliveryId = await this.webhooks.sendCallback(scope, {
      url: batch.callbackUrl,
      secretSealed: batch.callbackSecretSealed,
      dedupeKey: `callback:${event.id}`,
      eventId: event.id,
      eventType: 'batch.completed',
      dealId: batch.dealId,
      body,
    });
    if (batch.callbackDeliveryId !== deliveryId) {
      await em.nativeUpdate(IngestBatch, { id: batch.id }, { callbackDeliveryId: deliveryId });
      this.logger.log(`Batch ${batch.id} completed: callback ${deliveryId} queued for ${new URL(batch.callbackUrl).host}`);
    }
  }
}
