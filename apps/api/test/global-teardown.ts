import { rmSync } from 'node:fs';
import { adminQuery, realDatabaseUrl, templateDb } from './support/services';

/** Removes this run's template (PostgreSQL database or PGlite snapshot). */
export default async function globalTeardown(): Promise<void> {
  const dbUrl = realDatabaseUrl();
  if (dbUrl) await adminQuery(dbUrl, `drop database if exists ${templateDb()} with (force)`);
  const snapshot = process.env.LEDGERLENS_PGLITE_TEMPLATE;
  if (snapshot) rmSync(snapshot, { force: true });
}
