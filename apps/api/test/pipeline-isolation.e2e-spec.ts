import { LAYOUTS } from '../../../tools/corpus/layouts';
import { makeStatement } from '../../../tools/corpus/corpus';
import { hostileFiles } from '../../../tools/corpus/others';
import { Rng } from '../../../tools/corpus/rng';
import { TestApp } from './support/harness';

/**
 * PIPELINE_ISOLATE=true parses each file in a worker thread with a hard time and heap limit:
 * hostile files fail their document and the server carries on. (Needs the build: `npm test` does it.)
 */
describe('pipeline with isolated parsing', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await TestApp.start({ PIPELINE_ISOLATE: 'true', PIPELINE_TIMEOUT_MS: '60000' });
  });
  afterAll(() => app?.close());

  it('reads a statement in a worker thread and fails hostile files without harming the server', async () => {
    const org = await app.newOrg('Isolated');
    const dealId = (await app.request('POST', '/v1/deals', { key: org.api_key, body: { business_name: 'Iso', funding_amount_requested: 1000 } })).body.id;
    const good = await makeStatement(LAYOUTS[1], 21, 30);
    const hostile = (await hostileFiles(new Rng(9), good.bytes)).filter((h) => /bomb|corrupt/.test(h.name));
    expect(hostile.length).toBeGreaterThanOrEqual(2);
    const fd = new FormData();
    fd.append('files', new Blob([good.bytes], { type: 'application/pdf' }), 'good.pdf');
    for (const h of hostile) fd.append('files', new Blob([h.bytes], { type: 'application/pdf' }), `${h.name}.pdf`);
    const res = await app.request('POST', `/v1/deals/${dealId}/documents/bulk`, { key: org.api_key, form: fd });
    const stored = res.body.uploaded as { id: number; filename: string }[];
    await app.settle();
    const docs = await Promise.all(stored.map(async (u) => (await app.request('GET', `/v1/documents/${u.id}`, { key: org.api_key })).body));
    const byName = Object.fromEntries(docs.map((d) => [d.filename, d]));
    expect(byName['good.pdf']).toMatchObject({ status: 'completed', transaction_count: 30 });
    for (const d of docs.filter((x) => x.filename !== 'good.pdf')) {
      expect(d.status).toBe('failed');
      expect(d.error).toMatch(/^PROCESSING_FAILED: (too_large|corrupt|blank)/);
    }
    expect((await app.request('GET', '/health', { unchecked: true })).status).toBe(200);
    expect((await app.request('GET', `/v1/deals/${dealId}`, { key: org.api_key })).body.status).toBe('ready');
  });
});
