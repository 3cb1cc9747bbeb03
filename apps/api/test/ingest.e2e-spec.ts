import { verifyWebhook, WebhookVerificationError } from '@ledgerlens/webhooks';
import { LAYOUTS } from '../../../tools/corpus/layouts';
import { makeStatement } from '../../../tools/corpus/corpus';
import { Clock } from '../src/platform/clock/clock';
import { JobQueue } from '../src/platform/queue/job-queue';
import { WebhookDeliveryService } from '../src/modules/webhooks/webhook-delivery.service';
import { TestApp, TestResponse } from './support/harness';
import { Receiver } from './support/receiver';

type Org = Awaited<ReturnType<TestApp['newOrg']>>;

const CALLBACK_SECRET = 'cb-secret-for-ingest-tests-0123456789';
const WEBHOOK_SECRET = 'whsec_aW5nZXN0LXdlYmhvb2stc2VjcmV0LTEyMzQ1Ng==';
const T0 = Date.UTC(2026, 10, 26, 9, 0, 0);
/** Tests that process documents: generous on a loaded 2-core machine. */
const SLOW = 180_000;

interface FilePart {
  name: string;
  bytes: Uint8Array;
  field?: string;
}

/**
 * Bulk ingest end to end: real multipart uploads through the document command, real processing,
 * batch completion from domain events, and the signed callback verified by packages/webhooks on a
 * receiver at 127.0.0.1 (allowlisted for the SSRF guard).
 */
describe('bulk ingest', () => {
  let app: TestApp;
  let org: Org;
  let other: Org;
  let callbacks: Receiver;
  let hooks: Receiver;
  let pdfA: Uint8Array;
  let pdfB: Uint8Array;
  let corrupt: Uint8Array;
  let now = T0;

  const orgHeader = (o: Org = org) => ({ 'X-Org-Id': String(o.organization.id) });
  const form = (files: FilePart[], metadata?: unknown) => {
    const fd = new FormData();
    if (metadata !== undefined) fd.append('metadata', typeof metadata === 'string' ? metadata : JSON.stringify(metadata));
    for (const f of files) fd.append(f.field ?? 'files', new Blob([f.bytes], { type: 'application/pdf' }), f.name);
    return fd;
  };
  const ingest = (files: FilePart[], metadata?: unknown, opts: { key?: string; headers?: Record<string, string> } = {}) =>
    app.request('POST', '/v1/ingest', { key: opts.key ?? org.api_key, form: form(files, metadata), headers: opts.headers ?? orgHeader() });
  const batchA = (id: string, key = org.api_key, headers: Record<string, string> = orgHeader()) =>
    app.request('GET', `/v1/ingest/${id}`, { key, headers });
  const batchB = (id: string, key = org.api_key, headers: Record<string, string> = orgHeader()) =>
    app.request('GET', `/v1/ingest/batches/${id}`, { key, headers });
  const newDeal = async (body: Record<string, unknown>) =>
    (await app.request('POST', '/v1/deals', { key: org.api_key, body: { funding_amount_requested: 30000, ...body } })).body.id as number;
  /** Processing, the lifecycle, batch completion and the callback's first attempt, all awaited. */
  const settle = async () => {
    for (let i = 0; i < 3; i++) {
      await app.settle();
      await app.get(JobQueue).idle();
    }
  };
  const expectError = (res: TestResponse, status: number, code: string) =>
    expect({ status: res.status, code: res.body.code }).toEqual({ status, code });

  beforeAll(async () => {
    app = await TestApp.start({ OUTBOUND_ALLOWLIST: '127.0.0.1/32', WEBHOOK_TIMEOUT_MS: '2000', RATE_LIMIT_UPLOAD: '100000' });
    // batch callbacks carry X-Service-Signature only: the receiver opts in to that (untimed) form
    callbacks = await Receiver.start(() => CALLBACK_SECRET, Date.now, { allowUntimedSignature: true });
    hooks = await Receiver.start(
      () => WEBHOOK_SECRET,
      () => now,
    );
    org = await app.newOrg('Ingest Org');
    other = await app.newOrg('Ingest Other');
    const layout = LAYOUTS.find((l) => l.name === 'sectioned_unsigned')!;
    pdfA = (await makeStatement(layout, 21, 14)).bytes;
    pdfB = (await makeStatement(layout, 22, 12)).bytes;
    corrupt = pdfA.slice(0, 900);
  }, 120_000);
  beforeEach(() => {
    now = T0;
    jest.spyOn(app.get(Clock), 'now').mockImplementation(() => new Date(now));
    callbacks.reset();
    hooks.reset();
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(async () => {
    await app?.close();
    await callbacks?.close();
    await hooks?.close();
  });

  describe('Form A', () => {
    it(
      'creates a deal by business_name, labels files in order, and completes with the status views of both forms',
      async () => {
        const res = await ingest(
          [
            { name: 'jan.pdf', bytes: pdfA },
            { name: 'feb.pdf', bytes: pdfB },
          ],
          { business_name: 'Fresh Ingest Bakery LLC', file_labels: ['January', 'February'], funding_amount_requested: 40000 },
        );
        expect(res.status).toBe(202);
        expect(res.body).toMatchObject({
          batch_id: expect.stringMatching(/^bat_[0-9a-f]{24}$/),
          deal_matched: false,
          match_method: 'created',
          status: 'pending',
          documents: [
            { filename: 'jan.pdf', label: 'January', status: 'uploaded' },
            { filename: 'feb.pdf', label: 'February', status: 'uploaded' },
          ],
          files: [
            { filename: 'jan.pdf', label: 'January', status: 'queued', size_bytes: pdfA.length },
            { filename: 'feb.pdf', label: 'February', status: 'queued', size_bytes: pdfB.length },
          ],
        });
        const deal = (await app.request('GET', `/v1/deals/${res.body.deal_id}`, { key: org.api_key })).body;
        expect(deal).toMatchObject({ business_name: 'Fresh Ingest Bakery LLC', funding_amount_requested: 40000 });

        await settle();
        const a = await batchA(res.body.batch_id);
        expect(a.status).toBe(200);
        expect(a.body).toMatchObject({
          batch_id: res.body.batch_id,
          deal_id: res.body.deal_id,
          status: 'completed',
          total: 2,
          processed: 2,
          completed: 2,
          failed: 0,
          callback: null,
          completed_at: expect.any(String),
        });
        expect(a.body.documents.map((d: { id: number; status: string }) => [d.id, d.status])).toEqual(
          res.body.documents.map((d: { id: number }) => [d.id, 'completed']),
        );
        expect(a.body.documents[0].processing_completed_at).toEqual(expect.any(String));

        const b = await batchB(res.body.batch_id);
        expect(b.body.data).toMatchObject({ status: 'completed', completed: 2, failed: 0 });
        for (const d of b.body.data.documents) {
          expect(d).toMatchObject({ status: 'completed', document_type: 'bank_statement', transaction_count: expect.any(Number) });
          expect(d.period).toEqual({ start: expect.stringMatching(/^\d{4}-\d\d-\d\d$/), end: expect.stringMatching(/^\d{4}-\d\d-\d\d$/) });
        }
        expect(b.body.data.documents.map((d: { transaction_count: number }) => d.transaction_count)).toEqual([14, 12]);
        const ready = (await app.request('GET', `/v1/deals/${res.body.deal_id}`, { key: org.api_key })).body;
        expect(ready.status).toBe('ready');
        expect(b.body.data.recommendation).toMatchObject({
          decision: expect.stringMatching(/^(approve|review|decline)$/),
          health_score: ready.health_score,
          ruleset_name: expect.any(String),
          factor_scores: expect.any(Object),
        });
      },
      SLOW,
    );

    it(
      'attaches to deal_id (other fields ignored); a foreign deal_id is 404',
      async () => {
        const dealId = await newDeal({ business_name: 'Attach Target Co' });
        const res = await ingest([{ name: 'a.pdf', bytes: pdfA }], { deal_id: dealId, business_name: 'Ignored Name' });
        expect(res.body).toMatchObject({ deal_id: dealId, deal_matched: true, match_method: 'deal_id' });
        const foreign = (
          await app.request('POST', '/v1/deals', {
            key: other.api_key,
            body: { business_name: 'Not Yours', funding_amount_requested: 1000 },
          })
        ).body.id;
        expectError(await ingest([{ name: 'a.pdf', bytes: pdfA }], { deal_id: foreign }), 404, 'DEAL_NOT_FOUND');
        await settle();
      },
      SLOW,
    );
  });

  describe('deal matching', () => {
    it(
      'matches by external_reference first, then ein, then normalised business_name, else creates',
      async () => {
        const byRef = await newDeal({ business_name: 'Reference Holder', ein: '111111111' });
        await app.request('POST', '/v1/ingest', {
          key: org.api_key,
          headers: orgHeader(),
          body: { applications: [{ business_name: 'Reference Target', external_ref: 'CRM-REF-1' }] },
        });
        const refDeal = (await app.request('GET', '/v1/deals?q=Reference%20Target', { key: org.api_key })).body.data[0].id;
        const einDeal = await newDeal({ business_name: 'Ein Holder Inc', ein: '222222222' });
        const nameDeal = await newDeal({ business_name: 'Acme Name Match, L.L.C.' });

        // external_reference wins over an ein that names another deal
        const r1 = await ingest([{ name: 'a.pdf', bytes: pdfA, field: 'files[]' }], {
          deal_matching: { external_reference: 'CRM-REF-1', ein: '111111111', business_name: 'Reference Holder' },
        });
        expect(r1.body).toMatchObject({ deal_id: refDeal, deal_matched: true, match_method: 'external_reference' });
        // ein wins over business_name
        const r2 = await ingest([{ name: 'a.pdf', bytes: pdfA }], { ein: '222222222', business_name: 'Acme Name Match LLC' });
        expect(r2.body).toMatchObject({ deal_id: einDeal, deal_matched: true, match_method: 'ein' });
        // business name, normalised (case, punctuation, legal form)
        const r3 = await ingest([{ name: 'a.pdf', bytes: pdfA }], { business_name: '  acme name match llc ' });
        expect(r3.body).toMatchObject({ deal_id: nameDeal, deal_matched: true, match_method: 'business_name' });
        // nothing matches: a new deal carrying the reference and ein, found by its reference next time
        const r4 = await ingest([{ name: 'a.pdf', bytes: pdfA }], {
          deal_matching: { business_name: 'Brand New Co', external_reference: 'CRM-NEW-9', ein: '333333333' },
        });
        expect(r4.body).toMatchObject({ deal_matched: false, match_method: 'created' });
        expect([byRef, refDeal, einDeal, nameDeal]).not.toContain(r4.body.deal_id);
        const r5 = await ingest([{ name: 'a.pdf', bytes: pdfA }], { external_reference: 'CRM-NEW-9' });
        expect(r5.body).toMatchObject({ deal_id: r4.body.deal_id, match_method: 'external_reference' });
        // a deal with another external reference is another business: its ein does not match
        const r6 = await ingest([{ name: 'a.pdf', bytes: pdfA }], {
          deal_matching: { external_reference: 'CRM-OTHER-2', ein: '333333333', business_name: 'Brand New Co' },
        });
        expect(r6.body).toMatchObject({ deal_matched: false, match_method: 'created' });
        expect(r6.body.deal_id).not.toBe(r4.body.deal_id);
        // an unknown reference alone cannot create a deal
        const r7 = await ingest([{ name: 'a.pdf', bytes: pdfA }], { external_reference: 'CRM-UNKNOWN' });
        expectError(r7, 422, 'VALIDATION_ERROR');
        expect(r7.body.errors[0].loc).toEqual(['body', 'metadata', 'business_name']);
        // matching stays inside the organization
        const r8 = await ingest(
          [{ name: 'a.pdf', bytes: pdfA }],
          { ein: '222222222', business_name: 'Ein Holder Inc' },
          {
            key: other.api_key,
            headers: orgHeader(other),
          },
        );
        expect(r8.body).toMatchObject({ deal_matched: false, match_method: 'created' });
        await settle();
      },
      SLOW,
    );

    it(
      'a duplicate external reference is 409 DUPLICATE_RESOURCE',
      async () => {
        const holder = await ingest([{ name: 'a.pdf', bytes: pdfA }], { business_name: 'Dup Holder', external_reference: 'CRM-DUP-1' });
        const otherDeal = await newDeal({ business_name: 'Dup Other' });
        const res = await ingest([{ name: 'a.pdf', bytes: pdfA }], { deal_id: otherDeal, external_reference: 'CRM-DUP-1' });
        expectError(res, 409, 'DUPLICATE_RESOURCE');
        expect(res.body.detail).toContain(`deal ${holder.body.deal_id}`);
        // nothing was attached to the other deal
        expect((await app.request('GET', `/v1/deals/${otherDeal}/documents`, { key: org.api_key })).body.meta.total).toBe(0);
        await settle();
      },
      SLOW,
    );
  });

  describe('Form C', () => {
    it('creates deals in bulk with created/skipped counts; a replay returns the stored answer', async () => {
      await newDeal({ business_name: 'Existing C' });
      await app.request('POST', '/v1/ingest', {
        key: org.api_key,
        headers: orgHeader(),
        body: { applications: [{ business_name: 'Existing C', external_ref: 'C-EXISTING' }] },
      });
      const body = {
        applications: [
          { business_name: 'C One', external_ref: 'C-1' },
          { business_name: 'C One again', external_ref: 'C-1' },
          { business_name: 'C Existing', external_reference: 'C-EXISTING' },
          { business_name: 'C No Ref' },
        ],
      };
      const headers = { ...orgHeader(), 'Idempotency-Key': 'form-c-key-1' };
      const res = await app.request('POST', '/v1/ingest', { key: org.api_key, headers, body });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ created: 2, skipped: 2 });
      expect(res.body.deals.map((d: { result: string }) => d.result)).toEqual(['created', 'skipped', 'skipped', 'created']);
      expect(res.body.deals[1].id).toBe(res.body.deals[0].id);
      const replay = await app.request('POST', '/v1/ingest', { key: org.api_key, headers, body });
      expect(replay.status).toBe(200);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(res.body);
      expect((await app.request('GET', '/v1/deals?q=C%20One', { key: org.api_key })).body.meta.total).toBe(1);

      const invalid = await app.request('POST', '/v1/ingest', {
        key: org.api_key,
        headers: orgHeader(),
        body: { applications: [{ external_ref: 'no-name' }] },
      });
      expectError(invalid, 422, 'VALIDATION_ERROR');
      expect(invalid.body.errors[0].loc).toEqual(['body', 'applications', 0, 'business_name']);
      const tooMany = await app.request('POST', '/v1/ingest', {
        key: org.api_key,
        headers: orgHeader(),
        body: { applications: Array.from({ length: 51 }, (_, i) => ({ business_name: `Bulk ${i}` })) },
      });
      expectError(tooMany, 422, 'VALIDATION_ERROR');
    });
  });

  describe('limits and headers', () => {
    it(
      'X-Org-Id is required and must be the credential organization',
      async () => {
        const files = [{ name: 'a.pdf', bytes: pdfA }];
        expectError(await ingest(files, { business_name: 'X' }, { headers: {} }), 422, 'VALIDATION_ERROR');
        expectError(await ingest(files, { business_name: 'X' }, { headers: { 'X-Org-Id': 'abc' } }), 422, 'VALIDATION_ERROR');
        expectError(await ingest(files, { business_name: 'X' }, { headers: orgHeader(other) }), 403, 'FORBIDDEN');
        const ok = await ingest(files, { business_name: 'Header Ok' });
        expect(ok.status).toBe(202);
        expectError(await batchA(ok.body.batch_id, org.api_key, {}), 422, 'VALIDATION_ERROR');
        expectError(await batchB(ok.body.batch_id, org.api_key, orgHeader(other)), 403, 'FORBIDDEN');
        // another organization, or the test mode, does not see the batch at all
        expectError(await batchA(ok.body.batch_id, other.api_key, orgHeader(other)), 404, 'NOT_FOUND');
        expectError(await batchB(ok.body.batch_id, org.test_api_key, orgHeader()), 404, 'NOT_FOUND');
        expectError(await batchA('bat_nope', org.api_key), 404, 'NOT_FOUND');
        await settle();
      },
      SLOW,
    );

    it(
      'files: at least 1, at most 20, PDF only, 20 MB each; nothing is kept of a refused request',
      async () => {
        const before = (await app.request('GET', '/v1/deals?q=Limit', { key: org.api_key })).body.meta.total;
        expectError(await ingest([], { business_name: 'Limit None' }), 422, 'VALIDATION_ERROR');
        const many = Array.from({ length: 21 }, (_, i) => ({ name: `f${i}.pdf`, bytes: pdfA }));
        const tooMany = await ingest(many, { business_name: 'Limit Many' });
        expectError(tooMany, 422, 'VALIDATION_ERROR');
        expect(tooMany.body.detail + JSON.stringify(tooMany.body.errors)).toContain('At most 20 files');
        const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...new Array(64).fill(0)]);
        expectError(
          await ingest(
            [
              { name: 'a.pdf', bytes: pdfA },
              { name: 'scan.png', bytes: png },
            ],
            { business_name: 'Limit Png' },
          ),
          415,
          'UNSUPPORTED_MEDIA_TYPE',
        );
        const big = new Uint8Array(20 * 1024 * 1024 + 1);
        big.set(new TextEncoder().encode('%PDF-1.4\n'));
        const large = await ingest([{ name: 'big.pdf', bytes: big }], { business_name: 'Limit Big' });
        expectError(large, 413, 'PAYLOAD_TOO_LARGE');
        const exact = new Uint8Array(20 * 1024 * 1024);
        exact.set(pdfA);
        const atLimit = await ingest([{ name: 'exact.pdf', bytes: exact }], { business_name: 'Limit Exact' });
        expect(atLimit.status).toBe(202);
        expect((await app.request('GET', '/v1/deals?q=Limit', { key: org.api_key })).body.meta.total).toBe(before + 1);
        await settle();
      },
      SLOW,
    );

    it('metadata is validated in either form', async () => {
      const files = [{ name: 'a.pdf', bytes: pdfA }];
      const bad = async (metadata: unknown, loc: unknown[]) => {
        const res = await ingest(files, metadata);
        expectError(res, 422, 'VALIDATION_ERROR');
        expect(res.body.errors.map((e: { loc: unknown[] }) => e.loc)).toContainEqual(loc);
      };
      await bad('{not json', ['body', 'metadata']);
      await bad({}, ['body', 'metadata', 'business_name']);
      await bad({ business_name: 'X', ein: '12-3456789' }, ['body', 'metadata', 'ein']);
      await bad({ deal_matching: { business_name: 'X', ein: '123' } }, ['body', 'metadata', 'deal_matching', 'ein']);
      await bad({ business_name: 'X', callback: { url: callbacks.url } }, ['body', 'metadata', 'callback', 'secret']);
      await bad({ business_name: 'X', callback_url: 'http://example.com/hook', callback_secret: CALLBACK_SECRET }, [
        'body',
        'metadata',
        'callback_url',
      ]);
      await bad({ business_name: 'X', callback: { url: 'https://169.254.169.254/latest', secret: CALLBACK_SECRET } }, [
        'body',
        'metadata',
        'callback',
        'url',
      ]);
      // Form A callback_url without a secret needs the organization's webhook secret
      await bad({ business_name: 'X', callback_url: callbacks.url }, ['body', 'metadata', 'callback_secret']);
      await bad({ business_name: 'X', file_labels: ['ok', 'x'.repeat(256)] }, ['body', 'metadata', 'file_labels']);
    });

    it(
      'Idempotency-Key (max 128): a replay returns the stored batch and creates nothing',
      async () => {
        const files = [{ name: 'a.pdf', bytes: pdfA }];
        const long = await ingest(
          files,
          { business_name: 'Idem Long' },
          { headers: { ...orgHeader(), 'Idempotency-Key': 'k'.repeat(129) } },
        );
        expectError(long, 422, 'VALIDATION_ERROR');
        const key = 'i'.repeat(128);
        const headers = { ...orgHeader(), 'Idempotency-Key': key };
        const first = await ingest(files, { business_name: 'Idem Once Co' }, { headers });
        expect(first.status).toBe(202);
        const again = await ingest(files, { business_name: 'Idem Once Co' }, { headers });
        expect(again.status).toBe(200);
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        expect(again.body).toEqual(first.body);
        const docs = await app.request('GET', `/v1/deals/${first.body.deal_id}/documents`, { key: org.api_key });
        expect(docs.body.meta.total).toBe(1);
        expect((await app.request('GET', '/v1/deals?q=Idem%20Once', { key: org.api_key })).body.meta.total).toBe(1);
        await settle();
      },
      SLOW,
    );
  });

  describe('completion', () => {
    it(
      'one corrupt file: the batch completes with failed 1, batch.completed goes to the webhook and the signed callback',
      async () => {
        expect(
          (
            await app.request('PUT', '/v1/webhooks/config', {
              key: org.api_key,
              body: { url: hooks.url, secret: WEBHOOK_SECRET, events: ['batch.completed'] },
            })
          ).status,
        ).toBe(200);
        const res = await ingest(
          [
            { name: 'good.pdf', bytes: pdfA, field: 'files[]' },
            { name: 'broken.pdf', bytes: corrupt, field: 'files[]' },
          ],
          {
            deal_matching: { business_name: 'Callback Corrupt Co' },
            callback: { url: callbacks.url, secret: CALLBACK_SECRET },
            labels: { 'good.pdf': 'Good one', 'broken.pdf': 'Broken one' },
          },
        );
        expect(res.status).toBe(202);
        expect(res.body.files.map((f: { label: string }) => f.label)).toEqual(['Good one', 'Broken one']);
        const pending = await batchA(res.body.batch_id);
        expect(pending.body.callback).toMatchObject({ url: callbacks.url, status: 'waiting', attempts: 0 });
        await settle();
        await callbacks.waitFor(1);

        const status = (await batchA(res.body.batch_id)).body;
        expect(status).toMatchObject({ status: 'completed', total: 2, processed: 2, completed: 1, failed: 1 });
        expect(status.documents[1]).toMatchObject({ status: 'failed', error: expect.stringMatching(/^PROCESSING_FAILED/) });
        expect(status.callback).toMatchObject({ status: 'delivered', attempts: 1, response_status: 200 });

        // the callback: X-Service-Signature only, verified by packages/webhooks with the callback secret
        expect(callbacks.received).toHaveLength(1);
        const [cb] = callbacks.received;
        expect(cb.error).toBeNull();
        expect(cb.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
        expect(cb.headers['webhook-signature']).toBeUndefined();
        expect(cb.headers['x-service-event']).toBe('batch.completed');
        expect(() =>
          verifyWebhook(cb.rawBody, cb.headers as Record<string, string>, 'not-the-secret', { allowUntimedSignature: true }),
        ).toThrow(/Signature mismatch/);
        // without the opt-in, a request with no timed signature is refused (it could be a replay)
        expect(() => verifyWebhook(cb.rawBody, cb.headers as Record<string, string>, CALLBACK_SECRET)).toThrow(WebhookVerificationError);
        const body = JSON.parse(cb.rawBody);
        expect(body).toMatchObject({
          event: 'batch.completed',
          batch_id: res.body.batch_id,
          deal_id: res.body.deal_id,
          timestamp: expect.any(String),
          data: {
            total_documents: 2,
            completed: 1,
            failed: 1,
            recommendation: { decision: expect.any(String), ruleset_name: expect.any(String), health_score: expect.any(Number) },
          },
        });
        expect(Object.keys(body.data.recommendation).sort()).toEqual(
          ['decision', 'factor_scores', 'grade', 'health_score', 'ruleset_id', 'ruleset_name'].sort(),
        );

        // the organization's webhook got the same event, signed with the webhook secret
        await hooks.waitFor(1);
        expect(hooks.received[0].error).toBeNull();
        expect(hooks.received[0].event).toMatchObject({
          type: 'batch.completed',
          id: body.id,
          deal_id: res.body.deal_id,
          data: { batch_id: res.body.batch_id, total_documents: 2, completed: 1, failed: 1 },
        });
        // callbacks are not listed among the webhook deliveries
        const listed = (await app.request('GET', '/v1/webhooks/deliveries', { key: org.api_key })).body.data;
        expect(listed.map((d: { event: string }) => d.event)).toEqual(['batch.completed']);

        // events are delivered at least once: a second completion run changes nothing
        await settle();
        expect(callbacks.received).toHaveLength(1);
        await app.request('DELETE', '/v1/webhooks/config', { key: org.api_key });
      },
      SLOW,
    );

    it(
      'a batch of only corrupt files completes with no recommendation',
      async () => {
        const res = await ingest(
          [
            { name: 'x.pdf', bytes: corrupt },
            { name: 'y.pdf', bytes: corrupt },
          ],
          { business_name: 'All Broken Co', callback_url: callbacks.url, callback_secret: CALLBACK_SECRET },
        );
        await settle();
        await callbacks.waitFor(1);
        expect((await batchA(res.body.batch_id)).body).toMatchObject({ status: 'completed', completed: 0, failed: 2 });
        expect((await batchB(res.body.batch_id)).body.data.recommendation).toBeNull();
        expect(JSON.parse(callbacks.received[0].rawBody).data).toEqual({
          total_documents: 2,
          completed: 0,
          failed: 2,
          recommendation: null,
        });
      },
      SLOW,
    );

    it(
      'the callback is retried like a webhook (30 s later) and every attempt is logged',
      async () => {
        callbacks.respond = (n) => (n === 1 ? 500 : 200);
        const res = await ingest([{ name: 'a.pdf', bytes: pdfA }], {
          business_name: 'Retry Callback Co',
          callback: { url: callbacks.url, secret: CALLBACK_SECRET },
        });
        await settle();
        await callbacks.waitFor(1);
        const failedOnce = (await batchA(res.body.batch_id)).body.callback;
        expect(failedOnce).toMatchObject({ status: 'pending', attempts: 1, response_status: 500, last_error: 'receiver answered 500' });
        now += 30_000;
        await app.get(WebhookDeliveryService).sweep();
        await app.get(JobQueue).idle();
        await callbacks.waitFor(2);
        expect((await batchA(res.body.batch_id)).body.callback).toMatchObject({ status: 'delivered', attempts: 2, response_status: 200 });
        // the same signed body both times
        expect(callbacks.received[1].rawBody).toBe(callbacks.received[0].rawBody);
        expect(callbacks.received.every((r) => r.error === null)).toBe(true);
      },
      SLOW,
    );
  });
});
