import { ChildProcess, execFile, spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { Agent, request } from 'undici';
import { LAYOUTS } from '../../../../tools/corpus/layouts';
import { makeStatement } from '../../../../tools/corpus/corpus';
import { adminQuery, realDatabaseUrl, realRedisUrl, templateDb } from '../support/services';
import { startS3 } from '../support/s3-server';
import { missingLine, systemTool, systemToolsRequired } from '../support/system-tools';
import { freePort } from '../support/private-services';

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
const METRICS_TOKEN = `scale-metrics-${randomBytes(8).toString('hex')}`;
const GRACE_SECONDS = 10;
/** An api announces its stop (/ready 503) this long before closing; Caddy polls /ready every 500 ms. */
const DELAY_SECONDS = 2;
/** Rolling restart: one upload through the proxy every this many ms while every process restarts in turn. */
const ROLL_UPLOAD_MS = Number(process.env.SCALE_ROLL_UPLOAD_MS ?? 2000);

interface Proc {
  name: string;
  child: ChildProcess;
  out: string[];
  port: number | null;
  metricsPort: number;
  extra: Record<string, string>;
}

/** How a stopped process ended: its exit code (or signal) and how long after SIGTERM. */
interface Stopped {
  code: number | null;
  signal: NodeJS.Signals | null;
  ms: number;
}

const waitUntil = async (what: string, ok: () => Promise<boolean> | boolean, ms = 60_000, every = 100): Promise<void> => {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, every));
  }
  throw new Error(`timed out waiting for ${what}`);
};

const withCaddy = systemTool('caddy') !== null || systemToolsRequired();
if (!withCaddy) process.stderr.write(`${missingLine('caddy')}\n`);
const real = realDatabaseUrl() && realRedisUrl() && withCaddy ? describe : describe.skip;

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

  const spawnServer = (name: string, extra: Record<string, string>, port: number | null, metricsPort: number): Proc => {
    const child = spawn(process.execPath, [MAIN], {
      env: { ...process.env, ...env, ...extra, METRICS_PORT: String(metricsPort), ...(port ? { PORT: String(port) } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const proc: Proc = { name, child, out: [], port, metricsPort, extra };
    const keep = (chunk: Buffer) => proc.out.push(...chunk.toString().split('\n').filter(Boolean));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    procs.push(proc);
    return proc;
  };
  const stopProc = async (proc: Proc): Promise<Stopped> => {
    const started = Date.now();
    if (proc.child.exitCode !== null || proc.child.signalCode !== null)
      return { code: proc.child.exitCode, signal: proc.child.signalCode, ms: 0 };
    return new Promise<Stopped>((r) => {
      proc.child.once('exit', (code, signal) => r({ code, signal, ms: Date.now() - started }));
      proc.child.kill('SIGTERM');
    });
  };
  const startWorker = async (name: string): Promise<Proc> => {
    const heartbeat = join(dir, `${name}.heartbeat`);
    const proc = spawnServer(name, { ROLE: 'worker', HEARTBEAT_FILE: heartbeat, HEARTBEAT_SECONDS: '2' }, null, await freePort());
    await waitUntil(`${name} heartbeat`, () => {
      if (proc.child.exitCode !== null) throw new Error(`${name} exited: ${proc.out.join('\n')}`);
      return existsSync(heartbeat);
    });
    return proc;
  };
  const startApi = async (name: string, port: number): Promise<Proc> => {
    const api = spawnServer(name, { ROLE: 'api' }, port, await freePort());
    await waitUntil(`${name} /ready`, async () => {
      if (api.child.exitCode !== null) throw new Error(`${name} exited: ${api.out.join('\n')}`);
      return (await fetch(`http://127.0.0.1:${api.port}/ready`).catch(() => null))?.status === 200;
    });
    return api;
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
      PUBLIC_URL: 'https://ledgerlens.test',
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
      RATE_LIMIT_STANDARD: '100000',
      METRICS_TOKEN: METRICS_TOKEN,
      SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS),
      SHUTDOWN_DELAY_SECONDS: String(DELAY_SECONDS),
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

    apis = await Promise.all([startApi('api-1', await freePort()), startApi('api-2', await freePort())]);

    // Caddy terminates TLS (internal CA) and balances over both api processes.
    const httpsPort = await freePort();
    const caddyDir = join(dir, 'caddy');
    writeFileSync(
      join(dir, 'Caddyfile'),
      `{\n\tadmin off\n\tskip_install_trust\n\tauto_https disable_redirects\n\thttp_port ${await freePort()}\n\thttps_port ${httpsPort}\n\tstorage file_system ${caddyDir}\n}\n` +
        `localhost:${httpsPort} {\n\ttls internal\n\treverse_proxy ${apis.map((a) => `127.0.0.1:${a.port}`).join(' ')} {\n\t\tlb_policy round_robin\n\t\tlb_try_duration 10s\n\t\tlb_try_interval 100ms\n\t\tfail_duration 2s\n\t\thealth_uri /ready\n\t\thealth_interval 500ms\n\t\thealth_timeout 2s\n\t\tflush_interval -1\n\t}\n}\n`,
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
    // Which worker ran each document: its log line `Document <id> processed`. A worker logs that
    // line after it commits the status, so the last line can reach the pipe after the poll above
    // saw every document terminal: wait for one line per document before counting.
    const mine = new Set(ids);
    const byWorker: Record<string, number> = {};
    const tally = (): number => {
      for (const p of procs.filter((p) => p.name.startsWith('worker')))
        byWorker[p.name] = p.out
          .slice(logMark.get(p.name) ?? 0)
          .map((l) => /Document (\d+) processed/.exec(l)?.[1])
          .filter((id) => id !== undefined && mine.has(Number(id))).length;
      return Object.values(byWorker).reduce((a, b) => a + b, 0);
    };
    await waitUntil(`a "processed" log line for each of ${count} documents (${label})`, () => tally() >= count, 10_000, 50);
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

  /** The running process of that name (the latest one started under it). */
  const current = (name: string): Proc | undefined => [...procs].reverse().find((p) => p.name === name);
  const running = (p: Proc | undefined): p is Proc => !!p && p.child.exitCode === null && p.child.signalCode === null;
  const scrape = async (proc: Proc, token: string | null = METRICS_TOKEN) => {
    const res = await fetch(`http://127.0.0.1:${proc.metricsPort}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: res.status, text: await res.text() };
  };
  const sample = (text: string, name: string, labels = ''): number => {
    const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
    return line ? Number(line.split(' ').pop()) : 0;
  };

  it('serves /metrics on every process (METRICS_PORT, with the token): api replicas and workers', async () => {
    for (const name of ['worker-1', 'worker-2']) if (!running(current(name))) await startWorker(name);
    const all = ['api-1', 'api-2', 'worker-1', 'worker-2'].map((n) => current(n)!);
    for (const proc of all) {
      expect({ proc: proc.name, status: (await scrape(proc, null)).status }).toEqual({ proc: proc.name, status: 401 });
      const { status, text } = await scrape(proc);
      expect({ proc: proc.name, status }).toEqual({ proc: proc.name, status: 200 });
      expect(text).toMatch(/^ledgerlens_queue_jobs\{queue="documents",state="waiting"\} \d+$/m);
      expect(text).toMatch(/^process_cpu_seconds_total \d/m);
    }
    // the api port serves it too, with the token (production: never without one)
    const viaApi = await direct(apis[0], 'GET', '/metrics', { authorization: `Bearer ${METRICS_TOKEN}`, 'x-api-key': '' });
    expect(viaApi.statusCode).toBe(200);
    await viaApi.body.dump();
    // documents completed, as the workers counted them, match the database
    const client = new Client({ connectionString: env.DATABASE_URL });
    await client.connect();
    try {
      const completed = (await client.query(`select count(*)::int as n from documents where status = 'completed'`)).rows[0].n as number;
      let counted = 0;
      for (const proc of all.filter((p) => p.name.startsWith('worker')))
        counted += sample((await scrape(proc)).text, 'ledgerlens_documents_processed_total', 'outcome="completed"');
      expect(counted).toBe(completed);
    } finally {
      await client.end();
    }
  }, 120_000);

  it('restarts every api and worker process in turn under load: no request fails, in-flight requests finish, documents end terminal, exits are 0 within the grace', async () => {
    for (const name of ['worker-1', 'worker-2']) if (!running(current(name))) await startWorker(name);
    const deal = await json(
      await viaProxy(
        'POST',
        '/v1/deals',
        { 'content-type': 'application/json' },
        JSON.stringify({ business_name: 'Rolling Restart LLC', funding_amount_requested: 5000 }),
      ),
    );
    expect(deal.status).toBe(201);
    const files = await Promise.all(Array.from({ length: 4 }, (_, i) => makeStatement(LAYOUTS[i % LAYOUTS.length], 300 + i, 20)));
    const outcomes: { kind: string; status: number | null; error: string | null }[] = [];
    const uploaded: number[] = [];
    let loading = true;
    const pace = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const call = async (kind: string, send: () => ReturnType<typeof request>) => {
      try {
        const res = await send();
        const body = (await res.body.json().catch(() => null)) as any;
        outcomes.push({ kind, status: res.statusCode, error: null });
        return { status: res.statusCode, body };
      } catch (err) {
        outcomes.push({ kind, status: null, error: `${(err as NodeJS.ErrnoException).code ?? ''} ${(err as Error).message}` });
        return null;
      }
    };
    // Steady load through the proxy (round robin over both api ports): uploads, and reads of the deal and its documents.
    const uploader = (async () => {
      for (let i = 0; loading; i++) {
        const form = multipart(files[i % files.length].bytes, `rolling-${i}.pdf`);
        const res = await call('upload', () => viaProxy('POST', `/v1/deals/${deal.body.id}/documents`, form.headers, form.body));
        if (res?.status === 201) uploaded.push(res.body.id as number);
        await pace(ROLL_UPLOAD_MS);
      }
    })();
    const reader = (async () => {
      while (loading) {
        await call('read deal', () => viaProxy('GET', `/v1/deals/${deal.body.id}`));
        await call('list documents', () => viaProxy('GET', `/v1/deals/${deal.body.id}/documents?per_page=5`));
        await pace(250);
      }
    })();

    /**
     * A request in flight when its api process gets SIGTERM: headers and half the upload are
     * sent, the process is signalled, its listener closes (new connections refused), then the rest
     * is sent; the upload must still be answered 201 (with Connection: close) before the exit.
     */
    const inFlightUpload = async (api: Proc): Promise<{ stopped: Stopped; status: number; connection: string | undefined; id: number }> => {
      const form = multipart(files[0].bytes, 'in-flight.pdf');
      const half = Math.floor(form.body.length / 2);
      const req = httpRequest({
        host: '127.0.0.1',
        port: api.port!,
        method: 'POST',
        path: `/v1/deals/${deal.body.id}/documents`,
        headers: { ...form.headers, 'content-length': form.body.length, 'x-forwarded-proto': 'https', 'x-api-key': key },
      });
      const response = new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode!, connection: res.headers.connection, body: Buffer.concat(chunks).toString() }),
          );
        });
        req.on('error', reject);
      });
      await new Promise<void>((r) => req.write(form.body.subarray(0, half), () => r()));
      // the server has accepted that connection and read its headers once a later one is answered
      await (await direct(api, 'GET', '/health')).body.dump();
      const stopping = stopProc(api);
      await waitUntil(
        `${api.name} refusing new connections`,
        () =>
          new Promise<boolean>((r) => {
            const socket = connect(api.port!, '127.0.0.1');
            socket.once('connect', () => (socket.destroy(), r(false)));
            socket.once('error', (err: NodeJS.ErrnoException) => r(err.code === 'ECONNREFUSED'));
          }),
        GRACE_SECONDS * 1000,
        20,
      );
      expect(running(api)).toBe(true); // draining: the upload holds it
      req.end(form.body.subarray(half));
      const res = await response;
      const stopped = await stopping;
      return { stopped, status: res.status, connection: res.connection, id: Number(JSON.parse(res.body).id) };
    };

    const restarts: { name: string; stopMs: number; startMs: number; code: number | null; signal: string | null }[] = [];
    const started = Date.now();
    try {
      for (const name of ['api-1', 'api-2', 'worker-1', 'worker-2']) {
        const old = current(name)!;
        const t = Date.now();
        let stopped: Stopped;
        if (old.port) {
          const flight = await inFlightUpload(old);
          expect({ name, status: flight.status, connection: flight.connection }).toEqual({ name, status: 201, connection: 'close' });
          uploaded.push(flight.id);
          stopped = flight.stopped;
        } else {
          stopped = await stopProc(old);
        }
        const stopMs = Date.now() - t;
        const t2 = Date.now();
        if (old.port) apis[apis.indexOf(old)] = await startApi(name, old.port);
        else await startWorker(name);
        restarts.push({ name, stopMs, startMs: Date.now() - t2, code: stopped.code, signal: stopped.signal });
      }
    } finally {
      loading = false;
      await Promise.all([uploader, reader]);
    }
    const rollingMs = Date.now() - started;

    let statuses: { id: number; status: string; error: string | null }[] = [];
    const settleStarted = Date.now();
    await waitUntil(
      `${uploaded.length} documents terminal after the rolling restart`,
      async () => {
        statuses = [];
        for (let i = 0; i < uploaded.length; i += 100) {
          const res = await json(
            await viaProxy(
              'POST',
              '/v1/documents/batch-status',
              { 'content-type': 'application/json' },
              JSON.stringify({ document_ids: uploaded.slice(i, i + 100) }),
            ),
          );
          statuses.push(...(res.body.documents as { id: number; status: string; error: string | null }[]));
        }
        return statuses.every((d) => ['completed', 'failed', 'cancelled'].includes(d.status));
      },
      300_000,
      250,
    );
    const settleMs = Date.now() - settleStarted;
    const workerLines = procs.filter((p) => p.name.startsWith('worker')).flatMap((p) => p.out);
    const handedBack = workerLines.filter((l) => /handed back to the queue/.test(l)).length;
    const failedRequests = outcomes.filter((o) => o.status === null || o.status >= 500);
    const byKind = (kind: string) => outcomes.filter((o) => o.kind === kind).length;
    console.log(
      `rolling restart (grace ${GRACE_SECONDS} s): ${restarts.map((r) => `${r.name} stop ${r.stopMs} ms + start ${r.startMs} ms (exit ${r.code ?? r.signal})`).join('; ')}; ` +
        `${(rollingMs / 1000).toFixed(1)} s in all; requests: ${byKind('upload')} uploads, ${byKind('read deal') + byKind('list documents')} reads, ` +
        `${failedRequests.length} failed; documents: ${uploaded.length} uploaded, ${statuses.filter((d) => d.status === 'completed').length} completed, ` +
        `${statuses.filter((d) => d.status === 'failed').length} failed, all terminal ${(settleMs / 1000).toFixed(1)} s after the last restart; ` +
        `jobs handed back by a stopping worker: ${handedBack}`,
    );
    // every process stopped by itself with 0 within its bound: workers the job grace; apis the
    // announce delay plus the request grace (1 s of slack for the process to exit)
    for (const r of restarts)
      expect({
        name: r.name,
        code: r.code,
        signal: r.signal,
        withinGrace: r.stopMs <= ((r.name.startsWith('api') ? DELAY_SECONDS : 0) + GRACE_SECONDS + 1) * 1000,
      }).toEqual({
        name: r.name,
        code: 0,
        signal: null,
        withinGrace: true,
      });
    // through the proxy nothing failed: no connection error, no 5xx (a stopping api first leaves
    // the proxy's rotation through /ready, then refuses new connections, which the proxy retries
    // on the other replica)
    expect(failedRequests).toEqual([]);
    expect(byKind('upload')).toBeGreaterThan(0);
    // no document left behind: every one completed (a failed one would carry its reason)
    for (const d of statuses) if (d.status === 'failed') expect(d.error).toMatch(/^PROCESSING_FAILED: .{8,}/);
    expect(statuses.filter((d) => d.status !== 'completed')).toEqual([]);
  }, 600_000);
});
