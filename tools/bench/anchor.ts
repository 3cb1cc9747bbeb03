import { createHash } from 'node:crypto';
import Fastify from 'fastify';
import { Pool } from 'pg';

/**
 * The bench's anchor: a bare Fastify + pg server serving the deals API's HTTP contract for the
 * benchmarked routes (the same query parameters, the same JSON) with none of the framework (no
 * Nest, no ORM, no validation, no logging), and its own SQL: written from the contract and the
 * schema's indexes, as one would serve these pages by hand, not taken from the API's code. Data
 * routes are scoped to the benchmarked organization (ORG_ID) in live mode with no credential
 * check; the authenticated no-op looks the API key up in the database. Started by
 * tools/bench/api.ts on the same database, in the same run.
 *
 * Totals are always exact (`count(*)`): the contract allows an estimate above 10,000 matching
 * deals, which the normal run (10,000 deals) does not reach.
 */
const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is required`);
  return v;
};

const pool = new Pool({ connectionString: env('DATABASE_URL'), max: 10 });
const app = Fastify({ logger: false });
const ORG = Number(env('ORG_ID'));

/** A deal summary straight from SQL: snake_case names, numbers as numbers, the mode. */
const SUMMARY = `d.id, d.business_name, d.dba_name, d.owner_name, d.industry, d.entity_type, d.source_type, d.ein,
  d.external_reference, d.status, d.document_count, d.health_score, d.health_grade, d.avg_monthly_deposits::float8 as avg_monthly_deposits,
  d.avg_daily_balance::float8 as avg_daily_balance, d.funding_amount_requested::float8 as funding_amount_requested, d.screening_flags,
  d.decision, d.decided_at, 'live' as mode, d.created_at, d.updated_at`;

const ORDERS: Record<string, string> = {
  created_at: 'd.created_at',
  updated_at: 'd.updated_at',
  business_name: 'd.business_name',
  status: 'd.status',
  health_score: 'd.health_score',
};
const STATUSES = ['new', 'processing', 'under_review', 'ready', 'failed'];

const invalid = (detail: string) => ({ detail, code: 'VALIDATION_ERROR', errors: [] });

app.get('/v1/deals', async (request, reply) => {
  const query = request.query as Record<string, string | undefined>;
  const page = Number(query.page ?? 1);
  const perPage = Number(query.per_page ?? 25);
  if (!Number.isInteger(page) || page < 1 || !Number.isInteger(perPage) || perPage < 1 || perPage > 100)
    return reply.status(422).send(invalid('bad page'));
  const sort = ORDERS[query.sort ?? 'updated_at'];
  const dir = query.order === 'asc' ? 'asc' : 'desc';
  if (!sort || (query.status && !STATUSES.includes(query.status))) return reply.status(422).send(invalid('bad filter'));
  // $1 organization, then the filters' values
  const args: unknown[] = [ORG];
  let filter = 'd.organization_id = $1 and d.livemode';
  if (query.status) {
    args.push(query.status);
    filter += ` and d.status = $${args.length}`;
  }
  const q = query.q?.trim();
  if (q) {
    args.push(`%${q.replace(/[\\%_]/g, '\\$&')}%`);
    const p = `$${args.length}`;
    // the trigram index covers the three names joined; each name is then checked on its own
    filter += ` and (coalesce(d.business_name, '') || ' ' || coalesce(d.dba_name, '') || ' ' || coalesce(d.owner_name, '')) ilike ${p}
      and (d.business_name ilike ${p} or d.dba_name ilike ${p} or d.owner_name ilike ${p})`;
  }
  // nulls sort last both ways; the id breaks ties in the same direction
  const nulls = sort === 'd.health_score' ? ' nulls last' : '';
  const [counted, page_] = await Promise.all([
    pool.query<{ n: number }>(`select count(*)::int as n from deals d where ${filter}`, args),
    pool.query(
      `select ${SUMMARY} from deals d where ${filter} order by ${sort} ${dir}${nulls}, d.id ${dir} offset ${(page - 1) * perPage} limit ${perPage}`,
      args,
    ),
  ]);
  const total = counted.rows[0].n;
  const totalPages = Math.ceil(total / perPage);
  if (page > Math.max(1, totalPages)) return reply.status(422).send(invalid(`page ${page} is beyond the last page`));
  return { data: page_.rows, meta: { page, per_page: perPage, total, total_pages: totalPages } };
});

app.get('/v1/deals/stats', async () => {
  // One pass over the organization's deals grouped by status and decision; the rest adds up here.
  const { rows } = await pool.query<{
    status: string;
    decision: string | null;
    n: number;
    scored: number;
    score_sum: number | null;
    funding_sum: number;
    week: number;
    month: number;
  }>(
    `select status, decision, count(*)::int as n, count(health_score)::int as scored, sum(health_score)::float8 as score_sum,
       sum(funding_amount_requested)::float8 as funding_sum,
       count(*) filter (where created_at >= date_trunc('week', now() at time zone 'utc') at time zone 'utc')::int as week,
       count(*) filter (where created_at >= date_trunc('month', now() at time zone 'utc') at time zone 'utc')::int as month
     from deals where organization_id = $1 and livemode group by status, decision`,
    [ORG],
  );
  const byStatus: Record<string, number> = Object.fromEntries(STATUSES.map((s) => [s, 0]));
  const byDecision: Record<string, number> = { approve: 0, decline: 0, funded: 0 };
  let total = 0;
  let scored = 0;
  let scoreSum = 0;
  let fundingSum = 0;
  let week = 0;
  let month = 0;
  for (const r of rows) {
    total += r.n;
    byStatus[r.status] = (byStatus[r.status] ?? 0) + r.n;
    if (r.decision) byDecision[r.decision] = (byDecision[r.decision] ?? 0) + r.n;
    scored += r.scored;
    scoreSum += r.score_sum ?? 0;
    fundingSum += r.funding_sum;
    week += r.week;
    month += r.month;
  }
  const round2 = (v: number) => Math.round(v * 100) / 100;
  return {
    total_deals: total,
    avg_health_score: scored ? round2(scoreSum / scored) : null,
    avg_funding_requested: total ? round2(fundingSum / total) : null,
    total_approved: byDecision.approve,
    total_declined: byDecision.decline,
    total_funded: byDecision.funded,
    deals_this_week: week,
    deals_this_month: month,
    deals_by_status: byStatus,
  };
});

app.get('/v1/deals/:id', async (request, reply) => {
  const id = Number((request.params as { id: string }).id);
  if (!Number.isInteger(id) || id < 1 || id > 2 ** 31 - 1) return reply.status(422).send(invalid('bad id'));
  const { rows } = await pool.query(`select ${SUMMARY}, d.report from deals d where d.id = $1 and d.organization_id = $2 and d.livemode`, [
    id,
    ORG,
  ]);
  if (!rows[0]) return reply.status(404).send({ detail: 'Deal not found', code: 'DEAL_NOT_FOUND', errors: [] });
  const { report, ...deal } = rows[0] as { report: Record<string, unknown> | null };
  return Object.assign(deal, report ?? {});
});

// The authenticated no-op: credential check, then nothing.
app.get('/v1/bench-noop', async (request, reply) => {
  const key = request.headers['x-api-key'];
  const hash = typeof key === 'string' ? createHash('sha256').update(key).digest('hex') : null;
  const found = hash && (await pool.query('select 1 from api_keys where key_hash = $1 and revoked_at is null', [hash])).rowCount;
  if (!found) return reply.status(401).send({ detail: 'Invalid API key', code: 'INVALID_API_KEY', errors: [] });
  return reply.status(404).send({ detail: 'Not found', code: 'NOT_FOUND', errors: [] });
});

app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' }).then(
  (address) => console.log(`anchor listening on ${address}`),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, () => {
    void app
      .close()
      .then(() => pool.end())
      .then(() => process.exit(0));
  });
