import { Client } from 'pg';
import { Database } from '../src/platform/database/database.service';
import { DEAL_SORTS } from '../src/modules/pipeline/dto/deal.dto';
import { TestApp } from './support/harness';
import { realDatabaseUrl } from './support/services';

const real = realDatabaseUrl() ? describe : describe.skip;

/** A node of PostgreSQL's EXPLAIN (FORMAT JSON) plan. */
interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'Plan Rows': number;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/** `Sort 800 rows <- Index Scan deals_list_updated_at_index`: what the assertions print on failure. */
function describePlan(plan: PlanNode): string {
  return nodes(plan)
    .map(
      (n) =>
        `${n['Node Type']}${n['Index Name'] ? ` ${n['Index Name']}` : ''}${n['Relation Name'] ? ` on ${n['Relation Name']}` : ''} (${n['Plan Rows']} rows)`,
    )
    .join(' <- ');
}

/**
 * Every statement the deals API sends for a list (each filter, order and direction, a later page,
 * the total), a search, a deal and the stats is read from its index on PostgreSQL: no sort of the
 * organization's deals for a page, no sequential scan of `deals`, search through the trigram index
 * (docs/performance.md, session 8). The statements are the product's own, caught as the reader
 * sends them, and planned both as sent (custom plan, the values known) and as the reader's prepared
 * statements end up being planned after five runs (generic plan).
 */
real('deals API query plans (PostgreSQL)', () => {
  let app: TestApp;
  let key: string;
  let orgId: number;
  let client: Client;
  const sent: { sql: string; values: unknown[]; prepared: boolean }[] = [];
  /** The organization's live deals; as many again in test mode, five times as many in another organization. */
  const DEALS = 4000;

  beforeAll(async () => {
    app = await TestApp.start();
    const org = await app.newOrg('Plans');
    const other = await app.newOrg('Other');
    key = org.api_key;
    orgId = org.organization.id;
    client = new Client({ connectionString: app.running.config.databaseUrl! });
    await client.connect();
    const seed = (orgId: number, livemode: boolean, count: number) =>
      client.query(
        `insert into deals (organization_id, livemode, business_name, dba_name, owner_name, status, funding_amount_requested,
           health_score, decision, created_at, updated_at)
         select $1, $2, 'Business ' || g || ' LLC', case when g % 3 = 0 then 'DBA ' || g end, 'Owner ' || g,
           (array['new','processing','under_review','ready','failed'])[1 + g % 5], 10000 + (g % 90) * 1000,
           case when g % 5 = 3 then 40 + g % 60 end, (array[null,'approve','decline','funded'])[1 + g % 4],
           now() - (g || ' minutes')::interval, now() - ((g * 7) % 100000 || ' seconds')::interval
         from generate_series(1, $3::int) g`,
        [orgId, livemode, count],
      );
    await seed(org.organization.id, true, DEALS);
    await seed(org.organization.id, false, DEALS);
    await seed(other.organization.id, true, 5 * DEALS);
    await client.query('vacuum analyze deals');
    // the statements the reader sends, with their values
    const reader = (app.get(Database) as unknown as { reader: object }).reader;
    const execute = (reader as { execute: (sql: string, values: unknown[], prepare?: boolean) => Promise<unknown[]> }).execute;
    jest.spyOn(reader as { execute: typeof execute }, 'execute').mockImplementation(function (this: unknown, sql, values, prepare) {
      sent.push({ sql, values, prepared: prepare !== false });
      return execute.call(this, sql, values, prepare);
    });
  }, 120_000);
  afterAll(async () => {
    await client?.end();
    await app?.close();
  });

  /**
   * The statements one request sends, each with its custom plan and, for a statement the reader
   * prepares, its generic plan (a statement sent unprepared is always planned with its values).
   */
  async function plansOf(path: string): Promise<{ sql: string; values: unknown[]; custom: PlanNode; generic: PlanNode }[]> {
    sent.length = 0;
    const res = await app.request('GET', path, { key });
    expect(res.status).toBe(200);
    const plans = [];
    for (const { sql, values, prepared } of sent.filter((s) => !s.sql.startsWith('explain'))) {
      const custom = (await client.query({ text: `explain (format json) ${sql}`, values })).rows[0]['QUERY PLAN'][0].Plan as PlanNode;
      if (!prepared) {
        plans.push({ sql, values, custom, generic: custom });
        continue;
      }
      await client.query('set plan_cache_mode = force_generic_plan');
      await client.query(`prepare plan_check as ${sql}`);
      const args = values.map((v) => (typeof v === 'string' ? client.escapeLiteral(v) : String(v))).join(', ');
      const generic = (await client.query(`explain (format json) execute plan_check(${args})`)).rows[0]['QUERY PLAN'][0].Plan as PlanNode;
      await client.query('deallocate plan_check');
      await client.query('reset plan_cache_mode');
      plans.push({ sql, values, custom, generic });
    }
    expect(plans.length).toBeGreaterThan(0);
    return plans;
  }

  /** No sort over more than `maxSorted` rows, no sequential scan of deals, and `index` used when named. */
  function expectIndexed(
    plans: { sql: string; custom: PlanNode; generic: PlanNode }[],
    check: { index?: RegExp; maxSorted?: number } = {},
  ) {
    for (const { sql, custom, generic } of plans)
      for (const plan of [custom, generic]) {
        const all = nodes(plan);
        const where = `${describePlan(plan)}\n  for ${sql}`;
        const sorts = all.filter((n) => /Sort$/.test(n['Node Type']) && n['Plan Rows'] > (check.maxSorted ?? 0));
        expect({ sorts: sorts.length, where }).toEqual({ sorts: 0, where });
        const seqScans = all.filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'deals');
        expect({ seqScans: seqScans.length, where }).toEqual({ seqScans: 0, where });
        // the total is counted from whichever index is smallest; the named one serves the rest
        if (check.index && !sql.startsWith('select count(*)::int as "total" from ('))
          expect({ usesIndex: all.some((n) => check.index!.test(n['Index Name'] ?? '')), where }).toEqual({ usesIndex: true, where });
      }
  }

  it('a list page in the default order (newest update first) reads its index in order, with its total', async () => {
    expectIndexed(await plansOf('/v1/deals'), { index: /^deals_list_updated_at_index$/ });
    expectIndexed(await plansOf('/v1/deals?page=7&per_page=50'), { index: /^deals_list_updated_at_index$/ });
  });

  it.each(DEAL_SORTS.flatMap((sort) => (['asc', 'desc'] as const).map((order) => [sort, order] as const)))(
    'a list page sorted by %s %s reads an index in that order',
    async (sort, order) => {
      const index = sort === 'status' ? /^deals_status_index$/ : new RegExp(`^deals_list_${sort}(_desc)?_index$`);
      expectIndexed(await plansOf(`/v1/deals?sort=${sort}&order=${order}&page=3`), { index });
    },
  );

  it('a list filtered by status, in the default order and in its own', async () => {
    expectIndexed(await plansOf('/v1/deals?status=ready'));
    expectIndexed(await plansOf('/v1/deals?status=under_review&sort=status&order=asc'), { index: /^deals_status_index$/ });
  });

  it('a search goes through the trigram index and sorts only its matches', async () => {
    expectIndexed(await plansOf('/v1/deals?q=Owner%201234'), { index: /^deals_search_trgm_index$/, maxSorted: 100 });
    expectIndexed(await plansOf('/v1/deals?q=dba%20300&sort=business_name'), { index: /^deals_search_trgm_index$/, maxSorted: 100 });
  });

  it('a search reads the trigram index by its rarest word, and a word in every name along the list order', async () => {
    // "Owner" is in every deal's name: the index is read by "1234", and the names matched against the whole search
    const plans = await plansOf('/v1/deals?q=Owner%201234');
    for (const { values } of plans) {
      expect(values).toContain('%1234%');
      expect(values).toContain('%Owner 1234%');
      expect(values.filter((v) => v === '%Owner 1234%')).toHaveLength(3);
    }
    expectIndexed(plans, { index: /^deals_search_trgm_index$/, maxSorted: 100 });
    const res = await app.request('GET', '/v1/deals?q=owner%201234', { key });
    expect(res.body.data.map((d: { owner_name: string }) => d.owner_name)).toEqual(['Owner 1234']);
    // one word in every name: the list's order index, filtered, not the posting list of every deal
    expectIndexed(await plansOf('/v1/deals?q=Owner'), { index: /^deals_list_updated_at_index$/ });
  });

  it('a deal by id reads the primary key', async () => {
    const [{ id }] = (
      await client.query('select id from deals where organization_id = $1 and livemode and owner_name = $2', [orgId, 'Owner 2000'])
    ).rows;
    expectIndexed(await plansOf(`/v1/deals/${id}`), { index: /^deals_pkey$/ });
  });

  it('the stats are an index-only scan of the status index', async () => {
    const plans = await plansOf('/v1/deals/stats');
    expectIndexed(plans, { index: /^deals_status_index$/ });
    for (const { custom, generic } of plans)
      for (const plan of [custom, generic]) expect(nodes(plan).map((n) => n['Node Type'])).toContain('Index Only Scan');
  });
});
