import { JobQueue } from '../src/platform/queue/job-queue';
import { OutboundHttp, systemResolver } from '../src/platform/outbound/outbound-http';
import { guardConnections } from './support/connect-guard';
import { TestApp } from './support/harness';

const SECRET = 'whsec_c2VjcmV0LWZvci10ZXN0cy0xMjM0NTY3ODkw';
/** A minimal PDF: ingest refuses the metadata before it reads the file. */
const PDF = new TextEncoder().encode('%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');

/**
 * IPv4-compatible IPv6 (::/96) through the three places a user gives the server a URL to call.
 * Every TCP connection this process would open to anything but loopback is stopped and recorded
 * (guardConnections): these tests only ever reach 127.0.0.1.
 */
describe('SSRF guard: IPv4-compatible IPv6 addresses (::/96)', () => {
  let app: TestApp;
  let org: Awaited<ReturnType<TestApp['newOrg']>>;
  let connections: ReturnType<typeof guardConnections>;

  beforeAll(async () => {
    connections = guardConnections();
    app = await TestApp.start({ OUTBOUND_ALLOWLIST: '127.0.0.1/32', RATE_LIMIT_WRITE: '100000', RATE_LIMIT_UPLOAD: '100000' });
    org = await app.newOrg('Guarded Outbound');
  });
  afterAll(async () => {
    await app?.close();
    connections?.restore();
  });

  const messages = (res: { body: { errors: { field: string; msg: string }[] } }, field: string) =>
    res.body.errors.filter((e) => e.field === field).map((e) => e.msg);

  it.each(['::127.0.0.1', '::7f00:1', '::a00:1', '::a9fe:a9fe'])(
    'refuses [%s] as a webhook url, a CRM base_url and an ingest callback url (422), connecting nowhere',
    async (address) => {
      const url = `https://[${address}]/hook`;
      const webhook = await app.request('PUT', '/v1/webhooks/config', {
        key: org.api_key,
        body: { url, secret: SECRET, events: ['deal.created'] },
      });
      expect(webhook.status).toBe(422);
      expect(messages(webhook, 'url').join(' ')).toMatch(/IPv4-compatible IPv6 address/);

      const crm = await app.request('PUT', '/v1/crm/config/hubspot', {
        key: org.api_key,
        body: { credentials: { access_token: 'x', base_url: url } },
      });
      expect(crm.status).toBe(422);
      expect(messages(crm, 'credentials.base_url').join(' ')).toMatch(/IPv4-compatible IPv6 address/);

      const form = new FormData();
      form.append('metadata', JSON.stringify({ business_name: 'Callback Co', callback: { url, secret: 'cb-secret-0123456789abcdef' } }));
      form.append('files', new Blob([PDF], { type: 'application/pdf' }), 'a.pdf');
      const ingest = await app.request('POST', '/v1/ingest', {
        key: org.api_key,
        form,
        headers: { 'X-Org-Id': String(org.organization.id) },
      });
      expect(ingest.status).toBe(422);
      expect(ingest.body.errors.map((e: { loc: unknown[] }) => e.loc)).toContainEqual(['body', 'metadata', 'callback', 'url']);

      expect(connections.attempts).toEqual([]);
    },
  );

  it('a delivery to a name that resolves into ::/96 fails for good at its first attempt: no retry, no connection', async () => {
    // a name is judged at delivery, after DNS (here a resolver that answers ::a9fe:a9fe, the metadata address embedded)
    const put = await app.request('PUT', '/v1/webhooks/config', {
      key: org.api_key,
      body: { url: 'https://receiver.invalid/hook', secret: SECRET, events: ['deal.created'] },
    });
    expect(put.status).toBe(200);
    app.get(OutboundHttp).useResolver(async () => [{ address: '::a9fe:a9fe', family: 6 }]);
    try {
      const deal = await app.request('POST', '/v1/deals', {
        key: org.api_key,
        body: { business_name: 'Refused Co', funding_amount_requested: 1 },
      });
      expect(deal.status).toBe(201);
      await app.drainEvents();
      await app.get(JobQueue).idle();
    } finally {
      app.get(OutboundHttp).useResolver(systemResolver);
    }
    const list = (await app.request('GET', '/v1/webhooks/deliveries?event=deal.created', { key: org.api_key })).body.data;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ status: 'failed', attempt_number: 1, next_attempt_at: null });
    const detail = (await app.request('GET', `/v1/webhooks/deliveries/${list[0].id}`, { key: org.api_key })).body.data;
    expect(detail.attempts).toHaveLength(1);
    expect(detail.attempts[0].error).toMatch(
      /OutboundBlockedError: receiver\.invalid resolves to a blocked address: ::a9fe:a9fe is an IPv4-compatible IPv6 address \(169\.254\.169\.254, linkLocal\)/,
    );
    expect(connections.attempts).toEqual([]);
  });
});
