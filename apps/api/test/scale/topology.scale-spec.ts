import { ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { Agent, request } from 'undici';
import { LAYOUTS } from '../../../../tools/corpus/layouts';
import { makeStatement } from '../../../../tools/corpus/corpus';
import { adminQuery, realDatabaseUrl, realRedisUrl, templateDb } from '../support/services';
import { startS3 } from '../support/s3-server';

/**
 * The compose topology (docker/compose.yaml) as plain processes on this machine: two api and two
 * worker processes of the built server (apps/api/dist/main.js, NODE_ENV=production), sharing the
 * machine's PostgreSQL and Redis and a local S3-compatible server, behind Caddy terminating TLS
 * (TRUST_PROXY=true). `npm run test:scale` (CI: a small seeded run); `npm run bench:scale`
 * (SCALE_DOCS=24, SCALE_MIN_SPEEDUP=1.6) measures documents/minute for one and two workers.
 */
const MAIN = resolve(__dirname, '../../dist/main.js');
const CLI = resolve(__dirname, '../../dist/cli.js');
const DOCS = Number(process.env.SCALE_DOCS ?? 6);
const MIN_SPEEDUP = process.env.SCALE_MIN_SPEEDUP ? Number(process.env.SCALE_MIN_SPEEDUP) : null;
const exec = promisify(execFile);

async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => res(port));
    });
    srv.on('error', rej);
  });
}

interface Proc {
  name: string;
  child: ChildProcess;
  out: string[];
  port: number | null;
}

const waitUntil = async (what: string, ok: () => Promise<boolean> | boolean, ms = 60_000, every = 100): Promise<void> => {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, every));
  }
  throw new Error(`timed out waiting for ${what}`);
};

const real = realDatabaseUrl() && realRedisUrl() ? describe : describe.skip;

real('the compose topology as processes: 2 api + 2 workers + Caddy on PostgreSQL, Redis and S3', () => {
  const suffix = randomBytes(4).toString('hex');
  const dbName = `ledgerlens_scale_${suffix}`;
  const dir = mkdtempSync(join(tmpdir(), 'ledgerlens-scale-'));
  const procs: Proc[] = [];
  let s3: Awaited<ReturnType<typeof startS3>>;
  let env: Record<string, string>;
  let caddy: ChildProcess | null = null;
  let proxyUrl: string;
  let tls: Agent;
  let key: string;
  let apis: Proc[];

  const spawnServer = (name: string, extra: Record<string, string>, port: number | null): Proc => {
    const child = spawn(process.execPath, [MAIN], {
      env: { ...process.env, ...env, ...extra, ...(port ? { PORT: String(port) } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const proc: Proc = { name, child, out: [], port };
    const keep = (chunk: Buffer) => proc.out.push(...chunk.toString().split('\n').filter(Boolean));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    procs.push(proc);
    return proc;
  };
  const stopProc = async (proc: Proc): Promise<void> => {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
    await new Promise<void>((r) => {
      proc.child.once('exit', () => r());
      proc.child.kill('SIGTERM');
    });
  };
  const startWorker = async (name: string): Promise<Proc> => {
    const heartbeat = join(dir, `${name}.heartbeat`);
    const proc = spawnServer(name, { ROLE: 'worker', HEARTBEAT_FILE: heartbeat, HEARTBEAT_SECONDS: '2' }, null);
    await waitUntil(`${name} heartbeat`, () => existsSync(heartbeat), 60_000);
    return proc;
  };
  const direct = (proc: Proc, method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer) =>
    request(`http://127.0.0.1:${proc.port}${path}`, {
      method: method as 'GET',
      headers: { 'x-forwarded-proto': 'https', 'x-api-key': key, ...headers },
      body,
    });
  const viaProxy = (method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer) =>
    request(`${proxyUrl}${path}`, { method: method as 'GET', headers: { 'x-api-key': key, ...headers }, body, dispatcher: tls });
  const json = async (res: Awaited<ReturnType<typeof request>>) => ({
    status: res.statusCode,
    headers: res.headers,
    body: (await res.body.json()) as any,
  });

  /** A multipart body with one statement PDF. */
  const multipart = (bytes: Uint8Array, filename: string) => {
    const boundary = `----ll${randomBytes(8).toString('hex')}`;
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/pdf\r\n\r\n`,
      ),
      Buffer.from(bytes),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    return { body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
  };

  beforeAll(async () => {
    if (!existsSync(MAIN)) throw new Error('Build first: npm run build (the scale test runs apps/api/dist/main.js)');
    await adminQuery(realDatabaseUrl()!, `create database ${dbName} template ${templateDb()}`);
    const dbUrl = new URL(realDatabaseUrl()!);
    dbUrl.pathname = `/${dbName}`;
    s3 = await startS3();
    const admin = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    await admin.send(new CreateBucketCommand({ Bucket: 'ledgerlens' }));
    admin.destroy();
    env = {
      NODE_ENV: 'production',
      TRUST_PROXY: 'true',
      HOST: '127.0.0.1',
      DATABASE_URL: dbUrl.toString(),
      REDIS_URL: realRedisUrl()!,
      REDIS_PREFIX: `llscale:${suffix}`,
      SECRETS_KEY: randomBytes(32).toString('base64'),
      STORAGE_URL: 's3://ledgerlens/originals',
      AWS_ENDPOINT_URL_S3: s3.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      DEMO_BOOTSTRAP: 'false',
      LOG_LEVEL: 'info',
      RATE_LIMIT_AUTH: '4',
      RATE_LIMIT_UPLOAD: '1000',
      PIPELINE_CONCURRENCY: '1',
      DATA_DIR: dir,
    };
    // The compose one-liners: migrate, then bootstrap the first organization.
    await exec(process.execPath, [CLI, 'migrate'], { env: { ...process.env, ...env } });
    const boot = await exec(
      process.execPath,
      [
        CLI,
        'bootstrap',
        '--org-name',
        'Scale Funding',
        '--email',
        `ops-${suffix}@example.test`,
        '--password',
        'scale-password-1',
        '--json',
      ],
      { env: { ...process.env, ...env, ROLE: 'api' } },
    );
    key = (JSON.parse(boot.stdout) as { api_key: string }).api_key;

    apis = [spawnServer('api-1', { ROLE: 'api' }, await freePort()), spawnServer('api-2', { ROLE: 'api' }, await freePort())];
    for (const api of apis)
      await waitUntil(`${api.name} /ready`, async () => {
        if (api.child.exitCode !== null) throw new Error(`${api.name} exited: ${api.out.join('\n')}`);
        return (await fetch(`http://127.0.0.1:${api.port}/ready`).catch(() => null))?.status === 200;
      });

    // Caddy terminates TLS (internal CA) and balances over both api processes.
    const httpsPort = await freePort();
    const caddyDir = join(dir, 'caddy');
    writeFileSync(
      join(dir, 'Caddyfile'),
      `{\n\tadmin off\n\tskip_install_trust\n\tauto_https disable_redirects\n\thttp_port ${await freePort()}\n\thttps_port ${httpsPort}\n\tstorage file_system ${caddyDir}\n}\n` +
        `localhost:${httpsPort} {\n\ttls internal\n\treverse_proxy ${apis.map((a) => `127.0.0.1:${a.port}`).join(' ')} {\n\t\tlb_policy round_robin\n\t\tfail_duration 30s\n\t\tflush_interval -1\n\t}\n}\n`,
    );
    caddy = spawn('caddy', ['run', '--config', join(dir, 'Caddyfile'), '--adapter', 'caddyfile'], {
      env: { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir },
      stdio: 'ignore',
    });
    caddy.on('error', () => undefined);
    const rootCert = join(caddyDir, 'pki/authorities/local/root.crt');
    await waitUntil('Caddy root certificate (apt-get install caddy)', () => existsSync(rootCert), 30_000);
    tls = new Agent({ connect: { ca: readFileSync(rootCert), servername: 'localhost' } });
    proxyUrl = `https://localhost:${httpsPort}`;
    await waitUntil('Caddy proxying', async () => (await viaProxy('GET', '/health').catch(() => null))?.statusCode === 200, 30_000);
  }, 240_000);

  afterAll(async () => {
    caddy?.kill('SIGTERM');
    await Promise.all(procs.map(stopProc));
    await tls?.close();
    await s3?.close();
    await adminQuery(realDatabaseUrl()!, `drop database if exists ${dbName} with (force)`);
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('serves HTTPS through the proxy to both api processes; plain HTTP straight to an api is refused', async () => {
    const served = () => apis.map((a) => a.out.filter((l) => l.includes('/v1/deals?proxied')).length);
    for (let i = 0; i < 6; i++) {
      const res = await json(await viaProxy('GET', '/v1/deals?proxied=1'));
      expect(res.status).toBe(200);
    }
    // Request log lines of each api process: the proxy used both.
    await waitUntil('request logs', () => served().reduce((a, b) => a + b, 0) >= 6);
    expect(served().every((n) => n > 0)).toBe(true);
    const plain = await json(await request(`http://127.0.0.1:${apis[0].port}/v1/deals`, { headers: { 'x-api-key': key } }));
    expect(plain.status).toBe(403);
    expect(plain.body.code).toBe('HTTPS_REQUIRED');
  });

  it('shares rate limits, idempotency and usage counters across the api processes', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await direct(
        apis[i % 2],
        'POST',
        '/auth/login',
        { 'content-type': 'application/json', 'x-api-key': '' },
        '{"email":"nobody@example.test","password":"wrong-password"}',
      );
      await res.body.dump();
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);

    const idem = { 'content-type': 'application/json', 'idempotency-key': `scale-${suffix}` };
    const body = JSON.stringify({ business_name: 'Replicated LLC', funding_amount_requested: 10000 });
    const first = await json(await direct(apis[0], 'POST', '/v1/deals', idem, body));
    const replay = await json(await direct(apis[1], 'POST', '/v1/deals', idem, body));
    expect(first.status).toBe(201);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.id).toBe(first.body.id);

    const before = (await json(await direct(apis[0], 'GET', '/v1/usage/me'))).body.requests.used as number;
    for (const api of [apis[0], apis[1], apis[1]]) await (await direct(api, 'GET', '/v1/deals')).body.dump();
    expect((await json(await direct(apis[0], 'GET', '/v1/usage/me'))).body.requests.used).toBe(before + 3);
  });

  it('stores an upload through one api in the bucket and serves it from the other', async () => {
    const deal = await json(
      await direct(
        apis[0],
        'POST',
        '/v1/deals',
        { 'content-type': 'application/json' },
        JSON.stringify({ business_name: 'Bucket Co', funding_amount_requested: 5000 }),
      ),
    );
    const pdf = (await makeStatement(LAYOUTS[0], 5, 30)).bytes;
    const form = multipart(pdf, 'statement.pdf');
    const up = await json(await direct(apis[0], 'POST', `/v1/deals/${deal.body.id}/documents`, form.headers, form.body));
    expect(up.status).toBe(201);
    const down = await direct(apis[1], 'GET', `/v1/documents/${up.body.id}/download`);
    expect(down.statusCode).toBe(200);
    expect(Buffer.compare(Buffer.from(await down.body.arrayBuffer()), Buffer.from(pdf))).toBe(0);
  });

  /** Uploads `count` statements to a new deal and returns documents/minute until all are terminal. */
  const throughput = async (count: number, label: string): Promise<{ perMinute: number; byWorker: Record<string, number> }> => {
    const deal = await json(
      await direct(
        apis[0],
        'POST',
        '/v1/deals',
        { 'content-type': 'application/json' },
        JSON.stringify({ business_name: `Throughput ${label}`, funding_amount_requested: 5000 }),
      ),
    );
    const files = await Promise.all(Array.from({ length: count }, (_, i) => makeStatement(LAYOUTS[i % LAYOUTS.length], 100 + i, 60)));
    const logMark = new Map(procs.map((p) => [p.name, p.out.length]));
    const started = Date.now();
    const ids: number[] = [];
    for (const [i, f] of files.entries()) {
      const form = multipart(f.bytes, `s${i}.pdf`);
      const up = await json(await direct(apis[i % 2], 'POST', `/v1/deals/${deal.body.id}/documents`, form.headers, form.body));
      expect(up.status).toBe(201);
      ids.push(up.body.id);
    }
    let statuses: string[] = [];
    await waitUntil(
      `${count} documents terminal (${label})`,
      async () => {
        const res = await json(
          await direct(
            apis[1],
            'POST',
            '/v1/documents/batch-status',
            { 'content-type': 'application/json' },
            JSON.stringify({ document_ids: ids }),
          ),
        );
        statuses = (res.body.documents as { status: string }[]).map((d) => d.status);
        return statuses.every((s) => ['completed', 'failed', 'cancelled'].includes(s));
      },
      600_000,
      250,
    );
    const minutes = (Date.now() - started) / 60_000;
    expect(statuses.filter((s) => s === 'completed').length).toBe(count);
    // Which worker ran each document: its log line `Document <id> processed`.
    const mine = new Set(ids);
    const byWorker: Record<string, number> = {};
    for (const p of procs.filter((p) => p.name.startsWith('worker')))
      byWorker[p.name] = p.out
        .slice(logMark.get(p.name) ?? 0)
        .map((l) => /Document (\d+) processed/.exec(l)?.[1])
        .filter((id) => id !== undefined && mine.has(Number(id))).length;
    return { perMinute: count / minutes, byWorker };
  };

  it('processes documents with one worker, then twice as many with two, spread over both', async () => {
    // Each worker's parser processes start with its first document: warm both before timing.
    await startWorker('worker-1');
    await throughput(1, 'warm-up, one worker');
    const one = await throughput(DOCS, 'one worker');
    await startWorker('worker-2');
    await throughput(2, 'warm-up, two workers');
    const two = await throughput(DOCS * 2, 'two workers');
    console.log(
      `documents/minute: 1 worker ${one.perMinute.toFixed(1)}, 2 workers ${two.perMinute.toFixed(1)} (x${(two.perMinute / one.perMinute).toFixed(2)}); ` +
        `jobs per worker with two: ${JSON.stringify(two.byWorker)}`,
    );
    expect(one.byWorker['worker-1']).toBe(DOCS);
    expect(two.byWorker['worker-1']).toBeGreaterThan(0);
    expect(two.byWorker['worker-2']).toBeGreaterThan(0);
    expect(two.byWorker['worker-1'] + two.byWorker['worker-2']).toBe(DOCS * 2);
    if (MIN_SPEEDUP !== null) expect(two.perMinute / one.perMinute).toBeGreaterThanOrEqual(MIN_SPEEDUP);
  }, 900_000);
});
