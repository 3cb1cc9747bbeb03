import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { Client } from 'pg';
import { Pool as HttpPool } from 'undici';

/**
 * `npm run bench:api`: API throughput on PostgreSQL against a bare Fastify + pg anchor serving the
 * same HTTP contract with its own SQL (tools/bench/anchor.ts), in the same run (so machine load
 * affects both alike; compare the ratios).
 *
 * Seeds 10,000 deals in the benchmarked organization (plus BENCH_OTHER_DEALS in nine others: 100,000
 * in all), starts the built server (`apps/api/dist/main.js`) and the anchor
 * (`tools/dist/bench/anchor.js`), checks that both answer the same data, then alternates them route
 * by route: list (25 per page with total), get by id, stats, search (`q`, a handful of matches) and
 * an authenticated no-op (a credential check, then 404). Prints req/s, p50 and p99 per route and
 * server, and the ratios; exits non-zero when list, get by id, stats or search is below
 * BENCH_MIN_RATIO (0.7). Also the CPU time per request of each server process and of PostgreSQL
 * while it was measured: the anchor sends its queries unprepared, as pg does by default, and the
 * API's reads are prepared statements (DATABASE_PREPARED_STATEMENTS), so part of the API's req/s is
 * PostgreSQL's CPU saved.
 *
 * `npm run bench:api -- --large` (or BENCH_LARGE=1): 100,000 deals in the organization and
 * 1,000,000 in all (without the report and analysis JSON, which neither route reads), 4
 * connections, the API alone on list (page with its total) and search; prints p50/p99 and exits
 * non-zero when a p99 is at or above BENCH_MAX_P99_MS (100).
 *
 * Env: BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/postgres), BENCH_DEALS (10000),
 * BENCH_OTHER_DEALS (90000), BENCH_SECONDS per measurement (4), BENCH_ROUNDS (2),
 * BENCH_CONNECTIONS (16), BENCH_REDIS_URL (unset: the server runs without Redis), BENCH_MIN_RATIO.
 */
const ROOT = resolve(__dirname, '../../..');
const MAIN = resolve(ROOT, 'apps/api/dist/main.js');
const CLI = resolve(ROOT, 'apps/api/dist/cli.js');
const ANCHOR = resolve(__dirname, 'anchor.js');

const num = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const LARGE = process.argv.includes('--large') || process.env.BENCH_LARGE === '1';
const DEALS = num('BENCH_DEALS', LARGE ? 100_000 : 10_000);
const OTHER_DEALS = num('BENCH_OTHER_DEALS', LARGE ? 900_000 : 90_000);
const SECONDS = num('BENCH_SECONDS', LARGE ? 10 : 4);
const ROUNDS = num('BENCH_ROUNDS', LARGE ? 1 : 2);
const CONNECTIONS = num('BENCH_CONNECTIONS', LARGE ? 4 : 16);
const MIN_RATIO = num('BENCH_MIN_RATIO', 0.7);
const MAX_P99_MS = num('BENCH_MAX_P99_MS', 100);

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

async function waitFor(url: string, proc: ChildProcess, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`${what} exited with ${proc.exitCode}`);
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not answer ${url} within 60 s`);
}

function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return Promise.resolve();
  return new Promise((r) => {
    proc.once('exit', () => r());
    proc.kill('SIGTERM');
  });
}

/** Deterministic PRNG (mulberry32): the same ids and pages for both servers. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Result {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** the server's CPU time (user + system) per request, ms: steadier than req/s on a shared machine */
  cpuMs: number;
  /** PostgreSQL's CPU time per request, ms (every local postgres process; NaN when the server is elsewhere) */
  pgCpuMs: number;
}

/** CPU time (user + system, ms) in a /proc/<pid>/stat line. */
function statCpuMs(stat: string): number {
  const fields = stat.split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in USER_HZ (100)
}

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux); NaN elsewhere. */
function cpuTimeMs(pid: number | undefined): number {
  try {
    return statCpuMs(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return NaN;
  }
}

/**
 * CPU time (ms) each local PostgreSQL process has used so far, by pid (its backends do each query's
 * parse, plan and execution on the same cores as the servers); empty when there is none to read.
 */
function postgresCpuTimes(): Map<string, number> {
  const times = new Map<string, number>();
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.startsWith(`${pid} (postgres)`)) times.set(pid, statCpuMs(stat));
    } catch {
      // ended meanwhile
    }
  }
  return times;
}

/** PostgreSQL's CPU time (ms) since `before`: processes started since count whole, those ended are not known. */
function postgresCpuSince(before: Map<string, number>): number {
  const after = postgresCpuTimes();
  if (!after.size) return NaN;
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

/** Closed-loop load: CONNECTIONS clients, each sending its next request when the last one answered. */
async function load(base: string, key: string, path: (r: () => number) => string, seconds: number, pid?: number): Promise<Result> {
  const pool = new HttpPool(base, { connections: CONNECTIONS, pipelining: 1 });
  let requests = 0;
  const cpuBefore = cpuTimeMs(pid);
  const pgBefore = postgresCpuTimes();
  const latencies: number[] = [];
  let errors = 0;
  const end = Date.now() + seconds * 1000;
  const warmEnd = Date.now() + 500;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, i) => {
      const random = rng(1000 + i);
      while (Date.now() < end) {
        const started = process.hrtime.bigint();
        const res = await pool.request({ method: 'GET', path: path(random), headers: { 'x-api-key': key } });
        await res.body.arrayBuffer();
        requests++;
        if (res.statusCode >= 500 || res.statusCode === 429) errors++;
        if (Date.now() > warmEnd) latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    }),
  );
  const cpuMs = (cpuTimeMs(pid) - cpuBefore) / requests;
  const pgCpuMs = postgresCpuSince(pgBefore) / requests;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { rps: latencies.length / (seconds - 0.5), p50: at(0.5), p99: at(0.99), errors, cpuMs, pgCpuMs };
}

/** A ready deal's stored report (about 6 KB) and analysis (about 25 KB), shaped like the real ones. */
const month = (i: number) => `2026-${String(1 + (i % 12)).padStart(2, '0')}`;
const REPORT = {
  report_date: '2026-11-20',
  ai_summary: 'Steady deposits with two NSF events in the last quarter; existing MCA position detected. '.repeat(4),
  coverage: { months: 6, period_start: '2026-05-01', period_end: '2026-10-31' },
  financials: { avg_monthly_revenue: 84210.55, avg_daily_balance: 12903.1, total_deposits: 505263.3, true_revenue: 480100.2 },
  health: { score: 71, grade: 'B', factors: Array.from({ length: 9 }, (_, i) => ({ name: `factor_${i}`, score: 50 + i, weight: 11 })) },
  statements: Array.from({ length: 6 }, (_, i) => ({
    document_id: i + 1,
    bank_name: 'First Bank',
    period_start: `${month(i)}-01`,
    period_end: `${month(i)}-28`,
    opening_balance: 1000 + i,
    closing_balance: 2000 + i,
    deposits: 80000 + i,
    withdrawals: 79000 + i,
  })),
  monthly: Array.from({ length: 12 }, (_, i) => ({
    month: month(i),
    deposits: 80000 + i * 100,
    withdrawals: 78000 + i * 90,
    nsf_count: i % 3,
    avg_balance: 12000 + i * 10,
  })),
  lender_positions: Array.from({ length: 3 }, (_, i) => ({
    lender: `Funder ${i}`,
    amount: 1250.5 + i,
    frequency: 'daily',
    first_seen: '2026-06-01',
  })),
};
const ANALYSIS = {
  daily_balances: Array.from({ length: 180 }, (_, i) => ({
    date: `2026-05-${String(1 + (i % 28)).padStart(2, '0')}`,
    balance: 10000 + ((i * 37) % 5000),
  })),
  recurring: Array.from({ length: 40 }, (_, i) => ({ description: `ACH PAYMENT VENDOR ${i}`, amount: 120.5 + i, count: 6 })),
};

async function main(): Promise<void> {
  execFileSync('test', ['-f', MAIN]);
  const name = `ledgerlens_bench_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const dbUrl = new URL(ADMIN_URL);
  dbUrl.pathname = `/${name}`;
  const procs: ChildProcess[] = [];
  try {
    const baseEnv = {
      ...process.env,
      DATABASE_URL: dbUrl.toString(),
      REDIS_URL: process.env.BENCH_REDIS_URL ?? '',
      REDIS_PREFIX: `llbench:${name}`,
      NODE_ENV: 'development',
      DEMO_BOOTSTRAP: 'false',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      RATE_LIMIT_STANDARD: '1000000',
      QUOTA_MONTHLY_REQUESTS: '0',
    };
    // Migrate and create the organization through the CLI, as an operator would.
    const boot = JSON.parse(
      execFileSync(
        process.execPath,
        [CLI, 'bootstrap', '--org-name', 'Bench Funding', '--email', 'bench@example.test', '--password', 'bench-password-1', '--json'],
        { env: baseEnv, encoding: 'utf8' },
      ),
    ) as { organization: { id: number }; api_key: string };
    const orgId = boot.organization.id;

    const t0 = Date.now();
    const db = new Client({ connectionString: dbUrl.toString() });
    await db.connect();
    await db.query(`insert into organizations (name, created_at) select 'Other ' || g, now() from generate_series(1, 9) g`);
    const json = !LARGE;
    const seed = (org: string, count: number) =>
      db.query(
        `insert into deals (organization_id, livemode, business_name, dba_name, owner_name, industry, entity_type, source_type,
           status, funding_amount_requested, document_count, health_score, health_grade, decision, created_at, updated_at,
           report, analysis)
         select ${org}, g % 10 <> 0, 'Business ' || g || ' LLC', case when g % 3 = 0 then 'DBA ' || g end, 'Owner ' || g, 'retail',
           'llc', 'direct', (array['new','processing','under_review','ready','failed'])[1 + g % 5], 10000 + (g % 90) * 1000,
           g % 4, case when g % 5 = 3 then 40 + g % 60 end, case when g % 5 = 3 then 'B' end,
           (array[null,'approve','decline','funded'])[1 + g % 4], now() - (g || ' minutes')::interval,
           now() - ((g * 7) % 100000 || ' seconds')::interval,
           case when g % 5 = 3 and $3 then $1::jsonb end, case when g % 5 = 3 and $3 then $2::jsonb end
         from generate_series(1, ${count}) g`,
        [JSON.stringify(REPORT), JSON.stringify(ANALYSIS), json],
      );
    // DEALS live deals in the benchmarked organization (its test-mode rows come on top).
    await seed(`${orgId}`, Math.round(DEALS / 0.9));
    if (OTHER_DEALS > 0) await seed(`(select id from organizations where name = 'Other ' || (1 + g % 9))`, OTHER_DEALS);
    // as autovacuum leaves a table: statistics, and the visibility map index-only scans rely on
    await db.query('vacuum analyze deals');
    const ids = (
      await db.query<{ id: number }>('select id from deals where organization_id = $1 and livemode order by id', [orgId])
    ).rows.map((r) => r.id);
    const total = Number((await db.query('select count(*) from deals')).rows[0].count);
    await db.end();
    console.log(`seeded ${ids.length} live deals in organization ${orgId}, ${total} rows in deals, in ${Date.now() - t0} ms`);

    const apiPort = await freePort();
    const anchorPort = await freePort();
    // BENCH_PROFILE=dir: V8 CPU profiles of the API and the anchor (open in Chrome DevTools or speedscope).
    const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', resolve(process.env.BENCH_PROFILE)] : [];
    const api = spawn(process.execPath, [...profile, MAIN], {
      env: { ...baseEnv, PORT: String(apiPort), HOST: '127.0.0.1' },
      stdio: 'ignore',
    });
    const anchor = spawn(process.execPath, [...profile, ANCHOR], {
      env: { ...baseEnv, PORT: String(anchorPort), ORG_ID: String(orgId) },
      stdio: 'ignore',
    });
    procs.push(api, anchor);
    await waitFor(`http://127.0.0.1:${apiPort}/health`, api, 'the API');
    await waitFor(`http://127.0.0.1:${anchorPort}/v1/bench-noop`, anchor, 'the anchor');

    const pages = Math.max(1, Math.floor(ids.length / 25));
    const seeded = Math.round(DEALS / 0.9);
    const routes: { name: string; path: (r: () => number) => string; gate: boolean }[] = [
      { name: 'list', path: (r) => `/v1/deals?page=${1 + Math.floor(r() * Math.min(pages, 40))}&per_page=25`, gate: true },
      { name: 'get by id', path: (r) => `/v1/deals/${ids[Math.floor(r() * ids.length)]}`, gate: true },
      { name: 'stats', path: () => '/v1/deals/stats', gate: true },
      // an owner's name: a handful of the organization's deals match ("Owner 1234" also finds "Owner 12340")
      { name: 'search', path: (r) => `/v1/deals?q=Owner%20${1 + Math.floor(r() * seeded)}`, gate: true },
      { name: 'auth no-op', path: () => '/v1/bench-noop', gate: false },
    ];
    if (LARGE) routes.splice(0, routes.length, ...routes.filter((r) => r.name === 'list' || r.name === 'search'));
    const only = process.env.BENCH_ROUTES?.split(',');
    if (only) routes.splice(0, routes.length, ...routes.filter((r) => only.includes(r.name)));
    const servers = { api: `http://127.0.0.1:${apiPort}`, anchor: `http://127.0.0.1:${anchorPort}` };
    const pids = { api: api.pid, anchor: anchor.pid };
    // Both answer the same data: a benchmark of a server that fails fast would mean nothing.
    for (const route of routes) {
      const path = route.path(rng(7));
      const [a, b] = await Promise.all(
        Object.values(servers).map(async (base) => {
          const res = await fetch(base + path, { headers: { 'x-api-key': boot.api_key } });
          return { status: res.status, body: (await res.json()) as Record<string, unknown> };
        }),
      );
      const disagree = sameAnswer(route.name, a, b);
      if (disagree)
        throw new Error(`${route.name}: the servers disagree on ${path} (${disagree}): ${JSON.stringify([a, b]).slice(0, 600)}`);
    }
    // Warm both (JIT, connection pools, caches).
    for (const route of routes) for (const base of Object.values(servers)) await load(base, boot.api_key, route.path, 1.5);

    if (LARGE) {
      // The API alone: the page with its total and the search, at a few connections, against the target.
      console.log(`\n${CONNECTIONS} connections, ${SECONDS} s per route, the API alone`);
      const over: string[] = [];
      for (const route of routes) {
        const r = await load(servers.api, boot.api_key, route.path, SECONDS, pids.api);
        const sample = (await (await fetch(servers.api + route.path(rng(3)), { headers: { 'x-api-key': boot.api_key } })).json()) as {
          meta: Record<string, unknown>;
        };
        console.log(
          `${route.name.padEnd(8)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50.toFixed(1).padStart(6)} ms  p99 ${r.p99.toFixed(1).padStart(6)} ms (target < ${MAX_P99_MS})  errors ${r.errors}  meta ${JSON.stringify(sample.meta)}`,
        );
        if (!(r.p99 < MAX_P99_MS) || r.errors) over.push(route.name);
      }
      console.log(`load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores`);
      if (over.length) {
        console.error(`FAIL: ${over.join(', ')}: p99 at or above ${MAX_P99_MS} ms, or errors`);
        process.exitCode = 1;
      }
      return;
    }

    const rows: { route: string; api: Result; anchor: Result; ratio: number; gate: boolean }[] = [];
    const loadBefore = loadavg()[0];
    for (const route of routes) {
      const best: Record<'api' | 'anchor', Result | null> = { api: null, anchor: null };
      for (let round = 0; round < ROUNDS; round++) {
        // Alternate which goes first, so a load spike does not always land on the same side.
        const order = round % 2 === 0 ? (['anchor', 'api'] as const) : (['api', 'anchor'] as const);
        for (const side of order) {
          const r = await load(servers[side], boot.api_key, route.path, SECONDS, pids[side]);
          if (!best[side] || r.rps > best[side].rps) best[side] = r;
        }
      }
      rows.push({ route: route.name, api: best.api!, anchor: best.anchor!, ratio: best.api!.rps / best.anchor!.rps, gate: route.gate });
    }
    const loadAfter = loadavg()[0];

    const f = (n: number, d = 0) => n.toFixed(d).padStart(8);
    console.log(
      `\n${CONNECTIONS} connections, best of ${ROUNDS} x ${SECONDS} s per server and route (server log level ${baseEnv.LOG_LEVEL})`,
    );
    console.log(
      `${'route'.padEnd(12)}${'api rps'.padStart(9)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'anchor'.padStart(9)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}   ratio`,
    );
    for (const r of rows)
      console.log(
        `${r.route.padEnd(12)} ${f(r.api.rps)} ${f(r.api.p50, 1)} ${f(r.api.p99, 1)} ${f(r.anchor.rps)} ${f(r.anchor.p50, 1)} ${f(r.anchor.p99, 1)}   ${r.ratio.toFixed(2)}${r.gate ? ` (target >= ${MIN_RATIO})` : ''}${r.api.errors + r.anchor.errors ? ` errors ${r.api.errors}/${r.anchor.errors}` : ''}`,
      );
    console.log(
      `\nCPU time per request, ms (user + system, from /proc): the server process, and PostgreSQL's processes while it was measured`,
    );
    console.log(
      `${'route'.padEnd(12)}${'api'.padStart(9)}${'anchor'.padStart(9)}   anchor/api${'api pg'.padStart(10)}${'anchor pg'.padStart(10)}`,
    );
    for (const r of rows)
      console.log(
        `${r.route.padEnd(12)} ${f(r.api.cpuMs, 3)} ${f(r.anchor.cpuMs, 3)}   ${(r.anchor.cpuMs / r.api.cpuMs).toFixed(2).padStart(10)}${f(r.api.pgCpuMs, 3).padStart(10)}${f(r.anchor.pgCpuMs, 3).padStart(10)}`,
      );
    const loaded = loadBefore > 1.5 || loadAfter > 1.5;
    console.log(
      `\nload average ${loadBefore.toFixed(1)} -> ${loadAfter.toFixed(1)} on ${cpus().length} cores${loaded ? ': measured under load from other processes; absolute req/s are low, compare the ratios' : ''}`,
    );
    console.log(JSON.stringify({ bench: 'api', deals: ids.length, rows: total, results: rows }));
    const failed = rows.filter((r) => r.gate && r.ratio < MIN_RATIO);
    if (failed.length) {
      console.error(`FAIL: ${failed.map((r) => `${r.route} ratio ${r.ratio.toFixed(2)}`).join(', ')} below ${MIN_RATIO}`);
      process.exitCode = 1;
    }
  } finally {
    await Promise.all(procs.map(stop));
    await admin.query(`drop database if exists ${name} with (force)`).catch(() => undefined);
    await admin.end();
  }
}

/**
 * Why the API's and the anchor's answers to the same request differ, or null: the same deals in the
 * same order with the same page meta, the same deal, the same stats (averages within a cent).
 */
function sameAnswer(route: string, a: { status: number; body: Record<string, unknown> }, b: typeof a): string | null {
  if (route === 'auth no-op') return a.status === 404 && b.status === 404 ? null : 'status';
  if (a.status !== 200 || b.status !== 200) return 'status';
  if (route === 'list' || route === 'search') {
    const ids = (body: Record<string, unknown>) => JSON.stringify((body.data as { id: number }[]).map((d) => d.id));
    if (ids(a.body) !== ids(b.body)) return 'deals';
    if ((a.body.data as unknown[]).length === 0) return 'no deals';
    // the API may estimate a total above 10,000 (meta.total_estimated); the anchor counts
    const meta = a.body.meta as Record<string, unknown>;
    return meta.total_estimated || JSON.stringify(meta) === JSON.stringify(b.body.meta) ? null : 'meta';
  }
  const keys =
    route === 'get by id'
      ? ['id', 'business_name', 'status', 'funding_amount_requested', 'health_score', 'mode', 'created_at', 'updated_at']
      : ['total_deals', 'total_approved', 'total_declined', 'total_funded', 'deals_this_week', 'deals_this_month', 'deals_by_status'];
  for (const key of keys) if (JSON.stringify(a.body[key]) !== JSON.stringify(b.body[key])) return key;
  if (route === 'stats')
    for (const key of ['avg_health_score', 'avg_funding_requested'])
      if (Math.abs(Number(a.body[key]) - Number(b.body[key])) > 0.011) return key;
  return null;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
