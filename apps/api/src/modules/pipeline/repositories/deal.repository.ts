import { LockMode, RequiredEntityData } from '@mikro-orm/core';
import { Injectable } from '@nestjs/common';
import type { AiSummaryMeta } from '@ledgerlens/underwriting';
import { Database } from '../../../platform/database/database.service';
import { ApiError, ErrorCode } from '../../../platform/errors/api-error';
import { Scope } from '../../../platform/database/tenant';
import { entityManagerOf, UnitOfWork } from '../../../platform/database/unit-of-work';
import { Deal, DealDecision, DEAL_STATUSES, DECISIONS } from '../entities/deal.entities';

/** Large JSON columns a deal summary does not show. */
const SUMMARY_EXCLUDES = ['report', 'analysis'] as const;

/**
 * The list orders: the column, then `id` the same way; each is read in order from its index
 * (Migration20261128090000_deal_read_indexes), forwards or backwards, so a page sorts nothing. Only
 * `health_score` is nullable: its deals without a score come last both ways (an index per direction).
 */
const ORDER_BY = {
  created_at: { asc: '"created_at" asc, "id" asc', desc: '"created_at" desc, "id" desc' },
  updated_at: { asc: '"updated_at" asc, "id" asc', desc: '"updated_at" desc, "id" desc' },
  business_name: { asc: '"business_name" asc, "id" asc', desc: '"business_name" desc, "id" desc' },
  status: { asc: '"status" asc, "id" asc', desc: '"status" desc, "id" desc' },
  health_score: { asc: '"health_score" asc nulls last, "id" asc', desc: '"health_score" desc nulls last, "id" desc' },
} as const;

export type DealSort = keyof typeof ORDER_BY;

/**
 * What `q` matches: the three names joined, indexed by `deals_search_trgm_index` (pg_trgm) with
 * this very text. A name matching `q` makes the joined text match too, so the index finds every
 * candidate, and the condition on each name keeps the result exactly what it was.
 */
const SEARCH_EXPRESSION = `(coalesce("business_name", '') || ' ' || coalesce("dba_name", '') || ' ' || coalesce("owner_name", ''))`;

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The stats' select list: its `?` are bound to the decisions, the statuses, then the week's and the month's start. */
const STATS_SELECT = [
  'count(*)::int as "total"',
  'avg("health_score")::float as "avg_health"',
  'avg("funding_amount_requested")::float as "avg_funding"',
  ...DECISIONS.map((d) => `count(*) filter (where "decision" = ?)::int as "decision_${d}"`),
  ...DEAL_STATUSES.map((s) => `count(*) filter (where "status" = ?)::int as "status_${s}"`),
  'count(*) filter (where "created_at" >= ?)::int as "this_week"',
  'count(*) filter (where "created_at" >= ?)::int as "this_month"',
].join(', ');

/** The deals a list shows: by status and a search of the three names (`q`, already trimmed). */
export interface DealFilter {
  status?: string;
  q?: string;
  /**
   * The word of `q` the trigram index reads (DealRepository.planSearch); the whole of `q` is still
   * what each name is matched against. Unset: `q` itself.
   */
  indexWord?: string;
}

/** Words of `q` the search may read the trigram index by: three characters or more (a shorter one has no whole trigram), at most four. */
function indexableWords(q: string): string[] {
  return [...new Set(q.split(/\s+/).filter((w) => w.length >= 3))].sort((a, b) => b.length - a.length).slice(0, 4);
}

/** The conditions of a filter, for the scoped raw path. */
function matching(filter: DealFilter): { where?: string; params?: unknown[] } {
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (filter.status) {
    conditions.push('"status" = ?');
    params.push(filter.status);
  }
  if (filter.q) {
    const like = `%${escapeLike(filter.q)}%`;
    conditions.push(`${SEARCH_EXPRESSION} ilike ? and ("business_name" ilike ? or "dba_name" ilike ? or "owner_name" ilike ?)`);
    params.push(`%${escapeLike(filter.indexWord ?? filter.q)}%`, like, like, like);
  }
  return conditions.length ? { where: conditions.join(' and '), params } : {};
}

/**
 * Every query on deals. The hot reads (list, stats, detail) take the caller's scope and go through
 * the scoped raw path (`Database.rows`: plain rows, no hydration, prepared statements on
 * PostgreSQL); the rest works in the caller's unit of work, whose tenant filters scope it.
 */
@Injectable()
export class DealRepository {
  constructor(private readonly db: Database) {}

  /**
   * The search as it is sent. Every word of `q` is in the joined names of every match, so the trigram
   * index may be read by any one of them and the names still matched against the whole of `q`: it is
   * read by the word PostgreSQL estimates rarest in the organization (a word in nearly every name,
   * "LLC", would make it intersect posting lists of every deal in the table). Searches are sent
   * unprepared (`prepare: false`), so each is planned with its pattern known: a rare word reads a few
   * index entries, a word in every name is filtered along the list's order index instead.
   */
  async planSearch(scope: Scope, filter: DealFilter): Promise<DealFilter> {
    const words = filter.q ? indexableWords(filter.q) : [];
    if (words.length < 2) return filter;
    const estimates = await Promise.all(
      words.map((w) => this.db.estimate(scope, Deal, { where: `${SEARCH_EXPRESSION} ilike ?`, params: [`%${escapeLike(w)}%`] })),
    );
    let best = 0;
    for (let i = 1; i < words.length; i++) if (estimates[i] < estimates[best]) best = i;
    return { ...filter, indexWord: words[best] };
  }

  /** One page of the organization's deals in this mode, without the report and analysis JSON. */
  findPageForOrg(scope: Scope, filter: DealFilter, sort: DealSort, order: 'asc' | 'desc', offset: number, limit: number): Promise<Deal[]> {
    return this.db.rows(scope, Deal, {
      ...matching(filter),
      exclude: SUMMARY_EXCLUDES,
      orderBy: ORDER_BY[sort][order],
      offset,
      limit,
      prepare: !filter.q,
    });
  }

  /** How many deals match, counting no further than `upTo`. */
  async countUpTo(scope: Scope, filter: DealFilter, upTo: number): Promise<number> {
    const select = { ...matching(filter), countUpTo: upTo, prepare: !filter.q };
    const [{ total }] = (await this.db.rows(scope, Deal, select)) as unknown as [{ total: number }];
    return total;
  }

  /** How many deals match, exactly. */
  async countMatching(scope: Scope, filter: DealFilter): Promise<number> {
    const [{ total }] = (await this.db.rows(scope, Deal, {
      ...matching(filter),
      raw: 'count(*)::int as "total"',
      prepare: !filter.q,
    })) as unknown as [{ total: number }];
    return total;
  }

  /** PostgreSQL's estimate of how many deals match: no row is read. */
  estimateMatching(scope: Scope, filter: DealFilter): Promise<number> {
    return this.db.estimate(scope, Deal, matching(filter));
  }

  /** The stats row: totals, averages, counts per decision and status, deals since the week's and the month's start. */
  async statsForOrg(scope: Scope, weekStart: string, monthStart: string): Promise<Record<string, number | null>> {
    const [row] = (await this.db.rows(scope, Deal, {
      raw: STATS_SELECT,
      rawParams: [...DECISIONS, ...DEAL_STATUSES, weekStart, monthStart],
    })) as unknown as [Record<string, number | null>];
    return row;
  }

  /** The deal with its report (not its analysis), or null. */
  async findDetail(scope: Scope, id: number): Promise<Deal | null> {
    const [deal] = await this.db.rows(scope, Deal, { where: '"id" = ?', params: [id], exclude: ['analysis'] });
    return deal ?? null;
  }

  /** The deal of the unit of work's scope, or 404; `lock` takes its row lock (in a transaction). */
  async getOr404(uow: UnitOfWork, id: number, options: { lock?: boolean; refresh?: boolean } = {}): Promise<Deal> {
    const deal = await entityManagerOf(uow).findOne(
      Deal,
      { id },
      { ...(options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {}), ...(options.refresh ? { refresh: true } : {}) },
    );
    if (!deal) throw ApiError.notFound('Deal', ErrorCode.DEAL_NOT_FOUND);
    return deal;
  }

  /** The deal, its row locked until the transaction ends (the lifecycle's refresh), or null when gone. */
  lockForScoring(tx: UnitOfWork, id: number): Promise<Deal | null> {
    return entityManagerOf(tx).findOne(Deal, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  }

  /** The deal, or null (no lock). */
  findById(uow: UnitOfWork, id: number): Promise<Deal | null> {
    return entityManagerOf(uow).findOne(Deal, { id });
  }

  /** Those of these deals the scope can see. */
  findMany(uow: UnitOfWork, ids: number[]): Promise<Deal[]> {
    return entityManagerOf(uow).find(Deal, { id: { $in: ids } });
  }

  /** Whether the deal exists in the unit of work's scope. */
  async exists(uow: UnitOfWork, id: number): Promise<boolean> {
    return (await entityManagerOf(uow).count(Deal, { id })) > 0;
  }

  /** The deals of the scope with one of these external references. */
  findByReferences(uow: UnitOfWork, refs: string[]): Promise<Deal[]> {
    return entityManagerOf(uow).find(Deal, { externalReference: { $in: refs } });
  }

  /** How many deals the scope has. */
  countAll(uow: UnitOfWork): Promise<number> {
    return entityManagerOf(uow).count(Deal, {});
  }

  /** Every deal of the scope, by id. */
  findAll(uow: UnitOfWork): Promise<Deal[]> {
    return entityManagerOf(uow).find(Deal, {}, { orderBy: { id: 'asc' } });
  }

  /** The deal of the scope with this external reference, or null. */
  findByReference(uow: UnitOfWork, externalReference: string): Promise<Deal | null> {
    return entityManagerOf(uow).findOne(Deal, { externalReference });
  }

  /** The newest deal with this EIN (`withoutReference`: only among deals with no external reference), or null. */
  findNewestByEin(uow: UnitOfWork, ein: string, withoutReference: boolean): Promise<Deal | null> {
    return entityManagerOf(uow).findOne(
      Deal,
      { ein, ...(withoutReference ? { externalReference: null } : {}) },
      { orderBy: { createdAt: 'desc', id: 'desc' } },
    );
  }

  /** Up to `limit` deals, newest first, whose business name contains `word` (case-insensitive): the ids and names only. */
  findNamesContaining(
    uow: UnitOfWork,
    word: string,
    withoutReference: boolean,
    limit: number,
  ): Promise<Pick<Deal, 'id' | 'businessName'>[]> {
    return entityManagerOf(uow).find(
      Deal,
      { businessName: { $ilike: `%${escapeLike(word)}%` }, ...(withoutReference ? { externalReference: null } : {}) },
      { orderBy: { createdAt: 'desc', id: 'desc' }, limit, fields: ['id', 'businessName'] },
    );
  }

  /** A new deal, written with the unit of work (flush it for the id). */
  create(uow: UnitOfWork, fields: RequiredEntityData<Deal>): Deal {
    return entityManagerOf(uow).create(Deal, fields);
  }

  /** Deletes the deal with the unit of work (its rows go with it: foreign keys cascade). */
  remove(uow: UnitOfWork, deal: Deal): void {
    entityManagerOf(uow).remove(deal);
  }

  /** The audit row of a decision. */
  addDecision(uow: UnitOfWork, fields: RequiredEntityData<DealDecision>): void {
    const em = entityManagerOf(uow);
    em.persist(em.create(DealDecision, fields));
  }

  /** Which of these external references a deal of the scope already holds. */
  async takenReferences(uow: UnitOfWork, refs: string[]): Promise<(string | null)[]> {
    if (!refs.length) return [];
    return (await entityManagerOf(uow).find(Deal, { externalReference: { $in: refs } }, { fields: ['externalReference'] })).map(
      (d) => d.externalReference,
    );
  }

  /** The business names of these deals of the scope (the report's related deals). */
  async businessNames(uow: UnitOfWork, ids: number[]): Promise<Map<number, string>> {
    return new Map(
      (await entityManagerOf(uow).find(Deal, { id: { $in: ids } }, { fields: ['id', 'businessName'] })).map((d) => [d.id, d.businessName]),
    );
  }

  /**
   * Stores the AI summary and its meta in the report of a deal still ready, unless this event's
   * summary is there already; only the two keys change, so a report written meanwhile keeps its
   * other sections.
   */
  async writeSummary(uow: UnitOfWork, scope: Scope, dealId: number, text: string, meta: AiSummaryMeta): Promise<void> {
    await entityManagerOf(uow).execute(
      `update "deals" set "report" = jsonb_set(jsonb_set("report", '{ai_summary}', ?::jsonb), '{ai_summary_meta}', ?::jsonb)
       where "id" = ? and "organization_id" = ? and "livemode" = ? and "status" = 'ready' and "report" is not null
         and coalesce("report" #>> '{ai_summary_meta,event_id}', '') <> ?`,
      [JSON.stringify(text), JSON.stringify(meta), dealId, scope.organizationId, scope.livemode, meta.event_id],
      'run',
    );
  }
}
