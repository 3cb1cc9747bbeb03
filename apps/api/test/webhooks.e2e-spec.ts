import { TestApp } from './support/harness';
import { Receiver } from './support/receiver';
import { OpenApiValidator } from './support/openapi-validator';
import { SseClient } from './support/sse-client';
import { Clock } from '../src/platform/clock/clock';
import { JobQueue } from '../src/platform/queue/job-queue';
import { Database } from '../src/platform/database/database.service';
import { WebhookConfig, WebhookDelivery } from '../src/modules/webhooks/webhooks.entities';
import { WebhookDeliveryService } from '../src/modules/webhooks/webhook-delivery.service';
import { EventDispatcher } from '../src/platform/events/event-dispatcher';
import { OutboundHttp, systemResolver } from '../src/platform/outbound/outbound-http';
import { recordEvent } from '../src/platform/events/events';
import { LAYOUTS } from '../../../tools/corpus/layouts';
import { makeStatement } from '../../../tools/corpus/corpus';

type Org = Awaited<ReturnType<TestApp['newOrg']>>;

const SECRET = 'whsec_c2VjcmV0LWZvci10ZXN0cy0xMjM0NTY3ODkw';
const T0 = Date.UTC(2026, 10, 26, 9, 0, 0);

/**
 * Outbound webhooks end to end: a real server delivers to a receiver on 127.0.0.1 (allowlisted)
 * that verifies every request with packages/webhooks. Retries are driven by the injected clock
 * and the sweep: no real waiting.
 */
describe('webhooks', () => {
  let app: TestApp;
  let receiver: Receiver;
  let org: Org;
  let other: Org;
  let now = T0;

  const advance = (ms: number) => {
    now += ms;
  };
  const settle = async () => {
    await app.drainEvents();
    await app.get(JobQueue).idle();
  };
  const newDeal = async (key: string, name = 'Hooked LLC') =>
    (await app.request('POST', '/v1/deals', { key, body: { business_name: name, funding_amount_requested: 25000 } })).body as {
      id: number;
    };
  const configure = (key: string, body: Record<string, unknown> = {}) =>
    app.request('PUT', '/v1/webhooks/config', {
      key,
      body: { url: receiver.url, secret: SECRET, events: ['deal.created', 'deal.decision'], ...body },
    });
  const deliveries = async (key: string, query = '') => (await app.request('GET', `/v1/webhooks/deliveries${query}`, { key })).body;

  beforeAll(async () => {
    // The timeout is generous for a loaded CI machine; only the hanging-receiver test waits it out.
    app = await TestApp.start({ OUTBOUND_ALLOWLIST: '127.0.0.1/32', WEBHOOK_TIMEOUT_MS: '2000' });
    receiver = await Receiver.start(
      () => SECRET,
      () => now,
    );
    org = await app.newOrg('Hooks');
    other = await app.newOrg('Other Hooks');
  });
  beforeEach(async () => {
    now = T0;
    jest.spyOn(app.get(Clock), 'now').mockImplementation(() => new Date(now));
    receiver.reset();
    // Each test starts with nothing pending: a retry left by an earlier test (its delayed job may
    // fire in real time during this one) must not reach this test's receiver.
    await app
      .get(Database)
      .system()
      .nativeUpdate(WebhookDelivery, { status: 'pending' }, { status: 'failed', nextAttemptAt: null }, { filters: false });
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(async () => {
    await app?.close();
    await receiver?.close();
  });

  describe('configuration', () => {
    it('is created, read (never the secret), replaced in the guide form and deleted', async () => {
      expect((await app.request('GET', '/v1/webhooks/config', { key: other.api_key })).status).toBe(404);
      const put = await configure(other.api_key);
      expect(put.status).toBe(200);
      expect(put.body.data).toMatchObject({
        url: receiver.url,
        events: ['deal.created', 'deal.decision'],
        enabled: true,
        active: true,
        mode: 'live',
      });
      expect(JSON.stringify(put.body)).not.toContain('c2VjcmV0');
      const got = await app.request('GET', '/v1/webhooks/config', { key: other.api_key });
      expect(got.body.data).toEqual(put.body.data);
      expect(JSON.stringify(got.body)).not.toContain('secret');

      const post = await app.request('POST', '/v1/webhooks/config', {
        key: other.api_key,
        headers: { 'X-Org-Id': String(other.organization.id) },
        body: { url: receiver.url, secret: 'another-secret', events: ['deal.ready'], active: false },
      });
      expect(post.status).toBe(200);
      expect(post.body.data).toMatchObject({ events: ['deal.ready'], enabled: false, active: false, created_at: put.body.data.created_at });

      const del = await app.request('DELETE', '/v1/webhooks/config', { key: other.api_key });
      expect(del.body).toMatchObject({ status: 'ok', success: true });
      expect((await app.request('GET', '/v1/webhooks/config', { key: other.api_key })).status).toBe(404);
      expect((await app.request('DELETE', '/v1/webhooks/config', { key: other.api_key })).status).toBe(404);
    });

    it('deleting the configuration stops pending deliveries', async () => {
      await configure(other.api_key);
      receiver.respond = () => 500;
      const deal = await newDeal(other.api_key, 'Stopped Co');
      await settle();
      const [pending] = (await deliveries(other.api_key, '?status=pending')).data;
      expect(pending).toMatchObject({ deal_id: deal.id, attempt_number: 1 });
      await app.request('DELETE', '/v1/webhooks/config', { key: other.api_key });
      const stopped = (await app.request('GET', `/v1/webhooks/deliveries/${pending.id}`, { key: other.api_key })).body.data;
      expect(stopped).toMatchObject({ status: 'failed', error: 'webhook configuration deleted', next_attempt_at: null });
      advance(30_000);
      await app.get(WebhookDeliveryService).sweep();
      await settle();
      expect(receiver.received).toHaveLength(1);
    });

    it('stores the secret encrypted (AES-256-GCM), not in plain text', async () => {
      await configure(other.api_key);
      const em = app.get(Database).forScope({ organizationId: other.organization.id, livemode: true });
      const row = await em.findOneOrFail(WebhookConfig, {});
      expect(row.secretSealed).toMatch(/^v1\./);
      expect(row.secretSealed).not.toContain(SECRET);
      expect(row.secretSealed).not.toContain(Buffer.from(SECRET).toString('base64url'));
      await app.request('DELETE', '/v1/webhooks/config', { key: other.api_key });
    });

    it.each([
      ['a plain-HTTP URL', { url: 'http://hooks.example.com/x' }, ['body', 'url'], /url must use HTTPS/],
      [
        'a URL to a non-allowlisted private address',
        { url: 'https://10.0.0.8/hook' },
        ['body', 'url'],
        /must not point to a private, loopback or link-local address \(10\.0\.0\.8 is a private address\)/,
      ],
      ['a URL to the cloud metadata address', { url: 'https://169.254.169.254/latest/meta-data' }, ['body', 'url'], /linkLocal/],
      ['not a URL', { url: 'hooks' }, ['body', 'url'], /absolute URL/],
      ['an unknown event type', { events: ['deal.exploded'] }, ['body', 'events'], /each value in events must be one of/],
      ['no events', { events: [] }, ['body', 'events'], /events/],
      ['a short secret', { secret: 'short' }, ['body', 'secret'], /secret/],
      ['contradicting enabled and active', { enabled: true, active: false }, ['body', 'active'], /same setting/],
    ])('rejects %s with 422', async (_name, body, loc, msg) => {
      const res = await configure(other.api_key, body);
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.errors[0]).toMatchObject({ loc });
      expect(res.body.errors.map((e: { msg: string }) => e.msg).join(' ')).toMatch(msg);
    });

    it('accepts every documented event type, webhook.test included', async () => {
      const documented = [
        'deal.created',
        'deal.updated',
        'deal.ready',
        'deal.decision',
        'document.uploaded',
        'document.completed',
        'document.failed',
        'batch.completed',
        'recommendation.generated',
        'export.ready',
        'webhook.test',
      ];
      const onlyTest = await configure(other.api_key, { events: ['webhook.test'] });
      expect(onlyTest.status).toBe(200);
      expect(onlyTest.body.data.events).toEqual(['webhook.test']);
      const all = await configure(other.api_key, { events: documented });
      expect(all.status).toBe(200);
      expect((await app.request('GET', '/v1/webhooks/config', { key: other.api_key })).body.data.events).toEqual(documented);
      const guide = await app.request('POST', '/v1/webhooks/config', {
        key: other.api_key,
        body: { url: receiver.url, secret: SECRET, events: ['webhook.test'], active: true },
      });
      expect(guide.status).toBe(200);
      await app.request('DELETE', '/v1/webhooks/config', { key: other.api_key });
    });

    it('lists every invalid field in one 422, the URL policy included, and connects nowhere', async () => {
      const outbound = app.get(OutboundHttp);
      const resolve = jest.spyOn(outbound, 'resolve');
      const res = await configure(other.api_key, { url: 'http://hooks.example.com/x', secret: 'short', events: ['deal.exploded'] });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      const byField = Object.fromEntries(res.body.errors.map((e: { field: string; msg: string }) => [e.field, e.msg]));
      expect(Object.keys(byField).sort()).toEqual(['events', 'secret', 'url']);
      expect(byField.url).toMatch(/url must use HTTPS/);
      expect(byField.secret).toMatch(/secret/);
      expect(byField.events).toMatch(/each value in events must be one of/);
      // a private address literal and a contradiction, beside a missing field (guide form too)
      const post = await app.request('POST', '/v1/webhooks/config', {
        key: other.api_key,
        body: { url: 'https://10.0.0.8/hook', events: ['deal.ready'], enabled: true, active: false },
      });
      expect(post.status).toBe(422);
      expect([...new Set(post.body.errors.map((e: { field: string }) => e.field))].sort()).toEqual(['active', 'secret', 'url']);
      expect(resolve).not.toHaveBeenCalled();
      expect((await app.request('GET', '/v1/webhooks/config', { key: other.api_key })).status).toBe(404);
    });

    it('needs webhooks:write to change and webhooks:read to read', async () => {
      const reader = (await app.request('POST', '/v1/keys', { key: org.api_key, body: { name: 'reader', scopes: ['webhooks:read'] } })).body
        .key as string;
      expect((await configure(reader)).status).toBe(403);
      expect((await app.request('POST', '/v1/webhooks/test', { key: reader })).status).toBe(403);
      expect((await app.request('GET', '/v1/webhooks/deliveries', { key: reader })).status).toBe(200);
      const dealsOnly = (await app.request('POST', '/v1/keys', { key: org.api_key, body: { name: 'deals', scopes: ['deals:read'] } })).body
        .key as string;
      expect((await app.request('GET', '/v1/webhooks/config', { key: dealsOnly })).status).toBe(403);
    });
  });

  describe('delivery', () => {
    beforeAll(async () => {
      expect((await configure(org.api_key)).status).toBe(200);
    });

    it('POSTs each subscribed event, signed over the exact bytes with both signature schemes', async () => {
      const deal = await newDeal(org.api_key);
      await settle();
      expect(receiver.received).toHaveLength(1);
      const [got] = receiver.received;
      expect(got.error).toBeNull();
      expect(got.event).toMatchObject({
        type: 'deal.created',
        event: 'deal.created',
        deal_id: deal.id,
        data: { deal_id: deal.id, business_name: 'Hooked LLC' },
      });
      expect(got.event!.created_at).toBe(got.event!.timestamp);
      expect(got.headers['content-type']).toBe('application/json');
      expect(got.headers['x-service-event']).toBe('deal.created');
      expect(got.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(got.headers['webhook-id']).toBe(got.event!.id);
      expect(got.headers['webhook-timestamp']).toBe(String(T0 / 1000));
      expect(got.headers['webhook-signature']).toMatch(/^v1,/);
      const list = await deliveries(org.api_key);
      const item = list.data.find((d: { id: string }) => d.id === got.headers['x-service-delivery']);
      expect(item).toMatchObject({
        event: 'deal.created',
        event_type: 'deal.created',
        status: 'delivered',
        success: true,
        response_status: 200,
        status_code: 200,
        attempt_number: 1,
        max_attempts: 4,
        url: receiver.url,
        deal_id: deal.id,
        next_attempt_at: null,
      });
      const detail = (await app.request('GET', `/v1/webhooks/deliveries/${item.id}`, { key: org.api_key })).body.data;
      expect(detail.request).toMatchObject({ url: receiver.url, body: got.rawBody });
      expect(detail.request.headers['X-Service-Signature']).toBe(got.headers['x-service-signature']);
      expect(detail.response).toMatchObject({ status_code: 200, body: 'thanks' });
      expect(detail.response.headers['x-receiver']).toBe('test');
      expect(detail.response.time_ms).toBeGreaterThanOrEqual(0);
      expect(detail.attempts).toHaveLength(1);
    });

    it('sends only subscribed event types, and nothing while disabled', async () => {
      const deal = await newDeal(org.api_key);
      await app.request('PATCH', `/v1/deals/${deal.id}`, { key: org.api_key, body: { industry: 'bakery' } }); // deal.updated: not subscribed
      await app.request('POST', `/v1/deals/${deal.id}/decision`, { key: org.api_key, body: { decision: 'approve' } });
      await settle();
      expect(receiver.received.map((r) => r.event?.type)).toEqual(['deal.created', 'deal.decision']);
      expect(receiver.received[1].event!.data).toEqual({ deal_id: deal.id, decision: 'approve', previous_decision: null });
      receiver.reset();
      await configure(org.api_key, { enabled: false });
      await newDeal(org.api_key);
      await settle();
      expect(receiver.received).toHaveLength(0);
      await configure(org.api_key);
    });

    it('retries a failing receiver at +30 s, +2 min, +15 min and logs exactly one success (fake clock)', async () => {
      receiver.respond = (n) => (n <= 3 ? 500 : 200);
      const deal = await newDeal(org.api_key, 'Flaky Receiver Co');
      await settle();
      expect(receiver.received).toHaveLength(1);
      const id = receiver.received[0].headers['x-service-delivery'] as string;
      const service = app.get(WebhookDeliveryService);
      const detail = async () => (await app.request('GET', `/v1/webhooks/deliveries/${id}`, { key: org.api_key })).body.data;
      expect(await detail()).toMatchObject({
        status: 'pending',
        attempt_number: 1,
        response_status: 500,
        next_attempt_at: new Date(T0 + 30_000).toISOString(),
      });

      for (const [step, delay] of [
        [2, 30_000],
        [3, 120_000],
        [4, 900_000],
      ] as const) {
        advance(delay - 1000);
        expect(await service.sweep()).toBe(0); // not due yet: nothing is sent early
        advance(1000);
        expect(await service.sweep()).toBe(1);
        await settle();
        expect(receiver.received).toHaveLength(step);
      }
      const done = await detail();
      expect(done).toMatchObject({
        status: 'delivered',
        attempt_number: 4,
        response_status: 200,
        success: true,
        deal_id: deal.id,
        next_attempt_at: null,
      });
      expect(
        done.attempts.map((a: { success: boolean; response: { status_code: number } }) => [a.success, a.response.status_code]),
      ).toEqual([
        [false, 500],
        [false, 500],
        [false, 500],
        [true, 200],
      ]);
      expect(done.attempts[0].error).toBe('receiver answered 500');
      expect(done.attempts[0].response.body).toBe('receiver error');
      // Every attempt carries the same event id (receivers dedupe on it) and a fresh signed timestamp.
      expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
      expect(receiver.received.map((r) => Number(r.headers['webhook-timestamp']) - T0 / 1000)).toEqual([0, 30, 150, 1050]);
      expect(receiver.received.every((r) => r.error === null)).toBe(true);
      // A late duplicate job for a finished attempt sends nothing.
      expect(await service.attempt({ organizationId: org.organization.id, livemode: true }, id, 4)).toBeNull();
      expect(await service.sweep()).toBe(0);
      expect(receiver.received).toHaveLength(4);
    });

    it('gives up after 4 attempts, then redelivers a failed delivery on request', async () => {
      receiver.respond = () => 503;
      await newDeal(org.api_key, 'Down Receiver Co');
      await settle();
      const id = receiver.received[0].headers['x-service-delivery'] as string;
      const service = app.get(WebhookDeliveryService);
      for (const delay of [30_000, 120_000, 900_000]) {
        advance(delay);
        await service.sweep();
        await settle();
      }
      expect(receiver.received).toHaveLength(4);
      const failed = (await app.request('GET', `/v1/webhooks/deliveries/${id}`, { key: org.api_key })).body.data;
      expect(failed).toMatchObject({
        status: 'failed',
        attempt_number: 4,
        response_status: 503,
        next_attempt_at: null,
        error: 'receiver answered 503',
      });
      const failedList = await deliveries(org.api_key, '?status=failed&event=deal.created');
      expect(failedList.data.map((d: { id: string }) => d.id)).toContain(id);
      expect(failedList.data.every((d: { status: string; event: string }) => d.status === 'failed' && d.event === 'deal.created')).toBe(
        true,
      );

      receiver.respond = () => 204;
      const redo = await app.request('POST', `/v1/webhooks/deliveries/${id}/redeliver`, { key: org.api_key });
      expect(redo.status).toBe(202);
      expect(redo.body.data).toMatchObject({ status: 'pending', redelivery_of: id, event_id: failed.event_id });
      await settle();
      expect(receiver.received).toHaveLength(5);
      expect(receiver.received[4].rawBody).toBe(receiver.received[0].rawBody);
      const again = (await app.request('GET', `/v1/webhooks/deliveries/${redo.body.data.id}`, { key: org.api_key })).body.data;
      expect(again).toMatchObject({ status: 'delivered', response_status: 204 });
      const conflict = await app.request('POST', `/v1/webhooks/deliveries/${redo.body.data.id}/redeliver`, { key: org.api_key });
      expect(conflict.status).toBe(409);
    });

    it('treats a receiver that does not answer within the timeout as a failed attempt', async () => {
      receiver.respond = () => 'hang';
      await newDeal(org.api_key, 'Slow Receiver Co');
      await settle();
      const id = receiver.received[0].headers['x-service-delivery'] as string;
      const detail = (await app.request('GET', `/v1/webhooks/deliveries/${id}`, { key: org.api_key })).body.data;
      expect(detail).toMatchObject({ status: 'pending', attempt_number: 1, response_status: null });
      expect(detail.attempts[0].error).toMatch(/OutboundTimeoutError: no response within 2000 ms/);
      expect(detail.response).toMatchObject({ status_code: null, body: null });
    });

    it('POST /webhooks/test sends a signed webhook.test and reports the result', async () => {
      const ok = await app.request('POST', '/v1/webhooks/test', { key: org.api_key, body: { event_type: 'deal.ready' } });
      expect(ok.status).toBe(200);
      expect(ok.body.data).toMatchObject({
        event: 'webhook.test',
        status: 'delivered',
        response_status: 200,
        delivered_at: new Date(T0).toISOString(),
        error: null,
      });
      expect(receiver.received.at(-1)!.event).toMatchObject({ type: 'webhook.test', data: { event_type: 'deal.ready' } });
      expect(receiver.received.at(-1)!.headers['x-service-delivery']).toBe(ok.body.data.delivery_id);
      receiver.respond = () => 500;
      const bad = await app.request('POST', '/v1/webhooks/test', { key: org.api_key });
      expect(bad.body.data).toMatchObject({ status: 'failed', response_status: 500, delivered_at: null, error: 'receiver answered 500' });
      expect((await app.request('POST', '/v1/webhooks/test', { key: org.api_key, body: { event_type: 'nope' } })).status).toBe(422);
      expect((await app.request('POST', '/v1/webhooks/test', { key: other.api_key })).status).toBe(404);
      const tests = await deliveries(org.api_key, '?event=webhook.test');
      expect(tests.data.map((d: { max_attempts: number }) => d.max_attempts)).toEqual([1, 1]);
    });

    it('refuses at delivery time an HTTPS URL that resolves to a blocked address, sending nothing', async () => {
      // A name (judged only at delivery) resolving to 127.0.0.2: loopback, and not allowlisted here (only 127.0.0.1/32 is).
      await configure(other.api_key, { url: 'https://receiver.invalid:9/hooks' });
      app.get(OutboundHttp).useResolver(async () => [{ address: '127.0.0.2', family: 4 }]);
      const res = await app
        .request('POST', '/v1/webhooks/test', { key: other.api_key })
        .finally(() => app.get(OutboundHttp).useResolver(systemResolver));
      expect(res.body.data).toMatchObject({ status: 'failed', response_status: null });
      expect(res.body.data.error).toMatch(
        /OutboundBlockedError: receiver\.invalid resolves to a blocked address: 127\.0\.0\.2 is a loopback address/,
      );
      expect(receiver.received).toHaveLength(0);
      await app.request('DELETE', '/v1/webhooks/config', { key: other.api_key });
    });

    it('validates the list filters and pages', async () => {
      expect((await app.request('GET', '/v1/webhooks/deliveries?status=lost', { key: org.api_key })).status).toBe(422);
      expect((await app.request('GET', '/v1/webhooks/deliveries?event=deal.exploded', { key: org.api_key })).status).toBe(422);
      expect((await app.request('GET', '/v1/webhooks/deliveries?page=99', { key: org.api_key })).status).toBe(422);
      expect((await app.request('GET', '/v1/webhooks/deliveries/nope', { key: org.api_key })).status).toBe(404);
      const page = await deliveries(org.api_key, '?per_page=2');
      expect(page.meta).toMatchObject({ page: 1, per_page: 2 });
      expect(page.data).toHaveLength(2);
    });
  });

  describe('every event type', () => {
    it("delivers the pipeline's events for an uploaded statement, with the spec's payloads", async () => {
      const all = [
        'deal.created',
        'deal.updated',
        'deal.ready',
        'deal.decision',
        'document.uploaded',
        'document.completed',
        'document.failed',
        'batch.completed',
        'recommendation.generated',
        'export.ready',
      ];
      await configure(org.api_key, { events: all });
      const deal = await newDeal(org.api_key, 'Pipeline Bakery LLC');
      const statement = await makeStatement(LAYOUTS[0], 21, 30);
      const form = new FormData();
      form.append('file', new Blob([statement.bytes], { type: 'application/pdf' }), 'march.pdf');
      const upload = await app.request('POST', `/v1/deals/${deal.id}/documents`, { key: org.api_key, form });
      expect(upload.status).toBe(201);
      const broken = new FormData();
      broken.append('file', new Blob([Buffer.from('%PDF-1.4\n% not really a pdf\n')], { type: 'application/pdf' }), 'broken.pdf');
      await app.request('POST', `/v1/deals/${deal.id}/documents`, { key: org.api_key, form: broken });
      await app.settle();
      await settle();
      const byType = new Map([...receiver.received].reverse().map((r) => [r.event!.type, r.event!])); // first of each type
      expect(receiver.received.every((r) => r.error === null)).toBe(true);
      expect(byType.get('document.uploaded')!.data).toMatchObject({ document_id: upload.body.id, deal_id: deal.id, filename: 'march.pdf' });
      expect(byType.get('document.completed')!.data).toMatchObject({
        document_id: upload.body.id,
        deal_id: deal.id,
        document_type: 'bank_statement',
      });
      expect(byType.get('document.failed')!.data).toMatchObject({ deal_id: deal.id, error: expect.stringMatching(/^PROCESSING_FAILED/) });
      expect(byType.get('deal.ready')).toMatchObject({
        deal_id: deal.id,
        data: { deal_id: deal.id, business_name: 'Pipeline Bakery LLC', status: 'ready', document_count: expect.any(Number) },
      }); // ready once per settling (1 or 2 documents)
      expect(typeof byType.get('deal.ready')!.data.health_score).toBe('number');
      expect(byType.get('recommendation.generated')!.data).toMatchObject({
        deal_id: deal.id,
        decision: expect.any(String),
        ruleset_name: expect.any(String),
      });
      // Internal events (the AI summary request) never leave.
      expect([...byType.keys()].every((t) => all.includes(t))).toBe(true);
      // every body is the contract's LedgerlensEvent (the schema the webhooks package and the SDK are generated from)
      const contract = new OpenApiValidator();
      const schemaOf = (type: string) => `${type.replace(/(^|[._])(\w)/g, (_m, _s, c: string) => c.toUpperCase())}Event`;
      const problems = receiver.received.flatMap((r) => {
        const body = JSON.parse(r.rawBody) as { type: string };
        return [...contract.checkComponent(schemaOf(body.type), body), ...contract.checkComponent('LedgerlensEvent', body)];
      });
      expect(problems).toEqual([]);
      expect(contract.checkComponent('LedgerlensEvent', { ...JSON.parse(receiver.received[0].rawBody), type: 'deal.nope' })).not.toEqual(
        [],
      );
      await configure(org.api_key);
    });

    it('the event stream sends each event in the envelope of its webhook delivery: same fields, same values', async () => {
      await configure(org.api_key, { events: ['deal.created', 'deal.updated'] });
      const stream = await SseClient.open(`${app.url}/v1/events/stream`, { 'X-API-Key': org.api_key });
      try {
        await stream.next((m) => m.comments.includes('connected'));
        const deal = await newDeal(org.api_key, 'Two Shapes LLC');
        await app.request('PATCH', `/v1/deals/${deal.id}`, { key: org.api_key, body: { industry: 'retail' } });
        await settle();
        const frames = [await stream.next(), await stream.next()];
        const bodies = receiver.received.map((r) => JSON.parse(r.rawBody) as Record<string, unknown>);
        expect(bodies.map((b) => b.type)).toEqual(['deal.created', 'deal.updated']);
        for (const [i, body] of bodies.entries()) {
          const frame = frames[i].data as Record<string, unknown>;
          expect(Object.fromEntries(Object.keys(body).map((k) => [k, frame[k]]))).toEqual(body);
        }
        // the earlier flat fields are still there
        expect(frames[1].data).toMatchObject({ event_id: bodies[1].id, deal_id: deal.id, changed_fields: ['industry'] });
      } finally {
        stream.close();
        await configure(org.api_key);
      }
    });

    it('delivers whatever the outbox carries for causes that later modules emit (batch.completed, export.ready)', async () => {
      await configure(org.api_key, { events: ['batch.completed', 'export.ready'] });
      const em = app.get(Database).forScope({ organizationId: org.organization.id, livemode: true });
      await em.transactional(async (tx) => {
        recordEvent(tx, { organizationId: org.organization.id, livemode: true }, 'batch.completed', {
          dealId: null,
          data: { batch_id: 'bat_1', total_documents: 2, completed: 2, failed: 0 },
        });
        recordEvent(tx, { organizationId: org.organization.id, livemode: true }, 'export.ready', {
          data: { export_id: 'exp_1', format: 'csv' },
        });
        recordEvent(tx, { organizationId: org.organization.id, livemode: true }, 'key.created', { data: { key_id: 1 } });
      });
      app.get(EventDispatcher).notify();
      await settle();
      expect(receiver.received.map((r) => [r.event!.type, r.event!.data])).toEqual([
        ['batch.completed', { batch_id: 'bat_1', total_documents: 2, completed: 2, failed: 0 }],
        ['export.ready', { export_id: 'exp_1', format: 'csv' }],
      ]);
      await configure(org.api_key);
    });
  });

  describe('isolation', () => {
    it('keeps organizations and live/test modes apart on every route', async () => {
      const mine = await deliveries(org.api_key);
      const id = mine.data[0].id as string;
      // Another organization: sees no config, no deliveries, and 404 on this one.
      expect((await deliveries(other.api_key)).data.filter((d: { id: string }) => d.id === id)).toHaveLength(0);
      expect((await app.request('GET', `/v1/webhooks/deliveries/${id}`, { key: other.api_key })).status).toBe(404);
      expect((await app.request('POST', `/v1/webhooks/deliveries/${id}/redeliver`, { key: other.api_key })).status).toBe(404);
      // Test mode of the same organization: its own (absent) config, none of the live deliveries.
      expect((await app.request('GET', '/v1/webhooks/config', { key: org.test_api_key })).status).toBe(404);
      expect((await deliveries(org.test_api_key)).data).toHaveLength(0);
      expect((await app.request('GET', `/v1/webhooks/deliveries/${id}`, { key: org.test_api_key })).status).toBe(404);
      expect((await app.request('POST', '/v1/webhooks/test', { key: org.test_api_key })).status).toBe(404);
      expect((await app.request('DELETE', '/v1/webhooks/config', { key: org.test_api_key })).status).toBe(404);

      // A test-mode endpoint receives test-mode events only, and the live one live events only.
      receiver.reset();
      const testSecretReceiver = await Receiver.start(
        () => 'test-mode-secret',
        () => now,
      );
      try {
        await configure(org.test_api_key, { url: testSecretReceiver.url, secret: 'test-mode-secret' });
        const testDeal = await newDeal(org.test_api_key, 'Sandbox Co');
        const liveDeal = await newDeal(org.api_key, 'Live Co');
        await settle();
        expect(testSecretReceiver.received.map((r) => [r.event?.deal_id, r.error])).toEqual([[testDeal.id, null]]);
        expect(receiver.received.map((r) => r.event?.deal_id)).toEqual([liveDeal.id]);
        expect((await app.request('GET', '/v1/webhooks/config', { key: org.test_api_key })).body.data.mode).toBe('test');
        expect((await deliveries(org.test_api_key)).data).toHaveLength(1);
      } finally {
        await testSecretReceiver.close();
      }
    });
  });

  describe('a worker that died mid-attempt', () => {
    it('leaves a lease that expires; the sweep then makes the attempt again', async () => {
      const deal = await newDeal(org.api_key, 'Crashed Worker Co');
      await app.drainEvents();
      await app.get(JobQueue).idle();
      const em = app.get(Database).forScope({ organizationId: org.organization.id, livemode: true });
      const delivery = await em.findOneOrFail(WebhookDelivery, { dealId: deal.id });
      expect(delivery.status).toBe('delivered');
      // The state a worker leaves when it dies after claiming attempt 1: leased for 60 s, nothing logged.
      await em.nativeUpdate(
        WebhookDelivery,
        { id: delivery.id },
        { status: 'pending', attemptNumber: 0, deliveredAt: null, nextAttemptAt: new Date(now + 60_000) },
      );
      receiver.reset();
      const service = app.get(WebhookDeliveryService);
      const sentThis = () => receiver.received.filter((r) => r.headers['x-service-delivery'] === delivery.id).length;
      advance(59_000);
      expect(await service.sweep()).toBe(0);
      await settle();
      expect(sentThis()).toBe(0);
      advance(1_000);
      expect(await service.sweep()).toBe(1);
      await settle();
      expect(sentThis()).toBe(1);
      const done = (await app.request('GET', `/v1/webhooks/deliveries/${delivery.id}`, { key: org.api_key })).body.data;
      expect(done).toMatchObject({ status: 'delivered' });
    });
  });

  describe('restart', () => {
    it('loses no delivery: a pending retry is picked up by the next process', async () => {
      receiver.respond = (n) => (n === 1 ? 500 : 200);
      await newDeal(org.api_key, 'Restart Co');
      await settle();
      const id = receiver.received[0].headers['x-service-delivery'] as string;
      jest.restoreAllMocks();
      app = await app.restart();
      jest.spyOn(app.get(Clock), 'now').mockImplementation(() => new Date(now));
      const row = await app.get(Database).system().findOneOrFail(WebhookDelivery, { id }, { filters: false });
      expect(row).toMatchObject({ status: 'pending', attemptNumber: 1 });
      advance(30_000);
      expect(await app.get(WebhookDeliveryService).sweep()).toBe(1);
      await settle();
      expect(receiver.received.filter((r) => r.headers['x-service-delivery'] === id)).toHaveLength(2);
      const done = (await app.request('GET', `/v1/webhooks/deliveries/${id}`, { key: org.api_key })).body.data;
      expect(done).toMatchObject({ status: 'delivered', attempt_number: 2 });
      expect(done.attempts.map((a: { success: boolean }) => a.success)).toEqual([false, true]);
    });
  });
});
