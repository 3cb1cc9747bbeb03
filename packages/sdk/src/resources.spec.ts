import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { TestApp } from '../../../apps/api/test/support/harness';
import { LAYOUTS } from '../../../tools/corpus/layouts';
import { makeStatement, CorpusItem } from '../../../tools/corpus/corpus';
import { Ledgerlens, LedgerlensError, LedgerlensWaitError } from './index';

/** The workflow resources against the real server: upload, wait, read, correct, configure. */
describe('@ledgerlens/sdk resources against the real API', () => {
  let app: TestApp;
  let client: Ledgerlens;
  let apiKey: string;
  let orgId: number;
  let statement: CorpusItem;
  let other: CorpusItem;
  const layout = (name: string) => LAYOUTS.find((l) => l.name === name)!;

  beforeAll(async () => {
    app = await TestApp.start();
    const org = await app.newOrg('SDK Resources Org');
    apiKey = org.api_key;
    orgId = org.organization.id;
    client = new Ledgerlens({ baseUrl: app.url, apiKey, sleep: async () => undefined });
    statement = await makeStatement(layout('signed_single_column'), 41, 30);
    other = await makeStatement(layout('sectioned_unsigned'), 42, 25);
  });
  afterAll(() => app?.close());

  it('uploads from a Buffer, a file path, a Node stream and a Blob; waits until ready over live events', async () => {
    const deal = await client.deals.create({ business_name: 'Upload Ways LLC', funding_amount_requested: 30000 });
    const dir = mkdtempSync(join(tmpdir(), 'sdk-upload-'));
    const path = join(dir, 'march.pdf');
    writeFileSync(path, other.bytes);

    const fromBuffer = await client.documents.upload(deal.id, Buffer.from(statement.bytes), { filename: 'feb.pdf', label: 'Operating' });
    const fromPath = await client.documents.upload(deal.id, path, { documentType: 'bank_statement' });
    const fromStream = await client.documents.upload(deal.id, {
      file: Readable.from([Buffer.from(statement.bytes)]),
      filename: 'copy.pdf',
    });
    const fromBlob = await client.documents.upload(deal.id, new Blob([other.bytes], { type: 'application/pdf' }), { filename: 'blob.pdf' });
    expect([fromBuffer, fromPath, fromStream, fromBlob].map((d) => d.filename)).toEqual(['feb.pdf', 'march.pdf', 'copy.pdf', 'blob.pdf']);

    const ready = await client.deals.waitUntilReady(deal.id, { timeout: 120_000 });
    expect(ready.status).toBe('ready');
    // typed as ReadyDeal: the report sections are there (no null check needed), and so they are on the wire
    expect(ready.recommendation.decision).toEqual(expect.any(String));
    for (const section of ['report_date', 'coverage', 'financials', 'nsf_overdraft', 'screening', 'health', 'recommendation'] as const)
      expect(ready[section]).not.toBeNull();
    const docs: string[] = [];
    for await (const d of client.documents.listAll(deal.id)) docs.push(`${d.filename}:${d.status}`);
    expect(docs.sort()).toEqual(['blob.pdf:completed', 'copy.pdf:completed', 'feb.pdf:completed', 'march.pdf:completed']);

    // the stored file comes back byte for byte, as a stream
    const download = await client.documents.download(fromPath.id);
    expect(download).toMatchObject({ contentType: 'application/pdf', size: other.bytes.length });
    const back = Buffer.from(await new Response(download.stream).arrayBuffer());
    expect(back.equals(Buffer.from(other.bytes))).toBe(true);

    // paginated lists with path parameters, item by item
    let count = 0;
    for await (const t of client.transactions.listAllForDeal(deal.id, { per_page: 7 })) {
      expect(t.deal_id).toBe(deal.id);
      count++;
    }
    const page = await client.transactions.listForDeal(deal.id, { per_page: 1 });
    expect(count).toBe(page.meta.total);
    expect(count).toBe(2 * statement.truth.transactions!.length + 2 * other.truth.transactions!.length);
    let pages = 0;
    for await (const p of client.pages('/v1/documents/{document_id}/transactions', {
      path: { document_id: fromBuffer.id },
      query: { per_page: 10 },
    })) {
      expect(p.meta.per_page).toBe(10);
      pages++;
    }
    expect(pages).toBe(Math.ceil(statement.truth.transactions!.length / 10));

    const rec = await client.deals.recommendation(deal.id);
    expect(['approve', 'review', 'decline']).toContain(rec.decision);
  });

  it('waits by polling when asked to, and names the reason when it gives up', async () => {
    const deal = await client.deals.create({ business_name: 'Polling Co', funding_amount_requested: 10000 });
    await client.documents.upload(deal.id, statement.bytes, { filename: 's.pdf' });
    const ready = await client.deals.waitUntilReady(deal.id, { useEvents: false, pollIntervalMs: 50, timeoutMs: 120_000 });
    expect(ready.status).toBe('ready');

    const failed = await client.deals.create({ business_name: 'Broken Files Co', funding_amount_requested: 10000 });
    await client.documents.upload(failed.id, Buffer.from('%PDF-1.4\n% not really a pdf\n'), { filename: 'broken.pdf' });
    const err = await client.deals.waitUntilReady(failed.id, { timeoutMs: 120_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LedgerlensWaitError);
    expect(err).toMatchObject({ reason: 'failed', deal: expect.objectContaining({ id: failed.id, status: 'failed' }) });

    const empty = await client.deals.create({ business_name: 'Nothing Uploaded Co', funding_amount_requested: 10000 });
    const timeout = (await client.deals
      .waitUntilReady(empty.id, { timeoutMs: 1000, pollIntervalMs: 50 })
      .catch((e: unknown) => e)) as LedgerlensWaitError;
    expect(timeout).toMatchObject({ name: 'LedgerlensWaitError', reason: 'timeout' });
    // the deal as last read (null only when even the first read took longer than the timeout)
    if (timeout.deal !== null) expect(timeout.deal).toMatchObject({ id: empty.id, status: 'new' });

    const aborted = new AbortController();
    aborted.abort(new Error('user cancelled'));
    await expect(client.deals.waitUntilReady(empty.id, { signal: aborted.signal })).rejects.toThrow('user cancelled');

    const foreign = await client.deals.waitUntilReady(999_999, { timeoutMs: 5000 }).catch((e: unknown) => e);
    expect(foreign).toMatchObject({ status: 404, code: 'DEAL_NOT_FOUND' });
  });

  it('a lost answer to an upload is retried with the same Idempotency-Key: one document, replayed', async () => {
    const deal = await client.deals.create({ business_name: 'Lost Answer LLC', funding_amount_requested: 5000 });
    const keys: string[] = [];
    let calls = 0;
    const flaky = new Ledgerlens({
      baseUrl: app.url,
      apiKey,
      sleep: async () => undefined,
      fetch: async (input, init) => {
        const req = new Request(input, init);
        keys.push(req.headers.get('idempotency-key') ?? '');
        const res = await fetch(req);
        if (++calls === 1) {
          await res.arrayBuffer();
          throw new TypeError('socket hang up'); // the server acted, the client never heard
        }
        return res;
      },
    });
    const doc = await flaky.documents.upload(deal.id, statement.bytes, { filename: 'once.pdf' });
    expect(calls).toBe(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    const list = await client.documents.list(deal.id);
    expect(list.meta.total).toBe(1);
    expect(list.data[0].id).toBe(doc.id);
  });

  it('error messages name the fields that failed validation', async () => {
    const err = (await client.deals
      .create({ business_name: '', funding_amount_requested: -5 })
      .catch((e: unknown) => e)) as LedgerlensError;
    expect(err).toBeInstanceOf(LedgerlensError);
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.message).toContain('business_name');
    expect(err.message).toContain('funding_amount_requested');
  });

  it('streams live events as an async iterator', async () => {
    const deal = await client.deals.create({ business_name: 'Live Events LLC', funding_amount_requested: 5000 });
    const stop = new AbortController();
    const seen: string[] = [];
    const reading = (async () => {
      for await (const e of client.events.stream({ dealId: deal.id, signal: stop.signal })) {
        expect(e.data.deal_id).toBe(deal.id);
        seen.push(e.event);
        if (e.event === 'deal.ready') return e;
      }
      return null;
    })();
    await client.documents.upload(deal.id, statement.bytes, { filename: 'live.pdf' });
    const last = await reading;
    stop.abort();
    expect(last?.id).toMatch(/^\d+$/);
    // the same event in the envelope webhooks deliver, typed by its type
    const envelope = last!.envelope!;
    expect(envelope).toMatchObject({ type: 'deal.ready', event: 'deal.ready', deal_id: deal.id, id: expect.stringMatching(/^evt_/) });
    if (envelope.type !== 'deal.ready') throw new Error('not deal.ready');
    expect(envelope.data).toMatchObject({ deal_id: deal.id, business_name: 'Live Events LLC', status: 'ready' });
    expect(envelope.timestamp).toBe(envelope.created_at);
    expect(seen).toEqual(expect.arrayContaining(['document.uploaded', 'document.processed', 'deal.ready']));

    // resuming from an event id replays what came after it
    const replay: string[] = [];
    const resume = new AbortController();
    for await (const e of client.events.stream({ dealId: deal.id, lastEventId: '0', signal: resume.signal })) {
      replay.push(e.event);
      if (e.id === last?.id) break;
    }
    expect(replay).toEqual(expect.arrayContaining(['deal.created', 'document.uploaded', 'deal.ready']));
  });

  it('exports as streams and share links, viewed without a credential', async () => {
    const deal = await client.deals.create({ business_name: 'Exports And Shares LLC', funding_amount_requested: 15000 });
    await client.documents.upload(deal.id, statement.bytes, { filename: 'exp.pdf' });
    await client.deals.waitUntilReady(deal.id, { timeoutMs: 120_000 });

    const pdf = await client.exports.dealPdf(deal.id);
    expect(pdf.contentType).toContain('application/pdf');
    const bytes = Buffer.from(await new Response(pdf.stream).arrayBuffer());
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const csv = await new Response((await client.exports.dealTransactionsCsv(deal.id)).stream).text();
    expect(csv.trim().split('\n')).toHaveLength(statement.truth.transactions!.length + 1);

    const link = await client.shares.create(deal.id, { expires_in_hours: 24, password: 'open sesame' });
    const anonymous = new Ledgerlens({ baseUrl: app.url, sleep: async () => undefined });
    const locked = await anonymous.shares.view(link.token).catch((e: unknown) => e);
    expect(locked).toBeInstanceOf(LedgerlensError);
    const view = await anonymous.shares.view(link.token, { password: 'open sesame' });
    // `decision` is a person's (none yet); the system's verdict is the recommendation
    expect(view.deal).toMatchObject({ business_name: 'Exports And Shares LLC', decision: null });
    expect((await client.shares.listActive(deal.id)).data.map((l: { id: number }) => l.id)).toContain(link.id);
    await client.shares.revoke(link.id);
    const gone = (await anonymous.shares.view(link.token, { password: 'open sesame' }).catch((e: unknown) => e)) as LedgerlensError;
    expect(gone.status).toBe(404);
  });

  it('usage this month, and a CRM configuration kept disabled (no call leaves the machine)', async () => {
    const usage = await client.usage.me();
    expect(usage).toBeDefined();
    expect(JSON.stringify(usage)).toMatch(/documents/);

    const cfg = await client.crm.setProvider('hubspot', { credentials: { access_token: 'pat-sdk-test' }, enabled: false } as never);
    expect(JSON.stringify(cfg)).not.toContain('pat-sdk-test');
    const read = await client.crm.getProvider('hubspot');
    expect(JSON.stringify(read)).not.toContain('pat-sdk-test');
    const log = await client.crm.syncLog({ provider: 'hubspot' });
    expect(log.data).toEqual([]);
    await client.crm.deleteProvider('hubspot');
    // a provider not configured (any more) reads as disabled, without credentials
    expect(await client.crm.getProvider('hubspot')).toMatchObject({ provider: 'hubspot', enabled: false, has_credentials: false });
  });

  it('collaboration: comments with a reply, a document request, the timeline and notifications', async () => {
    const deal = await client.deals.create({ business_name: 'Team Work LLC', funding_amount_requested: 9000 });
    const top = await client.comments.create(deal.id, { body: 'Please check the March NSFs' });
    await client.comments.create(deal.id, { content: 'Checked: two, both refunded', parent_id: top.id });
    const comments = await client.comments.list(deal.id);
    expect(JSON.stringify(comments)).toContain('Checked: two, both refunded');
    const request = await client.documentRequests.create(deal.id, {
      document_type: 'bank_statement',
      message: 'April statement, please',
    } as never);
    expect((await client.documentRequests.list(deal.id)).data.map((r: { id: number }) => r.id)).toContain(request.id);
    const timeline = await client.activity.timeline(deal.id);
    expect(timeline.data.length).toBeGreaterThan(0);
    expect((await client.notifications.list({ unread_only: true })).data).toBeDefined();
  });

  it('bulk ingest: a batch attached to a deal, waited until completed', async () => {
    const deal = await client.deals.create({ business_name: 'Batch Bakery LLC', funding_amount_requested: 12000, ein: '123456789' });
    const batch = await client.ingest.upload(
      [
        { file: statement.bytes, filename: 'b1.pdf' },
        { file: other.bytes, filename: 'b2.pdf' },
      ],
      { deal_id: deal.id },
      { orgId },
    );
    expect(batch).toMatchObject({ deal_id: deal.id, deal_matched: true, match_method: 'deal_id' });
    const done = await client.ingest.waitUntilCompleted(batch.batch_id, { orgId, pollIntervalMs: 100, timeoutMs: 120_000 });
    expect(done).toMatchObject({ status: 'completed', total: 2, failed: 0 });
  });

  it('rulesets and webhooks: create, read, change, delete', async () => {
    const rs = await client.rulesets.create({
      name: 'SDK rules',
      factors: [
        { name: 'revenue_stability', weight: 0.5, threshold: 40 },
        { name: 'nsf_frequency', weight: 0.5, threshold: 50 },
      ],
      approval_threshold: 70,
      decline_threshold: 40,
    });
    expect(rs.name).toBe('SDK rules');
    expect((await client.rulesets.get(rs.id)).id).toBe(rs.id);
    expect((await client.rulesets.setDefault(rs.id)).is_default).toBe(true);
    const names: string[] = [];
    for await (const r of client.rulesets.listAll()) names.push(r.name);
    expect(names).toContain('SDK rules');

    const cfg = await client.webhooks.setConfig({
      url: 'https://receiver.invalid/ledgerlens',
      events: ['deal.ready'],
      secret: 'whsec_sdk_test_1',
    });
    // the configuration itself, not the wire's {data: {...}}
    expect(cfg).toMatchObject({ url: 'https://receiver.invalid/ledgerlens', events: ['deal.ready'] });
    expect((await client.webhooks.getConfig()).url).toBe('https://receiver.invalid/ledgerlens');
    await client.webhooks.deleteConfig();
    const none = await client.webhooks.getConfig().catch((e: unknown) => e);
    expect(none).toBeInstanceOf(LedgerlensError);
  });
});
