import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../platform/auth/auth-context';
import { Clock } from '../../platform/clock/clock';
import { Database } from '../../platform/database/database.service';
import { scopeFields } from '../../platform/database/tenant';
import { ApiError, validationEntry } from '../../platform/errors/api-error';
import { EventDispatcher } from '../../platform/events/event-dispatcher';
import { recordEvent } from '../../platform/events/events';
import { Page, paginate, pageWindow } from '../../platform/pagination/pagination';
import { UnitOfWork } from '../../platform/database/unit-of-work';
import { DealsService } from '../pipeline/services/deals.service';
import { DocumentRequest, RequestableDocumentType } from './collaboration.entities';
import { mapDocumentRequest } from './collaboration.mapper';
import { CreateDocumentRequestDto, DocumentRequestDto, LongPageQueryDto, UpdateDocumentRequestDto } from './dto/collaboration.dto';

/** A real calendar date (the pattern check lets 2026-02-30 through). */
function checkDate(value: string): void {
  const parsed = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== value) {
    throw ApiError.validation([validationEntry('body', ['due_date'], 'due_date must be a real date YYYY-MM-DD', 'value_error.date')]);
  }
}

/**
 * Documents asked of the merchant. Created pending; fulfilled automatically by the feed when a
 * document of the requested type is uploaded to the deal, or set by `PATCH` (Form B).
 */
@Injectable()
export class DocumentRequestsService {
  constructor(
    private readonly deals: DealsService,
    private readonly db: Database,
    private readonly events: EventDispatcher,
    private readonly clock: Clock,
  ) {}

  private today(): string {
    return this.clock.now().toISOString().slice(0, 10);
  }

  async create(auth: AuthContext, dealId: number, dto: CreateDocumentRequestDto): Promise<DocumentRequestDto> {
    if (dto.due_date) checkDate(dto.due_date);
    const documentType: RequestableDocumentType = dto.document_type === 'pnl_statement' ? 'profit_and_loss' : dto.document_type;
    const request = await this.db.forScope(auth).transactional(async (tx) => {
      await this.deals.findOr404(UnitOfWork.of(tx), dealId);
      const now = this.clock.now();
      const created = tx.create(DocumentRequest, {
        ...scopeFields(auth),
        dealId,
        documentType,
        message: dto.message ?? dto.description ?? null,
        dueDate: dto.due_date ?? null,
        requestedBy: auth.userId,
        createdAt: now,
        updatedAt: now,
      });
      await tx.flush();
      recordEvent(tx, auth, 'document_request.created', {
        dealId,
        actor: auth.actor,
        data: { deal_id: dealId, request_id: created.id, document_type: documentType, due_date: created.dueDate },
      });
      return created;
    });
    this.events.notify();
    return mapDocumentRequest(request, this.today());
  }

  async list(auth: AuthContext, dealId: number, query: LongPageQueryDto): Promise<Page<DocumentRequestDto>> {
    const em = this.db.forScope(auth);
    await this.deals.findOr404(UnitOfWork.of(em), dealId);
    const today = this.today();
    return paginate(
      pageWindow(query, 100),
      () => em.count(DocumentRequest, { dealId }),
      async (offset, limit) =>
        (await em.find(DocumentRequest, { dealId }, { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], offset, limit })).map((r) =>
          mapDocumentRequest(r, today),
        ),
    );
  }

  /** Form B `PATCH /doc-requests/{id}`: any of the three statuses; `fulfilled_at` follows. */
  async update(auth: AuthContext, requestId: number, dto: UpdateDocumentRequestDto): Promise<DocumentRequestDto> {
    let changed = false;
    const request = await this.db.forScope(auth).transactional(async (tx) => {
      const found = await tx.findOne(DocumentRequest, { id: requestId });
      if (!found) throw ApiError.notFound('Document request');
      const previous = found.status;
      if (previous === dto.status) return found;
      const now = this.clock.now();
      Object.assign(found, {
        status: dto.status,
        fulfilledAt: dto.status === 'fulfilled' ? now : null,
        fulfilledDocumentId: dto.status === 'fulfilled' ? found.fulfilledDocumentId : null,
        updatedAt: now,
      });
      recordEvent(tx, auth, 'document_request.updated', {
        dealId: found.dealId,
        actor: auth.actor,
        data: {
          deal_id: found.dealId,
          request_id: found.id,
          document_type: found.documentType,
          status: dto.status,
          previous_status: previous,
        },
      });
      changed = true;
      return found;
    });
    if (changed) this.events.notify();
    return mapDocumentRequest(request, this.today());
  }
}
