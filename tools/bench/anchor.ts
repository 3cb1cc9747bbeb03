import { createHash } from 'node:crypto';
import Fastify from 'fastify';
import { Pool } from 'pg';

/**
 * The bench's anchor: a bare Fastify + pg server answering the same queries as the API for the
 * benchmarked routes, with none of the framework (no Nest, no ORM, no validation, no logging).
 * The data routes run only the queries the API runs for them, scoped to the benchmarked
 * organization (ORG_ID) in live mode, with no credential check; the authenticated no-op looks
 * the API key up in the database. Started by tools/bench/api.ts on the same database, same run.
 */
const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is required`);
  return v;
};

const pool = new Pool({ connectionString: env('DATABASE_URL'), max: 10 });
const app = Fastify({ logger: false });

const DEAL_COLUMNS = `"id", "organization_id", "livemode", "business_name", "dba_name", "owner_name", "industry", "entity_type",
  "source_type", "ein", "external_reference", "status", "funding_amount_requested", "document_count", "health_score", "health_grade",
  "avg_monthly_deposits", "avg_daily_balance", "screening_flags", "decision", "decided_at", "created_at", "updated_at"`;

interface Scope {
  organizationId: number;
  livemode: boolean;
}

async function authenticate(key: string | undefined): Promise<Scope | null> {
  if (!key) return null;
  const hash = createHash('sha256').update(key).digest('hex');
  const { rows } = await pool.query<{ organization_id: number; livemode: boolean }>(
    'select "organization_id", "livemode" from "api_keys" where "key_hash" = $1 and "revoked_at" is null',
    [hash],
  );
  return rows[0] ? { organizationId: rows[0].organization_id, livemode: rows[0].livemode } : null;
}

const unauthorized = { detail: 'Invalid API key', code: 'INVALID_API_KEY', errors: [] };

const scope: Scope = { organizationId: Number(env('ORG_ID')), livemode: true };

app.get('/v1/deals', async (request) => {
  const q = request.query as { page?: string; per_page?: string };
  const page = Math.max(1, Number(q.page ?? 1));
  const perPage = Math.min(100, Math.max(1, Number(q.per_page ?? 25)));
  const [count, rows] = await Promise.all([
    pool.query<{ count: string }>('select count(*) as "count" from "deals" where "organization_id" = $1 and "livemode" = $2', [
      scope.organizationId,
      scope.livemode,
    ]),
    pool.query(
      `select ${DEAL_COLUMNS} from "deals" where "organization_id" = $1 and "livemode" = $2
       order by "updated_at" desc nulls last, "id" desc nulls last limit $3 offset $4`,
      [scope.organizationId, scope.livemode, perPage, (page - 1) * perPage],
    ),
  ]);
  const total = Number(count.rows[0].count);
  return { data: rows.rows, meta: { page, per_page: perPage, total, total_pages: Math.ceil(total / perPage) } };
});

app.get('/v1/deals/stats', async () => {
  const { rows } = await pool.query(
    `select count(*)::int as total, avg(health_score)::float as avg_health, avg(funding_amount_requested)::float as avg_funding,
       count(*) filter (where decision = 'approve')::int as approve, count(*) filter (where decision = 'decline')::int as decline,
       count(*) filter (where decision = 'funded')::int as funded, count(*) filter (where status = 'new')::int as s_new,
       count(*) filter (where status = 'processing')::int as s_processing, count(*) filter (where status = 'under_review')::int as s_review,
       count(*) filter (where status = 'ready')::int as s_ready, count(*) filter (where status = 'failed')::int as s_failed,
       count(*) filter (where created_at >= date_trunc('week', now()))::int as this_week,
       count(*) filter (where created_at >= date_trunc('month', now()))::int as this_month
     from "deals" where "organization_id" = $1 and "livemode" = $2`,
    [scope.organizationId, scope.livemode],
  );
  return rows[0];
});

app.get('/v1/deals/:id', async (request, reply) => {
  const id = Number((request.params as { id: string }).id);
  const { rows } = await pool.query(
    `select ${DEAL_COLUMNS}, "report" from "deals" where "id" = $1 and "organization_id" = $2 and "livemode" = $3`,
    [id, scope.organizationId, scope.livemode],
  );
  if (!rows[0]) return reply.status(404).send({ detail: 'Deal not found', code: 'DEAL_NOT_FOUND', errors: [] });
  return rows[0];
});

// The authenticated no-op: credential check, then nothing.
app.get('/v1/bench-noop', async (request, reply) => {
  if (!(await authenticate(request.headers['x-api-key'] as string | undefined))) return reply.status(401).send(unauthorized);
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
