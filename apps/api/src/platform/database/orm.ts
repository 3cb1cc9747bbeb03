import { join } from 'node:path';
import { MikroORM, Options, ReflectMetadataProvider } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import type { Knex } from '@mikro-orm/postgresql';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { EmbeddedPGliteDriver, ServerPostgreSqlDriver } from './drivers';
import { AppConfig } from '../config/config';
import { DataDirLock } from './data-dir-lock';
import { MIGRATIONS } from '../../migrations';

export interface OrmHandle {
  orm: MikroORM;
  /** Which engine serves this process: `pglite` (embedded, in-process) or `postgresql`. */
  engine: 'pglite' | 'postgresql';
  close(): Promise<void>;
}

/** The entity classes the ORM maps: each module's list, gathered by the composition root. */
export type EntityList = readonly (abstract new (...args: never[]) => object)[];

export interface OrmOptions {
  /** A PGlite instance made by the caller (tests load a migrated template snapshot). */
  pglite?: PGlite;
  migrate?: boolean;
}

/**
 * Options of every embedded database: the PostgreSQL extensions its migrations create (pg_trgm for
 * deal search's index), bundled with PGlite and loaded when it starts.
 */
export const PGLITE_OPTIONS = { extensions: { pg_trgm } } satisfies PGliteOptions;

function baseOptions(entities: EntityList): Options {
  return {
    entities: [...entities] as Options['entities'],
    metadataProvider: ReflectMetadataProvider,
    extensions: [Migrator],
    migrations: { migrationsList: MIGRATIONS, transactional: true, allOrNothing: true, snapshot: false, silent: true },
    forceUtcTimezone: true,
    allowGlobalContext: false,
    discovery: { warnWhenNoEntities: false },
    debug: false,
  };
}

/** Opens the database the configuration names: PostgreSQL when DATABASE_URL is set, PGlite under DATA_DIR otherwise. */
export async function openOrm(config: AppConfig, entities: EntityList, options: OrmOptions = {}): Promise<OrmHandle> {
  let handle: OrmHandle;
  if (config.databaseUrl && !options.pglite) {
    const orm = await MikroORM.init({
      ...baseOptions(entities),
      driver: ServerPostgreSqlDriver,
      clientUrl: config.databaseUrl,
      pool: { min: 0, max: config.databasePoolMax },
    });
    handle = { orm, engine: 'postgresql', close: () => orm.close(true) };
  } else {
    let lock: DataDirLock | null = null;
    let pglite = options.pglite;
    if (!pglite) {
      lock = DataDirLock.acquire(config.dataDir);
      try {
        pglite = new PGlite(join(config.dataDir, 'pg'), PGLITE_OPTIONS);
        await pglite.waitReady;
      } catch (err) {
        lock.release();
        throw err;
      }
    }
    const instance = pglite;
    const orm = await MikroORM.init({
      ...baseOptions(entities),
      driver: EmbeddedPGliteDriver,
      dbName: 'postgres',
      driverOptions: { connection: { pglite: () => instance } },
    } as Options);
    handle = {
      orm,
      engine: 'pglite',
      close: async () => {
        await orm.close(true);
        if (!options.pglite) await instance.close();
        lock?.release();
      },
    };
  }
  if (options.migrate !== false) {
    try {
      if (handle.engine === 'postgresql') await underMigrationLock(handle.orm, () => handle.orm.getMigrator().up());
      else await handle.orm.getMigrator().up();
    } catch (err) {
      await handle.close();
      throw err;
    }
  }
  return handle;
}

/** Any fixed 64-bit key: every process migrating the same PostgreSQL database takes this lock first. */
export const MIGRATION_LOCK_KEY = 7_102_532_910_414_211n;

/**
 * Replicas that start at once (compose's api and worker services, a rolling deploy) migrate one at
 * a time: a PostgreSQL session-level advisory lock held on one connection of the pool while the
 * migrator runs; the next process finds the migrations applied and has nothing to do. The embedded
 * database needs none: DATA_DIR is locked to one process.
 */
async function underMigrationLock<T>(orm: MikroORM, migrate: () => Promise<T>): Promise<T> {
  const knex = (orm.em.getConnection() as unknown as { getKnex(): Knex }).getKnex();
  const client = knex.client as { acquireConnection(): Promise<PgConnection>; releaseConnection(c: PgConnection): Promise<void> };
  const conn = await client.acquireConnection();
  try {
    await conn.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
    try {
      return await migrate();
    } finally {
      await conn.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY.toString()]);
    }
  } finally {
    await client.releaseConnection(conn);
  }
}

interface PgConnection {
  query(sql: string, params: unknown[]): Promise<unknown>;
}
