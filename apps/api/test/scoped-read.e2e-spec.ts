import { MikroORM } from '@mikro-orm/core';
import { Client } from 'pg';
import { Database } from '../src/platform/database/database.service';
import { READER_APPLICATION_NAME, READER_MAX_PREPARED, ScopedReader } from '../src/platform/database/scoped-read';
import { IdempotencyRecord } from '../src/platform/idempotency/idempotency.entity';
import { Deal } from '../src/modules/pipeline/entities/deal.entities';
import { Factories } from './support/factories';
import { TestApp } from './support/harness';
import { realDatabaseUrl } from './support/services';

/**
 * Database.rows (ScopedReader): the raw read path of the hot GETs. It must scope exactly like the
 * ORM filters, and hand back the entity's property names and types on both engines (the embedded
 * PGlite run and the PostgreSQL run).
 */
describe('scoped raw reads (Database.rows)', () => {
  let app: TestApp;
  let db: Database;
  let mine: Factories & { apiKey: string };
  let theirs: Factories & { apiKey: string };
  let live: Deal;
  let test: Deal;
  let foreign: Deal;

  beforeAll(async () => {
    app = await TestApp.start();
    db = app.get(Database);
    mine = await Factories.forNewOrg(app, 'Mine');
    theirs = await Factories.forNewOrg(app, 'Theirs');
    live = await mine.deal({ businessName: 'Live Bakery LLC', fundingAmountRequested: 12345.67, healthScore: 71.5 });
    const testEm = db.forScope({ organizationId: live.organizationId, livemode: false });
    test = testEm.create(Deal, {
      organizationId: live.organizationId,
      livemode: false,
      businessName: 'Test Bakery LLC',
      fundingAmountRequested: 5000,
    });
    await testEm.flush();
    foreign = await theirs.deal({ businessName: 'Foreign Deli LLC' });
  }, 120_000);
  afterAll(() => app?.close());

  const scope = (livemode = true) => ({ organizationId: live.organizationId, livemode });

  it('returns only the caller organization and mode, like the ORM filters', async () => {
    const rows = await db.rows(scope(), Deal, { columns: ['id', 'businessName'], orderBy: '"id"' });
    expect(rows.map((r) => r.businessName)).toEqual(['Live Bakery LLC']);
    const testRows = await db.rows(scope(false), Deal, { columns: ['id', 'businessName'] });
    expect(testRows.map((r) => r.id)).toEqual([test.id]);
    // A foreign id, asked for explicitly, is not there (the route answers 404).
    expect(await db.rows(scope(), Deal, { where: '"id" = ?', params: [foreign.id] })).toEqual([]);
    // The same through the ORM, for comparison: both paths agree.
    const orm = await db.forScope(scope()).find(Deal, {});
    expect(orm.map((d) => d.id)).toEqual(rows.map((r) => r.id));
  });

  it('maps columns to property names with the entity types (numbers, Dates, JSON, nulls)', async () => {
    const [row] = await db.rows(scope(), Deal, { where: '"id" = ?', params: [live.id], exclude: ['analysis'] });
    const [entity] = await db.forScope(scope()).find(Deal, { id: live.id });
    expect(row.fundingAmountRequested).toBe(12345.67);
    expect(row.healthScore).toBe(71.5);
    expect(row.createdAt).toBeInstanceOf(Date);
    expect(row.createdAt.toISOString()).toBe(entity.createdAt.toISOString());
    expect(row.dbaName).toBeNull();
    expect('analysis' in row).toBe(false);
    // every scalar property the entity has, with the same values
    const { analysis: _a, ...expected } = { ...entity } as Record<string, unknown>;
    expect(row).toEqual(expected);
  });

  it('binds ? placeholders after the scope parameters and refuses a count mismatch', async () => {
    const [{ total }] = (await db.rows(scope(), Deal, {
      raw: 'count(*)::int as "total"',
      where: '"business_name" ilike ? or "business_name" = ?',
      params: ['%bakery%', 'nothing'],
    })) as unknown as [{ total: number }];
    expect(total).toBe(1);
    // the select list's placeholders come after the scope's, before the condition's
    const [counts] = (await db.rows(scope(), Deal, {
      raw: 'count(*) filter (where "business_name" = ?)::int as "named", count(*) filter (where "funding_amount_requested" > ?)::int as "large"',
      rawParams: ['Live Bakery LLC', 20000],
      where: '"business_name" ilike ?',
      params: ['%bakery%'],
    })) as unknown as [{ named: number; large: number }];
    expect(counts).toEqual({ named: 1, large: 0 });
    await expect(db.rows(scope(), Deal, { where: '"id" = ?', params: [] })).rejects.toThrow(/0 params for 1 placeholders/);
    await expect(db.rows(scope(), Deal, { raw: 'count(*) filter (where "id" = ?)', rawParams: [1, 2] })).rejects.toThrow(
      /2 params for 1 placeholders/,
    );
  });

  it('refuses an entity that is not organization-scoped', async () => {
    await expect(db.rows(scope(), IdempotencyRecord)).rejects.toThrow(/not organization-scoped/);
  });

  it('scrubs values from driver errors', async () => {
    const err = (await db.rows(scope(), Deal, { where: '"no_such_column" = ?', params: ['secret-value-123'] }).catch((e) => e)) as Error;
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toMatch(/no_such_column/);
    expect(err.message).not.toContain('secret-value-123');
  });

  // The PostgreSQL run: reads take their connections from the reader's own pool (not the ORM's).
  const onPostgres = realDatabaseUrl() ? it : it.skip;

  onPostgres('reads through its own connections, and a connection the server drops is replaced', async () => {
    const url = app.running.config.databaseUrl!;
    const admin = new Client({ connectionString: url });
    await admin.connect();
    try {
      const readers = async () =>
        (
          await admin.query<{ pid: number }>(
            'select pid from pg_stat_activity where datname = current_database() and application_name = $1',
            [READER_APPLICATION_NAME],
          )
        ).rows.map((r) => r.pid);
      await Promise.all([1, 2, 3].map(() => db.rows(scope(), Deal, { columns: ['id'] })));
      const before = await readers();
      expect(before.length).toBeGreaterThan(0);
      // the server ends them (a restart, a failover, an operator): the pool must not hand them out again
      await admin.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1 and datname = current_database()',
        [READER_APPLICATION_NAME],
      );
      // every read succeeds, including those sent on a connection the pool has not yet seen end
      for (let i = 0; i < 3; i++) {
        const rows = await db.rows(scope(), Deal, { columns: ['id', 'businessName'] });
        expect(rows.map((r) => r.businessName)).toEqual(['Live Bakery LLC']);
      }
      const after = await readers();
      expect(after.length).toBeGreaterThan(0);
      expect(after.some((pid) => before.includes(pid))).toBe(false);
    } finally {
      await admin.end();
    }
  });

  /** The statements prepared in the session of the reader connection that runs this read (pg_prepared_statements is per session). */
  const preparedHere = async (reader: { rows: Database['rows'] }) => {
    const [row] = (await reader.rows(scope(), Deal, {
      raw: `(select count(*)::int from pg_prepared_statements where name like 'll_r%') as "prepared"`,
      limit: 1,
    })) as unknown as [{ prepared: number }];
    return row.prepared;
  };

  onPostgres('prepares each read once per connection, and sends them unprepared when told not to', async () => {
    // reads one after another go out on the same idle connection (the pool hands the last one back)
    for (let i = 0; i < 3; i++) await db.rows(scope(), Deal, { columns: ['id'], where: '"id" = ?', params: [live.id] });
    await db.rows(scope(), Deal, { columns: ['id', 'businessName'] });
    // the two reads above and this one, each prepared once however often it ran
    expect(await preparedHere(db)).toBe(3);

    const unprepared = new ScopedReader(app.get(MikroORM), { prepare: false });
    try {
      const rows = await unprepared.rows(scope(), Deal, { columns: ['id'], where: '"id" = ?', params: [live.id] });
      expect(rows).toEqual([{ id: live.id }]);
      expect(await preparedHere(unprepared)).toBe(0);
    } finally {
      await unprepared.close();
    }
  });

  onPostgres('prepares at most READER_MAX_PREPARED distinct statements, then sends the rest unprepared', async () => {
    const reader = new ScopedReader(app.get(MikroORM));
    try {
      for (let i = 0; i < READER_MAX_PREPARED + 5; i++) {
        const rows = await reader.rows(scope(), Deal, { columns: ['id'], where: `"id" = ? and ${i} >= 0`, params: [live.id] });
        expect(rows).toEqual([{ id: live.id }]);
      }
      expect(await preparedHere(reader)).toBe(READER_MAX_PREPARED);
    } finally {
      await reader.close();
    }
  });

  onPostgres('prepares a read again when a migration changed the type of a column it returns', async () => {
    const admin = new Client({ connectionString: app.running.config.databaseUrl! });
    await admin.connect();
    const read = () => db.rows(scope(), Deal, { columns: ['id', 'dbaName'], where: '"id" = ?', params: [live.id] });
    try {
      // prepared on every reader connection, as under load
      await Promise.all([1, 2, 3, 4].map(read));
      // PostgreSQL now refuses the prepared statements: "cached plan must not change result type"
      await admin.query('alter table "deals" alter column "dba_name" type text');
      for (let i = 0; i < 4; i++)
        expect(await Promise.all([read(), read()])).toEqual([[{ id: live.id, dbaName: null }], [{ id: live.id, dbaName: null }]]);
    } finally {
      await admin.query('alter table "deals" alter column "dba_name" type varchar(500)');
      await admin.end();
    }
    expect(await read()).toEqual([{ id: live.id, dbaName: null }]);
  });
});
