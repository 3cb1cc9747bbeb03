import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LAYOUTS } from '../../../tools/corpus/layouts';
import { makeStatement } from '../../../tools/corpus/corpus';
import { createApp, RunningApp } from '../src/app.factory';
import { loadConfig } from '../src/platform/config/config';
import { EventDispatcher } from '../src/platform/events/event-dispatcher';
import { BullJobQueue, JobQueue } from '../src/platform/queue/job-queue';
import { ProvisioningService } from '../src/modules/auth/provisioning.service';
import { adminQuery, realDatabaseUrl, realRedisUrl, templateDb } from './support/services';

/**
 * The scaled deployment: an API process (ROLE=api) that never runs jobs and a worker process
 * (ROLE=worker) that runs them, sharing PostgreSQL and Redis (BullMQ). Real-service run only.
 */
const real = realDatabaseUrl() && realRedisUrl() ? describe : describe.skip;

real('ROLE=api and ROLE=worker on PostgreSQL and BullMQ', () => {
  let api: RunningApp;
  let worker: RunningApp;
  let url: string;
  const name = `ledgerlens_test_roles_${randomBytes(4).toString('hex')}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'ledgerlens-roles-'));

  beforeAll(async () => {
    await adminQuery(realDatabaseUrl()!, `create database ${name} template ${templateDb()}`);
    const dbUrl = new URL(realDatabaseUrl()!);
    dbUrl.pathname = `/${name}`;
    const env = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'error',
      DATA_DIR: dataDir,
      DATABASE_URL: dbUrl.toString(),
      REDIS_URL: realRedisUrl()!,
      REDIS_PREFIX: `lltest:${name}`,
    };
    api = await createApp(loadConfig({ ...env, ROLE: 'api' }));
    worker = await createApp(loadConfig({ ...env, ROLE: 'worker' }));
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(api.app.getHttpServer().address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await api?.close();
    await worker?.close();
    await adminQuery(realDatabaseUrl()!, `drop database if exists ${name} with (force)`);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the API queues the upload on Redis and the worker process makes the deal ready', async () => {
    expect(api.app.get(JobQueue)).toBeInstanceOf(BullJobQueue);
    const org = await api.app
      .get(ProvisioningService)
      .bootstrap({ orgName: 'Roles', email: `${name}@example.test`, password: 'password-123' });
    const headers = { 'X-API-Key': org.api_key };
    const deal = (await (
      await fetch(`${url}/v1/deals`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: JSON.stringify({ business_name: 'Split Co', funding_amount_requested: 1000 }),
      })
    ).json()) as { id: number };
    const item = await makeStatement(LAYOUTS[0], 3, 25);
    const form = new FormData();
    form.append('file', new Blob([item.bytes], { type: 'application/pdf' }), 'split.pdf');
    const upload = await fetch(`${url}/v1/deals/${deal.id}/documents`, { method: 'POST', headers, body: form });
    expect(upload.status).toBe(201);
    await worker.app.get(JobQueue).idle();
    await worker.app.get(EventDispatcher).drain();
    const ready = (await (await fetch(`${url}/v1/deals/${deal.id}`, { headers })).json()) as {
      status: string;
      coverage: { statement_count: number };
    };
    expect(ready.status).toBe('ready');
    expect(ready.coverage.statement_count).toBe(1);
  });
});
