import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { LAYOUTS } from '../../../tools/corpus/layouts';
import { makeStatement } from '../../../tools/corpus/corpus';
import { postgresBin, PrivatePostgres, PrivateRedis, redisServerBin } from './support/private-services';
import { realDatabaseUrl } from './support/services';

const MAIN = resolve(__dirname, '../dist/main.js');
const TERMINAL = ['completed', 'failed', 'cancelled'];

interface Proc {
  proc: ChildProcess;
  out: string[];
  url?: string;
  key?: string;
}

/** A server process (`node apps/api/dist/main.js`) in the given role; resolves once it is up. */
function startServer(env: Record<string, string>): Promise<Proc> {
  const proc = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const p: Proc = { proc, out: [] };
  return new Promise((ok, fail) => {
    const onData = (chunk: Buffer) => {
      p.out.push(chunk.toString());
      if (p.out.length > 200) p.out.shift();
      const text = p.out.join('');
      p.url ??= /listening on (http:\/\/\S+)/.exec(text)?.[1];
      p.key ??= /live API key:\s+(\S+)/.exec(text)?.[1];
      if (env.ROLE === 'worker' ? text.includes('worker running') : p.url && (env.DEMO_BOOTSTRAP !== 'true' || p.key)) ok(p);
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', (code, signal) => fail(new Error(`server (${env.ROLE}) exited ${code ?? signal}: ${p.out.join('').slice(-2000)}`)));
  });
}

async function stop(p: Proc | null, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (!p || p.proc.exitCode !== null || p.proc.signalCode !== null) return;
  p.proc.removeAllListeners('exit');
  await new Promise<void>((r) => {
    p.proc.once('exit', () => r());
    p.proc.kill(signal);
  });
}

async function until<T>(what: string, withinMs: number, probe: () => Promise<T | null | undefined | false>): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const v = await probe().catch(() => null);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${withinMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Chaos on real services, each private to this test so they can be killed and restarted: an API
 * process and worker processes (BullMQ) on a PostgreSQL and a Redis of its own. kill -9 a worker
 * mid-pipeline, restart Redis, restart PostgreSQL under load; every document ends terminal, every
 * outbox event is recorded once and delivered, and the API answers again without a restart.
 */
const runnable = Boolean(realDatabaseUrl() && postgresBin() && redisServerBin());

(runnable ? describe : describe.skip)('chaos on real services (test:real)', () => {
  let pg: PrivatePostgres | null = null;
  let redis: PrivateRedis | null = null;
  let api: Proc | null = null;
  const workers: Proc[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'ledgerlens-chaos-data-'));

  afterAll(async () => {
    for (const w of workers) await stop(w);
    await stop(api);
    await redis?.stop();
    pg?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('kill -9 a worker, restart Redis, restart PostgreSQL under load: all documents terminal, no event lost, API recovers', async () => {
    pg = await PrivatePostgres.start();
    redis = await PrivateRedis.start();
    const env = {
      DATABASE_URL: pg.url,
      REDIS_URL: redis.url,
      REDIS_PREFIX: 'chaos',
      DATA_DIR: dataDir,
      NODE_ENV: 'development',
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'error',
      DEMO_BOOTSTRAP: 'false',
      RATE_LIMIT_UPLOAD: '100000',
      RATE_LIMIT_STANDARD: '1000000',
      RATE_LIMIT_WRITE: '100000',
      OUTBOX_POLL_SECONDS: '1',
      PIPELINE_CONCURRENCY: '1',
      PIPELINE_RETRY_BASE_MS: '300',
      PIPELINE_STALLED_SECONDS: '3',
      PIPELINE_SWEEP_SECONDS: '2',
      PIPELINE_STUCK_SECONDS: '120',
      PIPELINE_TIMEOUT_MS: '30000',
    };
    api = await startServer({ ...env, ROLE: 'api', DEMO_BOOTSTRAP: 'true' });
    workers.push(await startServer({ ...env, ROLE: 'worker' }));
    const call = async (method: string, path: string, body?: unknown) => {
      const headers: Record<string, string> = { 'X-API-Key': api!.key! };
      let payload: string | FormData | undefined;
      if (body instanceof FormData) payload = body;
      else if (body !== undefined) {
        payload = JSON.stringify(body);
        headers['Content-Type'] = 'application/json';
      }
      const res = await fetch(api!.url + path, { method, headers, body: payload, signal: AbortSignal.timeout(30_000) });
      return { status: res.status, body: (await res.json().catch(() => null)) as any };
    };
    const statement = (await makeStatement(LAYOUTS[0], 77, 150)).bytes;
    const dealId = (await call('POST', '/v1/deals', { business_name: 'Chaos Co', funding_amount_requested: 5000 })).body.id as number;
    const uploads: { status: number; body: any }[] = [];
    const uploadBatch = (n: number) =>
      Promise.all(
        Array.from({ length: n }, async (_, i) => {
          const fd = new FormData();
          fd.append('file', new Blob([statement], { type: 'application/pdf' }), `chaos-${uploads.length}-${i}.pdf`);
          const res = await call('POST', `/v1/deals/${dealId}/documents`, fd).catch((e: Error) => ({
            status: 0,
            body: { detail: e.message },
          }));
          uploads.push(res);
          return res;
        }),
      );

    // 1. kill -9 the worker while a document is mid-pipeline; another worker takes over
    const first = await uploadBatch(6);
    const ids = first.map((r) => r.body.id as number);
    await until('a document in a processing step', 30_000, async () => {
      const s = (await call('POST', '/v1/documents/batch-status', { document_ids: ids })).body.documents as { status: string }[];
      return s.some((d) => !['uploaded', ...TERMINAL].includes(d.status));
    });
    await stop(workers[0], 'SIGKILL');
    workers.push(await startServer({ ...env, ROLE: 'worker' }));

    // 2. restart Redis while documents are uploaded
    const during = uploadBatch(4);
    await redis.restart();
    await during;

    // 3. restart PostgreSQL while documents are uploaded and processed
    const load = uploadBatch(4);
    pg.restart();
    await load;
    await uploadBatch(2);

    // the API answers again (same process): readiness, then an ordinary authenticated read
    await until('/ready', 60_000, async () => (await fetch(`${api!.url}/ready`)).status === 200);
    await until('GET /v1/deals', 30_000, async () => (await call('GET', '/v1/deals')).status === 200);
    expect(api.proc.exitCode).toBeNull();

    // every upload answered (201, or an error in the envelope), and every stored document ends terminal
    for (const u of uploads) {
      if (u.status !== 201) expect(u.body).toEqual(expect.objectContaining({ detail: expect.any(String) }));
    }
    expect(uploads.filter((u) => u.status === 201).length).toBeGreaterThanOrEqual(8);
    const docs = await until('every document terminal', 150_000, async () => {
      const list = await call('GET', `/v1/deals/${dealId}/documents?per_page=100`);
      const items = list.body?.data as { id: number; status: string; error: string | null }[];
      return Array.isArray(items) && items.length && items.every((d) => TERMINAL.includes(d.status)) ? items : null;
    });
    for (const d of docs) if (d.status === 'failed') expect(d.error).toMatch(/^PROCESSING_FAILED: .{8,}/);
    for (const u of uploads) if (u.status === 201) expect(docs.map((d) => d.id)).toContain(u.body.id);

    // the outbox: per document one upload event and one terminal event, all delivered
    const client = new Client({ connectionString: pg.url });
    await client.connect();
    try {
      const counts = await until('every outbox event delivered', 60_000, async () => {
        const pending = await client.query('select count(*)::int as n from domain_events where dispatched_at is null');
        if (pending.rows[0].n !== 0) return null;
        return (
          await client.query(
            `select (data->>'document_id')::int as id, type, count(*)::int as n from domain_events where type like 'document.%' group by 1, 2`,
          )
        ).rows as { id: number; type: string; n: number }[];
      });
      for (const d of docs) {
        const of = (type: string) => counts.find((c) => c.id === d.id && c.type === type)?.n ?? 0;
        expect({ id: d.id, uploaded: of('document.uploaded'), terminal: of('document.completed') + of('document.failed') }).toEqual({
          id: d.id,
          uploaded: 1,
          terminal: 1,
        });
      }
    } finally {
      await client.end();
    }
  }, 300_000);
});

if (!runnable) {
  describe('chaos on real services', () => {
    it.skip('runs in `npm run test:real` only: it needs PostgreSQL binaries (/usr/lib/postgresql) and redis-server to start private services it can restart', () =>
      undefined);
  });
}
