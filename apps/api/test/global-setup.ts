import 'reflect-metadata';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { loadConfig } from '../src/platform/config/config';
import { openOrm, PGLITE_OPTIONS } from '../src/platform/database/orm';
import { ENTITIES } from '../src/entities';
import { realDatabaseUrl, realRedisUrl, adminQuery, templateDb } from './support/services';
import { reportMissingSystemTools } from './support/system-tools';

/**
 * One migrated database template per run: every suite starts from a copy (PGlite: a data-dir
 * snapshot; PostgreSQL: CREATE DATABASE ... TEMPLATE), never from a fresh initdb.
 */
export default async function globalSetup(): Promise<void> {
  // a suite that needs a missing system program is skipped: one line each here (CI: a failure)
  reportMissingSystemTools(['chromium', 'openssl']);
  // Every test server logs (at info) into this folder; global teardown scans it for secrets.
  process.env.LEDGERLENS_TEST_LOG_DIR = mkdtempSync(join(tmpdir(), 'ledgerlens-test-logs-'));
  try {
    await prepareTemplate();
  } finally {
    // MikroORM keeps entity metadata on globalThis; a suite run in this same process must not
    // inherit the setup's copies (they come from another module realm).
    for (const key of Object.keys(globalThis)) if (key.startsWith('mikro-orm-')) delete (globalThis as Record<string, unknown>)[key];
  }
}

async function prepareTemplate(): Promise<void> {
  const dbUrl = realDatabaseUrl();
  if (dbUrl) {
    process.env.LEDGERLENS_TEST_TEMPLATE_DB = `ledgerlens_test_template_${process.pid}`;
    await adminQuery(dbUrl, `drop database if exists ${templateDb()} with (force)`);
    await adminQuery(dbUrl, `create database ${templateDb()}`);
    const url = new URL(dbUrl);
    url.pathname = `/${templateDb()}`;
    const handle = await openOrm(loadConfig({ NODE_ENV: 'test', DATABASE_URL: url.toString() }), ENTITIES);
    await handle.close();
    const redisUrl = realRedisUrl();
    if (redisUrl) {
      const { Redis } = await import('ioredis');
      const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 3000 });
      try {
        await redis.ping();
      } finally {
        redis.disconnect();
      }
    }
    return;
  }
  const pglite = new PGlite(PGLITE_OPTIONS);
  await pglite.waitReady;
  const handle = await openOrm(loadConfig({ NODE_ENV: 'test' }), ENTITIES, { pglite });
  await handle.close();
  const blob = await pglite.dumpDataDir('none');
  await pglite.close();
  const dir = join(tmpdir(), 'ledgerlens-test');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `template-${process.pid}.tar`);
  writeFileSync(file, Buffer.from(await blob.arrayBuffer()));
  process.env.LEDGERLENS_PGLITE_TEMPLATE = file;
}
