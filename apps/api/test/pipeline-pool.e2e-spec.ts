import { LAYOUTS } from '../../../tools/corpus/layouts';
import { makeStatement } from '../../../tools/corpus/corpus';
import { multiFilterBomb, nestedXObjects } from '../../../tools/corpus/hostile';
import { hostileFiles } from '../../../tools/corpus/others';
import { Rng } from '../../../tools/corpus/rng';
import { TestApp } from './support/harness';
import { seedDocument } from './support/seed-document';
import { Database } from '../src/platform/database/database.service';
import { JobQueue, QUEUES } from '../src/platform/queue/job-queue';
import { Document } from '../src/modules/pipeline/entities/document.entities';
import { documentJobId } from '../src/modules/pipeline/services/processing.jobs';
import { DocumentProcessor } from '../src/modules/pipeline/services/processing.processor';
import { DocumentProducer } from '../src/modules/pipeline/services/processing.producer';

/**
 * Parsing runs in a warm pool of child processes with hard time and memory limits; a job out of
 * retries fails its document; a restart resumes documents under fresh job ids; a periodic sweep
 * fails documents stuck beyond a bound. Runs on the in-process queue and (test:real) on BullMQ.
 */
describe('pipeline: parser pool, retries, resume, sweeper', () => {
  let app: TestApp;
  let org: Awaited<ReturnType<TestApp['newOrg']>>;
  let statementBytes: Uint8Array;

  beforeAll(async () => {
    app = await TestApp.start({
      PIPELINE_TIMEOUT_MS: '30000',
      PIPELINE_RETRY_BASE_MS: '10',
      PIPELINE_SWEEP_SECONDS: '1',
      PIPELINE_STUCK_SECONDS: '600',
    });
    org = await app.newOrg('Pool');
    statementBytes = (await makeStatement(LAYOUTS[1], 21, 30)).bytes;
  });
  afterAll(() => app?.close());

  const newDeal = async () =>
    (await app.request('POST', '/v1/deals', { key: org.api_key, body: { business_name: 'Pool Co', funding_amount_requested: 1000 } })).body
      .id as number;
  const getDoc = async (id: number) => (await app.request('GET', `/v1/documents/${id}`, { key: org.api_key })).body;
  /** Polls (25 ms) until the document is terminal: BullMQ reports a final failure after the job settles. */
  const terminal = async (id: number, withinMs = 15_000) => {
    const until = Date.now() + withinMs;
    for (;;) {
      const d = await getDoc(id);
      if (['completed', 'failed', 'cancelled'].includes(d.status) || Date.now() > until) return d;
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  const seed = (dealId: number, status: Document['status'], storageKey?: string) =>
    seedDocument(app, org.organization.id, dealId, status, storageKey ? { storageKey } : { bytes: statementBytes });

  it('parses in warm child processes and fails hostile files (nested forms, flate chains) without harming the server', async () => {
    expect(app.get(DocumentProcessor).parserPool()).toBeNull(); // started by the first document
    const dealId = await newDeal();
    const hostile = [
      ...(await hostileFiles(new Rng(9), statementBytes)).filter((h) => /bomb|corrupt/.test(h.name)),
      { name: 'nested_xobjects', bytes: nestedXObjects() },
      { name: 'multi_filter_bomb', bytes: multiFilterBomb() },
    ];
    const fd = new FormData();
    fd.append('files', new Blob([statementBytes], { type: 'application/pdf' }), 'good.pdf');
    for (const h of hostile) fd.append('files', new Blob([h.bytes], { type: 'application/pdf' }), `${h.name}.pdf`);
    const res = await app.request('POST', `/v1/deals/${dealId}/documents/bulk`, { key: org.api_key, form: fd });
    const stored = res.body.uploaded as { id: number; filename: string }[];
    expect(stored).toHaveLength(hostile.length + 1);
    await app.settle();
    const docs = await Promise.all(stored.map((u) => getDoc(u.id)));
    const byName = Object.fromEntries(docs.map((d) => [d.filename, d]));
    expect(byName['good.pdf']).toMatchObject({ status: 'completed', transaction_count: 30 });
    for (const d of docs.filter((x) => x.filename !== 'good.pdf')) {
      expect(d.status).toBe('failed');
      expect(d.error).toMatch(/^PROCESSING_FAILED: (too_large|corrupt|blank)/);
    }
    expect(byName['nested_xobjects.pdf'].error).toMatch(/XObject draws/);
    expect(byName['multi_filter_bomb.pdf'].error).toMatch(/compression bomb/);
    expect((await app.request('GET', '/health', { unchecked: true })).status).toBe(200);
    expect((await app.request('GET', `/v1/deals/${dealId}`, { key: org.api_key })).body.status).toBe('ready');
    const pids = app.get(DocumentProcessor).parserPool()!.pids();
    expect(pids).toHaveLength(2);
    expect(pids).not.toContain(process.pid);
  });

  it('fails a document whose job exhausted its retries, with the reason', async () => {
    const dealId = await newDeal();
    // its stored file is gone: every attempt fails (not the document's content: retried first)
    const doc = await seed(dealId, 'uploaded', `${org.organization.id}/live/missing-file`);
    await app.get(DocumentProducer).enqueue(doc);
    const d = await terminal(doc.id);
    expect(d.status).toBe('failed');
    expect(d.error).toMatch(/^PROCESSING_FAILED: retries exhausted: .*(ENOENT|no such file)/);
    await app.drainEvents(); // the lifecycle follows document.failed as an event: let it run before reading the deal
    expect((await app.request('GET', `/v1/deals/${dealId}`, { key: org.api_key })).body.status).toBe('failed'); // every document failed: the deal says so (issue 10)
  });

  it('resumes an unfinished document under a fresh job id when its id is taken by a finished job', async () => {
    const dealId = await newDeal();
    const doc = await seed(dealId, 'extracting_text');
    // a job of this id already ran (and found nothing to do): BullMQ keeps it and would swallow a re-add
    await app.get(JobQueue).enqueue(QUEUES.documents, documentJobId(doc), { documentId: doc.id, attempt: 99 });
    await app.settle();
    expect((await getDoc(doc.id)).status).toBe('extracting_text');
    expect(await app.get(DocumentProducer).recover()).toBeGreaterThanOrEqual(1);
    await app.settle();
    expect(await terminal(doc.id)).toMatchObject({ status: 'completed', transaction_count: 30 });
  });

  it('sweeps documents stuck beyond PIPELINE_STUCK_SECONDS every PIPELINE_SWEEP_SECONDS, and only those', async () => {
    const dealId = await newDeal();
    const stuck = await seed(dealId, 'running_ocr');
    const fresh = await seed(dealId, 'extracting_text');
    await app
      .get(Database)
      .system()
      .nativeUpdate(Document, { id: stuck.id }, { updatedAt: new Date(Date.now() - 3600_000) }, { filters: false });
    const d = await terminal(stuck.id, 10_000);
    expect(d.status).toBe('failed');
    expect(d.error).toBe('PROCESSING_FAILED: stuck: no progress for more than 600 s');
    expect(await app.get(DocumentProcessor).sweep()).toBe(0);
    expect((await getDoc(fresh.id)).status).toBe('extracting_text');
    await app.request('POST', `/v1/documents/${fresh.id}/cancel`, { key: org.api_key });
  });
});
