import { Injectable } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { AuthContext } from '../../../platform/auth/auth-context';
import { Database } from '../../../platform/database/database.service';
import { Scope, scopeFields } from '../../../platform/database/tenant';
import { UniqueViolation } from '../../../platform/database/unique-violation';
import { UnitOfWork } from '../../../platform/database/unit-of-work';
import { ApiError, ErrorCode, validationEntry } from '../../../platform/errors/api-error';
import { recordEvent } from '../../../platform/events/events';
import { EventDispatcher } from '../../../platform/events/event-dispatcher';
import { pageWindow, toPage } from '../../../platform/pagination/pagination';
import { flatten } from '../../../platform/validation/validation.pipe';
import { Deal, DECISIONS, Decision, DecisionOffer } from '../entities/deal.entities';
import { DealRepository } from '../repositories/deal.repository';
import { DealLifecycleService } from './deal-lifecycle.service';
import { mapDealDetail, mapDealSummary, offerDetail } from '../mappers/deals.mapper';
import {
  BatchCreateResultDto,
  CreateDealDto,
  DealDetailDto,
  DealListDto,
  DealStatsDto,
  DealSummaryDto,
  DecisionDto,
  DecisionResultDto,
  ListDealsQueryDto,
  RescoreResultDto,
  UpdateDealDto,
} from '../dto/deal.dto';

export const MAX_BATCH_DEALS = 50;

/**
 * Up to this many matching deals a list's `meta.total` is exact; above it, it is PostgreSQL's
 * estimate (`meta.total_estimated`), so a page of a very large organization does not count all its
 * deals (README, "Lists"; docs/performance.md, session 8).
 */
export const EXACT_TOTAL_LIMIT = 10_000;

const FIELD_MAP = {
  business_name: 'businessName',
  funding_amount_requested: 'fundingAmountRequested',
  dba_name: 'dbaName',
  owner_name: 'ownerName',
  ein: 'ein',
  entity_type: 'entityType',
  industry: 'industry',
  source_type: 'sourceType',
} as const;

/** The fields of a new deal. */
type NewDeal = Parameters<DealRepository['create']>[1];

@Injectable()
export class DealsService {
  constructor(
    private readonly db: Database,
    private readonly deals: DealRepository,
    private readonly events: EventDispatcher,
    private readonly lifecycle: DealLifecycleService,
  ) {}

  /**
   * The deal of the unit of work's scope, or 404 DEAL_NOT_FOUND: how other modules check a deal
   * in their own unit of work (`UnitOfWork.of` their entity manager); `lock` takes its row lock.
   */
  findOr404(uow: UnitOfWork, id: number, options: { lock?: boolean; refresh?: boolean } = {}): Promise<Deal> {
    return this.deals.getOr404(uow, id, options);
  }

  /** The deal of the unit of work's scope, or null (other modules, in their own unit of work). */
  findById(uow: UnitOfWork, id: number): Promise<Deal | null> {
    return this.deals.findById(uow, id);
  }

  /** The deals of the unit of work's scope with one of these external references (other modules, in their own unit of work). */
  findByReferences(uow: UnitOfWork, refs: string[]): Promise<Deal[]> {
    return refs.length ? this.deals.findByReferences(uow, refs) : Promise.resolve([]);
  }

  /** How many deals the unit of work's scope has (other modules, in their own unit of work). */
  count(uow: UnitOfWork): Promise<number> {
    return this.deals.countAll(uow);
  }

  /** Every deal of the unit of work's scope, by id (a CRM's full sync). */
  listAll(uow: UnitOfWork): Promise<Deal[]> {
    return this.deals.findAll(uow);
  }

  /** The deal with this external reference, or null (other modules, in their own unit of work). */
  findByReference(uow: UnitOfWork, externalReference: string): Promise<Deal | null> {
    return this.deals.findByReference(uow, externalReference);
  }

  /** The newest deal with this EIN, or null; `withoutReference`: among deals with no external reference only. */
  findNewestByEin(uow: UnitOfWork, ein: string, withoutReference: boolean): Promise<Deal | null> {
    return this.deals.findNewestByEin(uow, ein, withoutReference);
  }

  /** Up to `limit` deals, newest first, whose business name contains `word`: ids and names (matching by name). */
  findNamesContaining(
    uow: UnitOfWork,
    word: string,
    withoutReference: boolean,
    limit: number,
  ): Promise<Pick<Deal, 'id' | 'businessName'>[]> {
    return this.deals.findNamesContaining(uow, word, withoutReference, limit);
  }

  /**
   * A new deal in the unit of work (other modules, in their own transaction: they record its
   * `deal.created` once it has its id).
   */
  newDeal(uow: UnitOfWork, fields: NewDeal): Deal {
    return this.deals.create(uow, fields);
  }

  /** Those of these deals the caller's scope can see. */
  findMany(scope: Scope, ids: number[]): Promise<Deal[]> {
    return this.deals.findMany(this.db.unitOfWork(scope), ids);
  }

  /** Whether the deal exists in the caller's scope. */
  exists(scope: Scope, id: number): Promise<boolean> {
    return this.deals.exists(this.db.unitOfWork(scope), id);
  }

  /** The business names of these deals of the caller's scope (activity feeds). */
  businessNames(scope: Scope, ids: number[]): Promise<Map<number, string>> {
    return this.deals.businessNames(this.db.unitOfWork(scope), ids);
  }

  async list(auth: AuthContext, query: ListDealsQueryDto): Promise<DealListDto> {
    // Plain scoped rows (DealRepository: the scoped raw path): the hottest read path, without query
    // building or hydration; the count and the page run concurrently on two connections, and a
    // summary reads neither the report nor the analysis JSON (docs/performance.md).
    const filter = await this.deals.planSearch(auth, { status: query.status, q: query.q?.trim() || undefined });
    const window = pageWindow(query);
    // One row past the page tells whether another page follows, whatever the total says.
    const [counted, rows] = await Promise.all([
      this.deals.countUpTo(auth, filter, EXACT_TOTAL_LIMIT + 1),
      this.deals.findPageForOrg(
        auth,
        filter,
        query.sort ?? 'updated_at',
        query.order === 'asc' ? 'asc' : 'desc',
        window.offset,
        window.perPage + 1,
      ),
    ]);
    const more = rows.length > window.perPage;
    if (more) rows.pop();
    const data = rows.map(mapDealSummary);
    if (counted <= EXACT_TOTAL_LIMIT) return toPage(window, counted, data);
    // More than EXACT_TOTAL_LIMIT deals match. The page bound stays exact: a page with deals is
    // within it, an empty page past the first is beyond it (422, with the exact last page).
    if (!rows.length && window.page > 1) {
      return toPage(window, await this.deals.countMatching(auth, filter), data);
    }
    // The last page knows the exact total; before it, the estimate, never below the deals up to
    // and one past this page (so total_pages always reaches the next page while there is one).
    const seen = window.offset + rows.length;
    if (!more) return toPage(window, seen, data);
    const estimate = await this.deals.estimateMatching(auth, filter);
    const page = toPage(window, Math.max(estimate, seen + 1, EXACT_TOTAL_LIMIT + 1), data);
    return { data: page.data, meta: { ...page.meta, total_estimated: true } };
  }

  /** One aggregate query on the scoped raw path (DealRepository.statsForOrg), scoped like every other read. */
  async stats(auth: AuthContext, now = new Date()): Promise<DealStatsDto> {
    const weekStart = startOfIsoWeek(now).toISOString();
    const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();
    const row = await this.deals.statsForOrg(auth, weekStart, monthStart);
    const round2 = (v: number | null) => (v === null || v === undefined ? null : Math.round(Number(v) * 100) / 100);
    const n = (key: string) => Number(row[key] ?? 0);
    return {
      total_deals: n('total'),
      avg_health_score: round2(row.avg_health),
      avg_funding_requested: round2(row.avg_funding),
      total_approved: n('decision_approve'),
      total_declined: n('decision_decline'),
      total_funded: n('decision_funded'),
      deals_this_week: n('this_week'),
      deals_this_month: n('this_month'),
      deals_by_status: {
        new: n('status_new'),
        processing: n('status_processing'),
        under_review: n('status_under_review'),
        ready: n('status_ready'),
        failed: n('status_failed'),
      },
    };
  }

  async create(auth: AuthContext, dto: CreateDealDto): Promise<DealSummaryDto> {
    const [deal] = await this.insert(auth, [dto]);
    return mapDealSummary(deal);
  }

  /** New deals with their deal.created events, in one transaction; a reference taken meanwhile is 409. */
  private async insert(auth: AuthContext, dtos: CreateDealDto[]): Promise<Deal[]> {
    const deals = await this.db
      .unitOfWork(auth)
      .transaction(async (tx) => {
        const created = dtos.map((dto) => this.build(tx, auth, dto));
        await tx.flush();
        for (const deal of created) {
          recordEvent(tx, auth, 'deal.created', {
            dealId: deal.id,
            actor: auth.actor,
            data: { deal_id: deal.id, business_name: deal.businessName },
          });
        }
        return created;
      })
      .catch((err: unknown) => {
        if (err instanceof UniqueViolation) {
          const refs = dtos.map((d) => d.external_reference).filter(Boolean);
          throw new ApiError(
            ErrorCode.DUPLICATE_RESOURCE,
            `A deal with external_reference ${refs.map((r) => `"${r}"`).join(' or ')} already exists`,
          );
        }
        throw err;
      });
    this.events.notify();
    return deals;
  }

  async get(auth: AuthContext, id: number): Promise<DealDetailDto> {
    const deal = await this.deals.findDetail(auth, id);
    if (!deal) throw ApiError.notFound('Deal', ErrorCode.DEAL_NOT_FOUND);
    return mapDealDetail(deal);
  }

  /** Recomputes the deal's screening, report and recommendation from its stored, corrected transactions (the lifecycle's rescore). */
  async rescore(auth: AuthContext, id: number): Promise<RescoreResultDto> {
    const { deal, rescored } = await this.lifecycle.rescore(auth, id, auth.actor);
    return {
      status: 'ok',
      success: true,
      message: rescored
        ? 'Deal rescored from its stored, corrected transactions'
        : 'Nothing changed since the deal was last scored (same documents and corrections): nothing was recomputed',
      deal_id: deal.id,
      rescored,
      deal: mapDealDetail(deal),
    };
  }

  async update(auth: AuthContext, id: number, dto: UpdateDealDto): Promise<DealDetailDto> {
    const uow = this.db.unitOfWork(auth);
    const deal = await this.deals.getOr404(uow, id);
    const changed: string[] = [];
    for (const [field, prop] of Object.entries(FIELD_MAP)) {
      const value = (dto as Record<string, unknown>)[field];
      if (value === undefined) continue;
      if (value === null && (field === 'business_name' || field === 'funding_amount_requested')) {
        throw ApiError.validation([validationEntry('body', [field], `${field} cannot be null`, 'type_error.none.not_allowed')]);
      }
      const current = (deal as unknown as Record<string, unknown>)[prop];
      if (current !== value) {
        (deal as unknown as Record<string, unknown>)[prop] = value;
        changed.push(field);
      }
    }
    if (changed.length) {
      await uow.transaction(async (tx) => {
        deal.updatedAt = new Date();
        recordEvent(tx, auth, 'deal.updated', { dealId: deal.id, actor: auth.actor, data: { deal_id: deal.id, changed_fields: changed } });
      });
      this.events.notify();
    }
    return mapDealDetail(deal);
  }

  async remove(auth: AuthContext, id: number) {
    const uow = this.db.unitOfWork(auth);
    const deal = await this.deals.getOr404(uow, id);
    await uow.transaction(async (tx) => {
      recordEvent(tx, auth, 'deal.deleted', {
        dealId: deal.id,
        actor: auth.actor,
        data: { deal_id: deal.id, business_name: deal.businessName },
      });
      this.deals.remove(tx, deal);
    });
    this.events.notify();
    return { status: 'ok' as const, success: true as const, message: `Deal ${id} and all its data were deleted`, deal_id: id };
  }

  async decide(auth: AuthContext, id: number, dto: DecisionDto): Promise<DecisionResultDto> {
    const value: unknown = dto.decision;
    if (typeof value !== 'string' || !(DECISIONS as readonly string[]).includes(value)) {
      throw new ApiError(ErrorCode.INVALID_DECISION, `decision must be one of: ${DECISIONS.join(', ')}`, [
        validationEntry('body', ['decision'], `decision must be one of: ${DECISIONS.join(', ')}`, 'value_error.enum'),
      ]);
    }
    const decision = value as Decision;
    if (dto.offer && decision === 'decline')
      throw ApiError.validation([
        validationEntry('body', ['offer'], 'an offer goes with approve or funded, not decline', 'value_error.offer'),
      ]);
    const offer: DecisionOffer | null = dto.offer
      ? {
          amount: dto.offer.amount,
          factor_rate: dto.offer.factor_rate,
          term_months: dto.offer.term_months,
          holdback_percent: dto.offer.holdback_percent,
        }
      : null;
    const reason = dto.reason?.trim() || null;
    const uow = this.db.unitOfWork(auth);
    const deal = await this.deals.getOr404(uow, id);
    const previous = deal.decision;
    const decidedAt = new Date();
    await uow.transaction(async (tx) => {
      Object.assign(deal, {
        decision,
        decidedAt,
        decisionReason: reason,
        decisionOffer: offer,
        decidedBy: auth.actor,
        updatedAt: decidedAt,
      });
      this.deals.addDecision(tx, {
        ...scopeFields(auth),
        dealId: deal.id,
        decision,
        previousDecision: previous,
        actor: auth.actor,
        reason,
        offer,
        createdAt: decidedAt,
      });
      recordEvent(tx, auth, 'deal.decision', {
        dealId: deal.id,
        actor: auth.actor,
        data: { deal_id: deal.id, decision, previous_decision: previous, reason, offer },
      });
    });
    this.events.notify();
    return {
      status: 'ok',
      success: true,
      message: `Decision ${decision} recorded`,
      deal_id: deal.id,
      decision,
      previous_decision: previous,
      decided_at: decidedAt.toISOString(),
      reason,
      offer: offerDetail(offer),
    };
  }

  /** Creates the valid items, reports each invalid one with its index and errors (spec: POST /deals/batch). */
  async createBatch(auth: AuthContext, body: unknown): Promise<BatchCreateResultDto> {
    const items = Array.isArray(body) ? body : (body as { deals?: unknown })?.deals;
    if (!Array.isArray(items)) {
      throw ApiError.validation([
        validationEntry('body', [], 'Body must be a JSON array of deals (or {"deals": [...]})', 'type_error.list'),
      ]);
    }
    if (items.length === 0 || items.length > MAX_BATCH_DEALS) {
      throw ApiError.validation([
        validationEntry('body', [], `Send between 1 and ${MAX_BATCH_DEALS} deals per request`, 'value_error.list.max_items'),
      ]);
    }
    const valid: { index: number; dto: CreateDealDto }[] = [];
    const errors: BatchCreateResultDto['errors'] = [];
    for (const [index, item] of items.entries()) {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) {
        errors.push({
          index,
          detail: 'Validation failed',
          errors: [validationEntry('body', [index], 'Each deal must be a JSON object', 'type_error.object')],
        });
        continue;
      }
      const dto = plainToInstance(CreateDealDto, item);
      const problems = await validate(dto, { whitelist: true, forbidUnknownValues: false });
      if (problems.length) errors.push({ index, detail: 'Validation failed', errors: flatten(problems, 'body', [index]) });
      else valid.push({ index, dto });
    }
    // A reference already held by a deal, or sent twice in the batch, is an error of that item.
    const refs = valid.map(({ dto }) => dto.external_reference).filter((r): r is string => !!r);
    const taken = new Set(await this.deals.takenReferences(this.db.unitOfWork(auth), refs));
    for (const item of [...valid]) {
      const ref = item.dto.external_reference;
      if (!ref) continue;
      if (taken.has(ref)) {
        valid.splice(valid.indexOf(item), 1);
        errors.push({
          index: item.index,
          detail: `A deal with external_reference "${ref}" already exists`,
          errors: [
            validationEntry(
              'body',
              [item.index, 'external_reference'],
              `external_reference "${ref}" is already used`,
              'value_error.duplicate',
            ),
          ],
        });
      }
      taken.add(ref);
    }
    errors.sort((a, b) => a.index - b.index);
    const inserted = await this.insert(
      auth,
      valid.map((v) => v.dto),
    );
    const created = valid.map(({ index }, i) => ({ index, deal: inserted[i] }));
    return {
      created: created.map(({ index, deal }) => ({
        index,
        id: deal.id,
        business_name: deal.businessName,
        status: deal.status,
        funding_amount_requested: deal.fundingAmountRequested,
        created_at: deal.createdAt.toISOString(),
      })),
      errors,
      total_created: created.length,
      total_errors: errors.length,
    };
  }

  private build(tx: UnitOfWork, auth: AuthContext, dto: CreateDealDto): Deal {
    const now = new Date();
    return this.deals.create(tx, {
      ...scopeFields(auth),
      businessName: dto.business_name,
      fundingAmountRequested: dto.funding_amount_requested,
      dbaName: dto.dba_name ?? null,
      ownerName: dto.owner_name ?? null,
      ein: dto.ein ?? null,
      entityType: dto.entity_type ?? null,
      industry: dto.industry ?? null,
      sourceType: dto.source_type ?? null,
      externalReference: dto.external_reference ?? null,
      createdAt: now,
      updatedAt: now,
    });
  }
}

function startOfIsoWeek(now: Date): Date {
  const day = (now.getUTCDay() + 6) % 7;
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - day));
}
