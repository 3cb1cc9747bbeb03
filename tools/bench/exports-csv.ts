import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Client } from 'pg';
import { startServer, stopServer } from './server';

/**
 * Streamed CSV export of a deal with 1,000,000 transactions: rows per second and the server's
 * resident memory while it streams (constant memory: the peak stays near the idle figure).
 * Needs PostgreSQL (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres): the
 * rows are written with one INSERT ... SELECT generate_series, which the embedded database would
 * take minutes for. Exits non-zero below target.
 */
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const MIN_ROWS_PER_SECOND = 20_000;
const MAX_RSS_GROWTH_MB = 64;

const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function sql(url: string, text: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

async function main(): Promise<void> {
  const name = `ledgerlens_bench_exports_${randomBytes(4).toString('hex')}`;
  await sql(adminUrl, `create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const server = await startServer({ DATABASE_URL: url.toString(), RATE_LIMIT_STANDARD: '100000', RATE_LIMIT_WRITE: '100000' });
  try {
    const headers = { 'X-API-Key': server.key, 'Content-Type': 'application/json' };
    const deal = (await (
      await fetch(`${server.url}/v1/deals`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ business_name: 'Bench Export LLC', funding_amount_requested: 50000 }),
      })
    ).json()) as { id: number };
    const t0 = performance.now();
    const [row] = await sql(url.toString(), 'select organization_id, livemode from deals where id = $1', [deal.id]);
    const [doc] = await sql(
      url.toString(),
      `insert into documents (organization_id, livemode, deal_id, filename, file_size, mime_type, sha256, storage_key, status, steps, document_type, created_at, updated_at)
       values ($1, $2, $3, 'bench-statement.pdf', 1, 'application/pdf', md5(random()::text), 'bench/none', 'completed', '[]', 'bank_statement', now(), now()) returning id`,
      [row.organization_id, row.livemode, deal.id],
    );
    await sql(
      url.toString(),
      `insert into transactions (organization_id, livemode, deal_id, document_id, position, date, description, amount, balance, transaction_type, category,
         is_nsf_fee, is_overdraft_fee, is_large_deposit, is_large_strange, is_repeat_charge, is_suspicious, screening_bucket, flag_reason, correction_count)
       select $1, $2, $3, $4, g, to_char(date '2020-01-01' + (g / 400), 'YYYY-MM-DD'),
         case when g % 1000 = 0 then '=HYPERLINK("x","y") ' || g else 'SQUARE INC DEPOSIT, REF "' || g || '"' end,
         case when g % 3 = 0 then -((g % 500) + 0.25) else (g % 2000) + 0.5 end, 10000 + (g % 7000), case when g % 3 = 0 then 'debit' else 'credit' end,
         'other', g % 997 = 0, false, false, false, g % 50 = 0, false, case when g % 50 = 0 then 'repeat_charge' end, case when g % 50 = 0 then 'Repeated charge' end, 0
       from generate_series(1, ${ROWS}) g`,
      [row.organization_id, row.livemode, deal.id, doc.id],
    );
    await sql(url.toString(), 'analyze transactions');
    process.stdout.write(
      `exports-csv: seeded ${ROWS.toLocaleString('en-US')} transactions in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
    );

    const pid = server.proc.pid!;
    const idleRss = rssMb(pid);
    let peakRss = idleRss;
    const timeline: number[] = [];
    const sampler = setInterval(() => {
      const rss = rssMb(pid);
      peakRss = Math.max(peakRss, rss);
      if (timeline.length < 1000) timeline.push(Math.round(rss));
    }, 50);
    const start = performance.now();
    let firstByteMs = 0;
    let lines = 0;
    let bytes = 0;
    const res = await fetch(`${server.url}/v1/deals/${deal.id}/export/csv`, { headers: { 'X-API-Key': server.key } });
    if (res.status !== 200 || !res.body) throw new Error(`export answered ${res.status}`);
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      if (!firstByteMs) firstByteMs = performance.now() - start;
      bytes += chunk.length;
      for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines++;
    }
    const seconds = (performance.now() - start) / 1000;
    clearInterval(sampler);
    const rows = lines - 1;
    const rate = rows / seconds;
    const growth = peakRss - idleRss;
    process.stdout.write(
      `exports-csv: ${rows.toLocaleString('en-US')} rows, ${(bytes / 1e6).toFixed(0)} MB in ${seconds.toFixed(1)} s: ` +
        `${Math.round(rate).toLocaleString('en-US')} rows/s, first byte ${firstByteMs.toFixed(0)} ms; ` +
        `server RSS idle ${idleRss.toFixed(0)} MB, peak ${peakRss.toFixed(0)} MB (+${growth.toFixed(0)} MB)\n`,
    );
    const tenth = Math.max(1, Math.floor(timeline.length / 10));
    process.stdout.write(`exports-csv: server RSS (MB) over the export: ${timeline.filter((_, i) => i % tenth === 0).join(' ')}\n`);
    const ok = rows === ROWS && rate >= MIN_ROWS_PER_SECOND && growth <= MAX_RSS_GROWTH_MB;
    process.stdout.write(
      `exports-csv: target all ${ROWS} rows, >= ${MIN_ROWS_PER_SECOND} rows/s, RSS growth <= ${MAX_RSS_GROWTH_MB} MB: ${ok ? 'PASS' : 'FAIL'}\n`,
    );
    if (!ok) process.exitCode = 1;
  } finally {
    await stopServer(server);
    await sql(adminUrl, `drop database if exists ${name} with (force)`);
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
