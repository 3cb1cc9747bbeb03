/**
 * Fuzzing benchmark, black-box over HTTP against the built server on the embedded default:
 * >= 10,000 schema-aware mutated requests generated from openapi/openapi.json (see
 * tools/fuzz/openapi-fuzz.ts). Prints a summary table and exits non-zero on any failure (a 5xx,
 * a 4xx outside the error envelope, a request left without an answer) or if the server stops
 * answering /health.
 *
 *   npm run bench:fuzz [-- --requests 10000 --seed 1 --concurrency 8]
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { LAYOUTS } from '../corpus/layouts';
import { makeStatement } from '../corpus/corpus';
import { createFuzzFixtures } from '../fuzz/fixtures';
import { formatSummary, OpenApiDoc, OpenApiFuzzer } from '../fuzz/openapi-fuzz';
import { startServer, stopServer } from './server';

const ROOT = resolve(__dirname, '../../..');
const MIN_REQUESTS = 10_000;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      requests: { type: 'string', default: String(MIN_REQUESTS) },
      seed: { type: 'string', default: '1' },
      concurrency: { type: 'string', default: '8' },
    },
  });
  const requests = Number(values.requests);
  const seed = Number(values.seed);
  const doc = JSON.parse(readFileSync(join(ROOT, 'openapi/openapi.json'), 'utf8')) as OpenApiDoc;
  const unlimited = '1000000';
  const server = await startServer({
    LOG_LEVEL: 'fatal',
    RATE_LIMIT_STANDARD: unlimited,
    RATE_LIMIT_WRITE: unlimited,
    RATE_LIMIT_UPLOAD: unlimited,
    RATE_LIMIT_AUTH: unlimited,
  });
  let exitCode = 1;
  try {
    const statement = await makeStatement(
      LAYOUTS.find((l) => l.name === 'sectioned_unsigned')!,
      11,
      20,
    );
    // The benchmark cannot await the server's queue: it polls the document until it is terminal.
    const settle = async () => {
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        const docs = (await (await fetch(`${server.url}/v1/deals?per_page=1`, { headers: { 'X-API-Key': server.key } })).json()) as {
          data?: { status: string }[];
        };
        if (docs.data?.[0]?.status !== 'processing') return;
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const fixtures = await createFuzzFixtures(server.url, server.key, statement.bytes, settle);
    const summary = await new OpenApiFuzzer(
      { baseUrl: server.url, doc, ...fixtures },
      { seed, requests, concurrency: Number(values.concurrency) },
    ).run();
    const health = await fetch(`${server.url}/health`, { signal: AbortSignal.timeout(5000) }).then(
      (r) => r.status,
      () => 0,
    );
    console.log(`Fuzzing ${server.url} from openapi/openapi.json (seed ${seed}, concurrency ${values.concurrency})\n`);
    console.log(formatSummary(summary, summary.byClass.network));
    console.log(`\n/health after the run: ${health || 'no answer'}`);
    const ok = summary.failures.length === 0 && health === 200 && summary.requests >= Math.min(requests, MIN_REQUESTS);
    if (requests < MIN_REQUESTS) console.log(`note: ${requests} requests (the benchmark's target is >= ${MIN_REQUESTS})`);
    console.log(ok ? '\nPASS: no 5xx, every 4xx in the error envelope' : '\nFAIL');
    exitCode = ok ? 0 : 1;
  } finally {
    await stopServer(server);
  }
  process.exit(exitCode);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
