import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { TestApp } from './support/harness';
import { JobQueue } from '../src/platform/queue/job-queue';
import { Receiver } from './support/receiver';
import { LAYOUTS } from '../../../tools/corpus/layouts';
import { makeStatement } from '../../../tools/corpus/corpus';

type Org = Awaited<ReturnType<TestApp['newOrg']>>;

const SECRET = 'whsec_c2VjcmV0LWZvci1tZXRyaWNzLTEyMzQ1Njc4OTA=';
const TOKEN = 'metrics-token-0123456789abcdef';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The Prometheus text format, parsed line by line (prom-client has no public parser). */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2].replace(/\\(.)/g, '$1');
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

/** The value of one series (0 when absent: a counter not yet incremented). */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const hit = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (hit.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${hit.length} series`);
  return hit[0]?.value ?? 0;
}

const scrape = async (url: string, token?: string): Promise<{ status: number; type: string | null; text: string }> => {
  const res = await fetch(`${url}/metrics`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
};

/**
 * /metrics end to end: real requests, a real statement through the pipeline and real webhook
 * deliveries to a receiver on 127.0.0.1, then the scraped text is parsed and each counter must
 * have moved by exactly what was done.
 */
describe('metrics', () => {
  let app: TestApp;
  let receiver: Receiver;
  let org: Org;
  const metricsUrl = () => `http://127.0.0.1:${app.running.metricsPort}`;
  const samples = async (url = app.url) => {
    const res = await scrape(url);
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^text\/plain; version=0\.0\.4/);
    return parse(res.text);
  };
  const newDeal = async (name: string) =>
    (await app.request('POST', '/v1/deals', { key: org.api_key, body: { business_name: name, funding_amount_requested: 25000 } })).body as {
      id: number;
    };

  beforeAll(async () => {
    app = await TestApp.start({ OUTBOUND_ALLOWLIST: '127.0.0.1/32', WEBHOOK_TIMEOUT_MS: '5000', METRICS_PORT: '0' });
    receiver = await Receiver.start(() => SECRET);
    org = await app.newOrg('Metrics');
  });
  afterAll(async () => {
    await app?.close();
    await receiver?.close();
  });

  it('counts requests by method, route template and status class, never by raw URL', async () => {
    const deal = await newDeal('Counted LLC');
    const before = await samples();
    for (let i = 0; i < 3; i++) expect((await app.request('GET', `/v1/deals/${deal.id}`, { key: org.api_key })).status).toBe(200);
    expect((await app.request('GET', '/v1/deals/987654321', { key: org.api_key })).status).toBe(404);
    expect((await app.request('GET', '/v1/deals', { key: null })).status).toBe(401);
    expect((await app.request('GET', `/no/such/route/${deal.id}`, { unchecked: true })).status).toBe(404);
    const after = await samples();

    const delta = (name: string, labels: Record<string, string>) => value(after, name, labels) - value(before, name, labels);
    const byId = { method: 'GET', route: '/v1/deals/:deal_id' };
    expect(delta('ledgerlens_http_requests_total', { ...byId, status_class: '2xx' })).toBe(3);
    expect(delta('ledgerlens_http_requests_total', { ...byId, status_class: '4xx' })).toBe(1);
    expect(delta('ledgerlens_http_requests_total', { method: 'GET', route: '/v1/deals', status_class: '4xx' })).toBe(1);
    expect(delta('ledgerlens_http_requests_total', { method: 'GET', route: 'unmatched', status_class: '4xx' })).toBe(1);
    expect(delta('ledgerlens_http_request_duration_seconds_count', { ...byId, status_class: '2xx' })).toBe(3);
    expect(delta('ledgerlens_http_request_duration_seconds_bucket', { ...byId, status_class: '2xx', le: '+Inf' })).toBe(3);
    // the scrape before this one is counted too (an ordinary route)
    expect(value(after, 'ledgerlens_http_requests_total', { method: 'GET', route: '/metrics', status_class: '2xx' })).toBeGreaterThan(0);

    const routes = new Set(after.filter((s) => s.labels.route).map((s) => s.labels.route));
    expect([...routes].filter((r) => r !== 'unmatched' && !r.startsWith('/'))).toEqual([]);
    expect([...routes].filter((r) => /\/\d+(\/|$)/.test(r) || r.includes('?'))).toEqual([]);
    // aggregates only: no label names an organization, a user, a key or a record
    const labelNames = new Set(after.flatMap((s) => Object.keys(s.labels)));
    expect([...labelNames].filter((l) => /org|user|key|deal|document|tenant|livemode/i.test(l))).toEqual([]);
  });

  it('times each pipeline step of a real upload and counts its parse signals; queue gauges settle at zero', async () => {
    const deal = await newDeal('Parsed LLC');
    const statement = await makeStatement(
      LAYOUTS.find((l) => l.name === 'sectioned_unsigned')!,
      11,
      40,
    );
    const before = await samples();
    const form = new FormData();
    form.append('file', new Blob([Buffer.from(statement.bytes)], { type: 'application/pdf' }), 'statement.pdf');
    const up = await app.request('POST', `/v1/deals/${deal.id}/documents`, { key: org.api_key, form });
    expect(up.status).toBe(201);
    await app.settle();
    const doc = (await app.request('GET', `/v1/documents/${up.body.id}`, { key: org.api_key })).body;
    expect(doc.status).toBe('completed');
    const after = await samples();
    const delta = (name: string, labels: Record<string, string> = {}) => value(after, name, labels) - value(before, name, labels);

    expect(delta('ledgerlens_documents_processed_total', { outcome: 'completed' })).toBe(1);
    expect(delta('ledgerlens_documents_processed_total', { outcome: 'failed' })).toBe(0);
    expect(delta('ledgerlens_documents_reconciled_total', { reconciled: String(doc.reconciliation.reconciled) })).toBe(1);
    expect(delta('ledgerlens_documents_reconciled_total', { reconciled: String(!doc.reconciliation.reconciled) })).toBe(0);
    expect(delta('ledgerlens_documents_needs_review_total')).toBe(doc.needs_review ? 1 : 0);
    const status = (await app.request('GET', `/v1/documents/${up.body.id}/status`, { key: org.api_key })).body;
    // every step the document recorded (the rule parser skips OCR and the LLM) is timed once
    const steps = (status.steps as { name: string }[]).map((s) => s.name).filter((n) => n !== 'completed');
    expect(steps).toEqual(expect.arrayContaining(['extracting_text', 'classifying', 'computing_metrics']));
    for (const step of ['extracting_text', 'running_ocr', 'classifying', 'parsing_with_llm', 'computing_metrics'])
      expect({ step, observed: delta('ledgerlens_pipeline_step_duration_seconds_count', { step }) }).toEqual({
        step,
        observed: steps.includes(step) ? 1 : 0,
      });
    expect(delta('ledgerlens_http_requests_total', { method: 'POST', route: '/v1/deals/:deal_id/documents', status_class: '2xx' })).toBe(1);

    for (const queue of ['documents', 'webhooks', 'crm']) {
      for (const state of ['waiting', 'active', 'delayed', 'failed'])
        expect(after.some((s) => s.name === 'ledgerlens_queue_jobs' && s.labels.queue === queue && s.labels.state === state)).toBe(true);
      expect(value(after, 'ledgerlens_queue_jobs', { queue, state: 'waiting' })).toBe(0);
      expect(value(after, 'ledgerlens_queue_oldest_waiting_age_seconds', { queue })).toBe(0);
    }
    expect(value(after, 'ledgerlens_queue_jobs', { queue: 'documents', state: 'active' })).toBe(0);
    // process default metrics
    expect(value(after, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(after.some((s) => s.name === 'nodejs_eventloop_lag_seconds')).toBe(true);
  }, 120_000);

  it('counts webhook outcomes: delivered, retrying (a retry is scheduled: a delayed job), failed', async () => {
    expect(
      (
        await app.request('PUT', '/v1/webhooks/config', {
          key: org.api_key,
          body: { url: receiver.url, secret: SECRET, events: ['deal.created'] },
        })
      ).status,
    ).toBe(200);
    const before = await samples();
    receiver.respond = () => 200;
    await newDeal('Delivered LLC');
    await app.drainEvents();
    await app.get(JobQueue).idle();
    receiver.respond = () => 500;
    await newDeal('Retried LLC');
    await app.drainEvents();
    await app.get(JobQueue).idle();
    const test = await app.request('POST', '/v1/webhooks/test', { key: org.api_key, body: {} });
    expect(test.body.data.status).toBe('failed');
    const after = await samples();
    const delta = (outcome: string) =>
      value(after, 'ledgerlens_webhook_deliveries_total', { outcome }) - value(before, 'ledgerlens_webhook_deliveries_total', { outcome });
    expect({ delivered: delta('delivered'), retrying: delta('retrying'), failed: delta('failed') }).toEqual({
      delivered: 1,
      retrying: 1,
      failed: 1,
    });
    expect(receiver.received.length).toBeGreaterThanOrEqual(3);
    // the retry waits 30 s as a delayed job: the queue gauge shows it
    expect(value(after, 'ledgerlens_queue_jobs', { queue: 'webhooks', state: 'delayed' })).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it('serves the same registry on the METRICS_PORT listener, and only /metrics there', async () => {
    // The declared families, not the sample names: a labelled gauge such as nodejs_active_requests
    // has a sample only while the process has such a request open, so two scrapes' sample names
    // can differ by the instant they were taken.
    const families = async (url: string) => {
      const res = await scrape(url);
      expect(res.status).toBe(200);
      return [...res.text.matchAll(/^# TYPE (\S+) \S+$/gm)].map((m) => m[1]).sort();
    };
    const viaPort = await families(metricsUrl());
    expect(viaPort).toEqual(await families(app.url));
    expect(viaPort).toEqual(
      expect.arrayContaining(['ledgerlens_documents_processed_total', 'ledgerlens_queue_jobs', 'nodejs_active_requests']),
    );
    const other = await fetch(`${metricsUrl()}/v1/deals`);
    expect(other.status).toBe(404);
    expect(((await other.json()) as { code: string }).code).toBe('NOT_FOUND');
  });

  it('is not in the API reference (an operational endpoint, like /health)', async () => {
    const spec = JSON.parse(readFileSync(resolve(__dirname, '../../../openapi/openapi.json'), 'utf8')) as { paths: object };
    const paths = Object.keys(spec.paths);
    expect(paths).toContain('/v1/deals/{deal_id}');
    expect(paths).not.toContain('/metrics');
    expect(paths).not.toContain('/health');
  });
});

describe('metrics access and roles', () => {
  it('with METRICS_TOKEN, both listeners refuse a scrape without it or with a wrong one', async () => {
    const app = await TestApp.start({ METRICS_TOKEN: TOKEN, METRICS_PORT: '0' });
    try {
      for (const url of [app.url, `http://127.0.0.1:${app.running.metricsPort}`]) {
        const none = await scrape(url);
        expect({ url, status: none.status, code: JSON.parse(none.text).code }).toEqual({ url, status: 401, code: 'AUTH_REQUIRED' });
        const wrong = await scrape(url, `${TOKEN}x`);
        expect({ url, status: wrong.status, code: JSON.parse(wrong.text).code }).toEqual({
          url,
          status: 401,
          code: 'INVALID_CREDENTIALS',
        });
        const ok = await scrape(url, TOKEN);
        expect(ok.status).toBe(200);
        expect(parse(ok.text).some((s) => s.name === 'ledgerlens_queue_jobs')).toBe(true);
      }
      // an API key is not a metrics token
      const org = await app.newOrg('Scraper');
      expect((await scrape(app.url, org.api_key)).status).toBe(401);
    } finally {
      await app.close();
    }
  });

  it('in production without METRICS_TOKEN, the API port refuses /metrics; the METRICS_PORT listener serves it', async () => {
    const app = await TestApp.start({ NODE_ENV: 'production', TRUST_PROXY: 'true', METRICS_PORT: '0' });
    try {
      const refused = await scrape(app.url);
      expect({ status: refused.status, code: JSON.parse(refused.text).code }).toEqual({ status: 403, code: 'FORBIDDEN' });
      expect((await scrape(`http://127.0.0.1:${app.running.metricsPort}`)).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('a worker-role process (no API port) serves its metrics on METRICS_PORT', async () => {
    const worker = await TestApp.start({ METRICS_PORT: '0' }, { role: 'worker' });
    try {
      const res = await scrape(`http://127.0.0.1:${worker.running.metricsPort}`);
      expect(res.status).toBe(200);
      const s = parse(res.text);
      expect(
        s
          .filter((x) => x.name === 'ledgerlens_queue_jobs' && x.labels.state === 'waiting')
          .map((x) => x.labels.queue)
          .sort(),
      ).toEqual(['crm', 'documents', 'webhooks']);
      expect(value(s, 'ledgerlens_documents_processed_total', { outcome: 'completed' })).toBe(0);
      expect(value(s, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    } finally {
      await worker.close();
    }
  });
});
