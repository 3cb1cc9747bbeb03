import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { adminQuery, realDatabaseUrl, templateDb } from './support/services';
import { findSecrets } from './support/secret-scan';

/**
 * Removes this run's template (PostgreSQL database or PGlite snapshot), then scans the logs every
 * test server wrote during the whole run (see TestApp.start): a credential or hash in them fails the run.
 */
export default async function globalTeardown(): Promise<void> {
  const dbUrl = realDatabaseUrl();
  if (dbUrl) await adminQuery(dbUrl, `drop database if exists ${templateDb()} with (force)`);
  const snapshot = process.env.LEDGERLENS_PGLITE_TEMPLATE;
  if (snapshot) rmSync(snapshot, { force: true });
  const logDir = process.env.LEDGERLENS_TEST_LOG_DIR;
  if (!logDir) return;
  const findings: string[] = [];
  for (const file of readdirSync(logDir))
    findings.push(...findSecrets(readFileSync(join(logDir, file), 'utf8')).map((f) => `${file}: ${f}`));
  if (findings.length) {
    throw new Error(
      `Secrets in the server logs of this run (${findings.length}; logs kept in ${logDir}):\n${findings.slice(0, 20).join('\n')}`,
    );
  }
  rmSync(logDir, { recursive: true, force: true });
}
