import { LAYOUTS } from '../../../tools/corpus/layouts';
import { makeStatement } from '../../../tools/corpus/corpus';
import { DocumentProcessor } from '../src/modules/pipeline/services/processing.processor';
import { TestApp } from './support/harness';

/**
 * The documents queue is fair between organizations: one organization's backlog never runs ahead
 * of another organization's first document (in-process queue here; BullMQ when the run has Redis).
 * One document at a time, and the first one held until everything is queued, so the order is
 * decided by the queue alone.
 */
describe('document processing is fair between organizations', () => {
  let app: TestApp;
  let pdf: Uint8Array;

  beforeAll(async () => {
    app = await TestApp.start({ PIPELINE_CONCURRENCY: '1', RATE_LIMIT_UPLOAD: '100000', RATE_LIMIT_WRITE: '100000' });
    pdf = (
      await makeStatement(
        LAYOUTS.find((l) => l.name === 'sectioned_unsigned')!,
        5,
        6,
      )
    ).bytes;
  }, 60_000);
  afterAll(() => app?.close());

  const newDeal = async (key: string) =>
    (await app.request('POST', '/v1/deals', { key, body: { business_name: 'Queue Co', funding_amount_requested: 1000 } })).body
      .id as number;
  const upload = async (key: string, dealId: number, files: string[]) => {
    const form = new FormData();
    for (const name of files) form.append('files', new Blob([pdf], { type: 'application/pdf' }), name);
    const res = await app.request('POST', `/v1/deals/${dealId}/documents/bulk`, { key, form });
    expect(res.status).toBe(200);
    return (res.body.uploaded as { id: number; filename: string }[]).map((d) => [d.id, d.filename] as const);
  };

  it("another organization's first document runs before the rest of one organization's backlog", async () => {
    const a = await app.newOrg('Backlog Org');
    const b = await app.newOrg('Waiting Org');
    const processor = app.get(DocumentProcessor);
    const run = processor.run.bind(processor);
    const started: number[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let first!: () => void;
    const firstStarted = new Promise<void>((r) => (first = r));
    const spy = jest.spyOn(processor, 'run').mockImplementation(async (job) => {
      started.push(job.documentId);
      if (started.length === 1) {
        first();
        await held;
      }
      return run(job);
    });
    try {
      const backlog = await upload(a.api_key, await newDeal(a.api_key), ['a1.pdf', 'a2.pdf', 'a3.pdf', 'a4.pdf']);
      await firstStarted;
      const [[waiting]] = await upload(b.api_key, await newDeal(b.api_key), ['b1.pdf']);
      release();
      await app.settle();
      const names = new Map<number, string>([...backlog, [waiting, 'b1.pdf']]);
      expect(started.map((id) => names.get(id))).toEqual(['a1.pdf', 'b1.pdf', 'a2.pdf', 'a3.pdf', 'a4.pdf']);
    } finally {
      spy.mockRestore();
    }
  }, 120_000);
});
