import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { loadConfig } from '../src/platform/config/config';
import { openOrm, type OrmHandle } from '../src/platform/database/orm';
import { ENTITIES } from '../src/entities';
import { MIGRATIONS } from '../src/migrations';
import { adminQuery, realDatabaseUrl } from './support/services';

const real = realDatabaseUrl() ? describe : describe.skip;

/**
 * Replicas that start at once on an empty PostgreSQL database (compose brings up two api and two
 * worker containers together): each runs the migrator at boot, and the database ends migrated once.
 */
real('migrations on PostgreSQL', () => {
  const name = `ledgerlens_migrate_${randomBytes(4).toString('hex')}`;
  let url: string;
  beforeAll(async () => {
    await adminQuery(realDatabaseUrl()!, `create database ${name}`);
    const u = new URL(realDatabaseUrl()!);
    u.pathname = `/${name}`;
    url = u.toString();
  });
  afterAll(async () => {
    await adminQuery(realDatabaseUrl()!, `drop database if exists ${name} with (force)`);
  });

  it('four processes starting together migrate an empty database once, one at a time', async () => {
    const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: url });
    const handles: OrmHandle[] = await Promise.all([1, 2, 3, 4].map(() => openOrm(config, ENTITIES)));
    try {
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        const applied = await client.query<{ name: string }>('select name from mikro_orm_migrations order by id');
        expect(applied.rows.map((r) => r.name)).toEqual(MIGRATIONS.map((m) => m.name));
        // the lock is released: nobody holds it once the processes are up
        const held = await client.query(`select 1 from pg_locks where locktype = 'advisory' and granted`);
        expect(held.rowCount).toBe(0);
      } finally {
        await client.end();
      }
    } finally {
      await Promise.all(handles.map((h) => h.close()));
    }
  }, 120_000);
});
