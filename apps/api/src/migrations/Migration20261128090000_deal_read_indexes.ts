import { Migration } from '@mikro-orm/migrations';

/** What deal search (`GET /v1/deals?q=`) matches with ILIKE (DealsService's SEARCH_EXPRESSION, the same text). */
const DEAL_SEARCH_EXPRESSION = `(coalesce("business_name", '') || ' ' || coalesce("dba_name", '') || ' ' || coalesce("owner_name", ''))`;

/**
 * Indexes for every read of the deals API (docs/performance.md, "Session 8"), each led by the
 * organization and mode every read is scoped to:
 * - one per list order, ending in `id` (the tie-break), so a page is read from the index in order,
 *   forwards or backwards, with no sort of the organization's deals; `health_score` is nullable
 *   and sorted `nulls last` both ways, hence an index per direction;
 * - `(status, id)` with the stats' columns included: the stats and the totals are index-only
 *   scans, and it serves the `status` order and filter;
 * - a trigram index (pg_trgm) over business, DBA and owner name for `q`. pg_trgm is a trusted
 *   extension (PostgreSQL 13+: a database owner may create it); where it cannot be created, search
 *   stays correct and scans the organization's deals instead.
 * Built without CONCURRENTLY (migrations run in one transaction): on a large `deals` table, writes
 * to it wait while they are built.
 */
export class Migration20261128090000_deal_read_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop index if exists "deals_organization_id_livemode_updated_at_index";`);
    this.addSql(`create index "deals_list_updated_at_index" on "deals" ("organization_id", "livemode", "updated_at", "id");`);
    this.addSql(`create index "deals_list_created_at_index" on "deals" ("organization_id", "livemode", "created_at", "id");`);
    this.addSql(`create index "deals_list_business_name_index" on "deals" ("organization_id", "livemode", "business_name", "id");`);
    this.addSql(`create index "deals_list_health_score_index" on "deals" ("organization_id", "livemode", "health_score", "id");`);
    this.addSql(
      `create index "deals_list_health_score_desc_index" on "deals" ("organization_id", "livemode", "health_score" desc nulls last, "id" desc);`,
    );
    this.addSql(
      `create index "deals_status_index" on "deals" ("organization_id", "livemode", "status", "id") include ("decision", "health_score", "funding_amount_requested", "created_at");`,
    );
    this.addSql(
      `do $$ begin create extension if not exists pg_trgm; exception when others then raise notice 'pg_trgm is not available: deal search scans instead'; end $$;`,
    );
    this.addSql(
      `do $$ begin if exists (select 1 from pg_extension where extname = 'pg_trgm') then execute 'create index "deals_search_trgm_index" on "deals" using gin (${DEAL_SEARCH_EXPRESSION.replace(/'/g, "''")} gin_trgm_ops)'; end if; end $$;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "deals_search_trgm_index";`);
    for (const name of [
      'status',
      'list_health_score_desc',
      'list_health_score',
      'list_business_name',
      'list_created_at',
      'list_updated_at',
    ])
      this.addSql(`drop index if exists "deals_${name}_index";`);
    this.addSql(`create index "deals_organization_id_livemode_updated_at_index" on "deals" ("organization_id", "livemode", "updated_at");`);
  }
}
