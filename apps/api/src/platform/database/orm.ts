import { join } from 'node:path';
import { MikroORM, Options, ReflectMetadataProvider } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { PGlite } from '@electric-sql/pglite';
import { EmbeddedPGliteDriver, ServerPostgreSqlDriver } from './drivers';
import { AppConfig } from '../config/config';
import { DataDirLock } from './data-dir-lock';
import { ENTITIES } from '../../entities';
import { MIGRATIONS } from '../../migrations';

export interface OrmHandle {
  orm: MikroORM;
  /** Which engine serves this process: `pglite` (embedded, in-process) or `postgresql`. */
  engine: 'pglite' | 'postgresql';
  close(): Promise<void>;
}

export interface OrmOptions {
  /** A PGlite instance made by the caller (tests load a migrated template snapshot). */
  pglite?: PGlite;
  migrate?: boolean;
}

function baseOptions(): Options {
  return {
    entities: ENTITIES,
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
export async function openOrm(config: AppConfig, options: OrmOptions = {}): Promise<OrmHandle> {
  let handle: OrmHandle;
  if (config.databaseUrl && !options.pglite) {
    const orm = await MikroORM.init({
      ...baseOptions(),
      driver: ServerPostgreSqlDriver,
      clientUrl: config.databaseUrl,
      pool: { min: 0, max: 10 },
    });
    handle = { orm, engine: 'postgresql', close: () => orm.close(true) };
  } else {
    let lock: DataDirLock | null = null;
    let pglite = options.pglite;
    if (!pglite) {
      lock = DataDirLock.acquire(config.dataDir);
      try {
        pglite = new PGlite(join(config.dataDir, 'pg'));
        await pglite.waitReady;
      } catch (err) {
        lock.release();
        throw err;
      }
    }
    const instance = pglite;
    const orm = await MikroORM.init({
      ...baseOptions(),
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
  if (options.migrate !== false) await handle.orm.getMigrator().up();
  return handle;
}
