import { Client } from 'pg';

/** The real-service run (`npm run test:real`, CI) sets these; the embedded run leaves them unset. */
export function realDatabaseUrl(): string | null {
  return process.env.LEDGERLENS_TEST_DATABASE_URL || null;
}

export function realRedisUrl(): string | null {
  return process.env.LEDGERLENS_TEST_REDIS_URL || null;
}

/** The migrated template of this run (unique, so concurrent runs on one server do not collide). */
export function templateDb(): string {
  return process.env.LEDGERLENS_TEST_TEMPLATE_DB || 'ledgerlens_test_template';
}

export async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
