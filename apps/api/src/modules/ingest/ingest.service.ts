import { Injectable } from '@nestjs/common';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { AuthContext, hasScope } from '../../platform/auth/auth-context';
import { Database } from '../../platform/database/database.service';
import { scopeFields } from '../../platform/database/tenant';
import { ApiError, ErrorCode, validationEntry } from '../../platform/errors/api-error';
import { EventDispatcher } from '../../platform/events/event-dispatcher';
import { recordEvent } from '../../platform/events/events';
import { flatten } from '../../platform/validation/validation.pipe';
import { UnitOfWork } from '../../platform/database/unit-of-work';
import { DealsService } from '../pipeline/services/deals.service';
import { DocumentsService } from '../pipeline/services/documents.service';
import type { DocumentRecord } from '../pipeline/records';
import { WebhookDeliveryService } from '../webhooks/webhook-delivery.service';
import { DEFAULT_INGEST_FUNDING } from './deal-matcher';
import {
  IngestBatchCallbackDto,
  IngestBatchDetailResponseDto,
  IngestBatchRecommendationDto,
  BatchStatus,
  IngestBatchStatusDto,
  IngestBatchSummaryDto,
  IngestApplicationsDto,
  IngestApplicationsResultDto,
} from './dto/ingest.dto';
import { IngestBatch, IngestBatchDocument } from './ingest.entities';

const BATCH_ID = /^bat_[0-9a-f]{24}$/;

/** Status while open: pending until a document has started, then processing; completed is stored. */
export function batchStatusOf(batch: IngestBatch, docs: DocumentRecord[]): BatchStatus {
  if (batch.completedAt) return 'completed';
  return docs.every((d) => d.status === 'uploaded' && !d.processingStartedAt) ? 'pending' : 'processing';
}

/** Batch reads (both forms) and Form C, the JSON bulk creation of deals. */
@Injectable()
export class IngestService {
  constructor(
    private readonly db: Database,
    private readonly events: EventDispatcher,
    private readonly webhooks: WebhookDeliveryService,
    private readonly deals: DealsService,
    private readonly documents: DocumentsService,
  ) {}

  private async load(auth: AuthContext, batchId: string): Promise<{ batch: IngestBatch; docs: DocumentRecord[] }> {
    const em = this.db.forScope(auth);
    const batch = BATCH_ID.test(batchId) ? await em.findOne(IngestBatch, { id: batchId }) : null;
    if (!batch) throw ApiError.notFound('Ingest batch');
    const links = await em.find(IngestBatchDocument, { batchId }, { orderBy: { position: 'asc' } });
    const found = await this.documents.findMany(
      UnitOfWork.of(em),
      links.map((l) => l.documentId),
    );
    const byId = new Map(found.map((d) => [d.id, d]));
    return { batch, docs: links.map((l) => byId.get(l.documentId)).filter((d): d is DocumentRecord => !!d) };
  }

  private summary(batch: IngestBatch, docs: DocumentRecord[]): IngestBatchSummaryDto {
    const done = !!batch.completedAt;
    const completed = done ? batch.completed : docs.filter((d) => d.status === 'completed').length;
    const failed = done ? batch.failed : docs.filter((d) => d.status === 'failed' || d.status === 'cancelled').length;
    return {
      batch_id: batch.id,
      deal_id: batch.dealId,
      status: batchStatusOf(batch, docs),
      deal_matched: batch.dealMatched,
      match_method: batch.matchMethod,
      total: batch.total,
      completed,
      failed,
      created_at: batch.createdAt.toISOString(),
      completed_at: batch.completedAt?.toISOString() ?? null,
    };
  }

  async status(auth: AuthContext, batchId: string): Promise<IngestBatchStatusDto> {
    const { batch, docs } = await this.load(auth, batchId);
    const summary = this.summary(batch, docs);
    return {
      ...summary,
      processed: summary.completed + summary.failed,
      documents: docs.map((d) => ({
        id: d.id,
        document_id: d.id,
        filename: d.filename,
        label: d.label,
        status: d.status,
        document_type: d.documentType,
        processing_completed_at: d.processingCompletedAt?.toISOString() ?? null,
        error: d.error,
      })),
      callback: await this.callback(auth, batch),
    };
  }

  async detail(auth: AuthContext, batchId: string): Promise<IngestBatchDetailResponseDto> {
    const { batch, docs } = await this.load(auth, batchId);
    return {
      data: {
        ...this.summary(batch, docs),
        documents: docs.map((d) => ({
          document_id: d.id,
          filename: d.filename,
          label: d.label,
          status: d.status,
          document_type: d.documentType,
          period:
            d.statementStartDate || d.statementEndDate ? { start: d.statementStartDate ?? null, end: d.statementEndDate ?? null } : null,
          transaction_count: d.transactionCount,
        })),
        recommendation: batch.recommendation as IngestBatchRecommendationDto | null,
      },
    };
  }

  private async callback(auth: AuthContext, batch: IngestBatch): Promise<IngestBatchCallbackDto | null> {
    if (!batch.callbackUrl) return null;
    const delivery = batch.callbackDeliveryId ? await this.webhooks.callbackState(auth, batch.callbackDeliveryId) : null;
    return {
      url: batch.callbackUrl,
      status: delivery?.status ?? 'waiting',
      attempts: delivery?.attemptNumber ?? 0,
      response_status: delivery?.responseStatus ?? null,
      last_error: delivery?.lastError ?? null,
      delivered_at: delivery?.deliveredAt?.toISOString() ?? null,
    };
  }

  /**
   * Form C: `{applications: [{business_name, external_ref}]}` creates up to 50 deals; an
   * application whose external reference a deal already has (or an earlier one of the same
   * request) is skipped. All or nothing: an invalid application fails the request (422).
   */
  async createApplications(auth: AuthContext, body: unknown): Promise<IngestApplicationsResultDto> {
    if (!hasScope(auth, 'deals:write')) throw ApiError.forbidden('Creating deals needs the deals:write scope');
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      throw ApiError.validation([
        validationEntry('body', [], 'Send multipart/form-data with files, or JSON {applications: [...]}', 'type_error.dict'),
      ]);
    const dto = plainToInstance(IngestApplicationsDto, body);
    const problems = await validate(dto, { whitelist: true, forbidUnknownValues: false });
    if (problems.length) throw ApiError.validation(flatten(problems, 'body', []));
    const apps = dto.applications.map((a, index) => ({ index, app: a, ref: a.external_ref ?? a.external_reference ?? null }));
    try {
      const results = await this.db.forScope(auth).transactional(async (tx) => {
        const refs = apps.map((a) => a.ref).filter((r): r is string => r !== null);
        const uow = UnitOfWork.of(tx);
        const existing = new Map((await this.deals.findByReferences(uow, refs)).map((d) => [d.externalReference!, d]));
        const now = new Date();
        const out = apps.map(({ index, app, ref }) => {
          const known = ref !== null ? existing.get(ref) : undefined;
          if (known) return { index, deal: known, result: 'skipped' as const };
          const deal = this.deals.newDeal(uow, {
            ...scopeFields(auth),
            businessName: app.business_name.trim(),
            externalReference: ref,
            ein: app.ein ?? null,
            fundingAmountRequested: app.funding_amount_requested ?? DEFAULT_INGEST_FUNDING,
            sourceType: 'api',
            createdAt: now,
            updatedAt: now,
          });
          if (ref !== null) existing.set(ref, deal);
          return { index, deal, result: 'created' as const };
        });
        await tx.flush();
        for (const r of out.filter((o) => o.result === 'created'))
          recordEvent(tx, auth, 'deal.created', {
            dealId: r.deal.id,
            actor: auth.actor,
            data: { deal_id: r.deal.id, business_name: r.deal.businessName },
          });
        return out;
      });
      this.events.notify();
      return {
        created: results.filter((r) => r.result === 'created').length,
        skipped: results.filter((r) => r.result === 'skipped').length,
        deals: results.map((r) => ({
          index: r.index,
          id: r.deal.id,
          business_name: r.deal.businessName,
          external_reference: r.deal.externalReference,
          result: r.result,
        })),
      };
    } catch (err) {
      if (err instanceof UniqueConstraintViolationException)
        throw new ApiError(ErrorCode.DUPLICATE_RESOURCE, 'A deal with one of these external references was created meanwhile; retry');
      throw err;
    }
  }
}
