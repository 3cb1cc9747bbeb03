import { signStandardWebhook, signWebhook, verifyWebhook, webhookHeaders, WebhookVerificationError } from './index';

const secret = 'whsec_test_secret';
const body = JSON.stringify({
  id: 'evt_1',
  type: 'deal.ready',
  event: 'deal.ready',
  created_at: '2026-01-01T00:00:00Z',
  timestamp: '2026-01-01T00:00:00Z',
  deal_id: 7,
  data: { deal_id: 7 },
});
const signed = { 'X-Service-Signature': signWebhook(body, secret), 'X-Service-Event': 'deal.ready' };
/** X-Service-Signature alone (a batch callback's form) is accepted only when asked for. */
const untimed = { allowUntimedSignature: true };

describe('verifyWebhook', () => {
  it('returns the parsed event for a correctly signed body (string, bytes, Headers)', () => {
    expect(verifyWebhook(body, signed, secret, untimed).deal_id).toBe(7);
    expect(verifyWebhook(new TextEncoder().encode(body), signed, secret, untimed).type).toBe('deal.ready');
    expect(verifyWebhook(body, new Headers(signed), secret, untimed).id).toBe('evt_1');
  });

  it('matches an HMAC-SHA256 hex digest computed independently', () => {
    expect(signWebhook('abc', 'key')).toBe('sha256=9c196e32dc0175f86f4b1cb89289d6619de6bee699e4c378e68309ed97a1a6ab');
  });

  it('rejects a tampered body', () => {
    expect(() => verifyWebhook(body.replace('"deal_id":7', '"deal_id":8'), signed, secret, untimed)).toThrow(/Signature mismatch/);
  });

  it('rejects a wrong secret', () => {
    expect(() => verifyWebhook(body, signed, 'other', untimed)).toThrow(WebhookVerificationError);
  });

  it('explains a missing or malformed header', () => {
    expect(() => verifyWebhook(body, {}, secret)).toThrow(/Missing webhook-signature header$/);
    expect(() => verifyWebhook(body, {}, secret, untimed)).toThrow(/Missing x-service-signature/);
    expect(() => verifyWebhook(body, { 'x-service-signature': 'md5=abc' }, secret, untimed)).toThrow(/Malformed/);
  });

  it('explains that parsed JSON cannot be verified', () => {
    expect(() => verifyWebhook(JSON.parse(body) as never, signed, secret, untimed)).toThrow(/raw request body/);
  });

  it('refuses an empty secret', () => {
    expect(() => verifyWebhook(body, signed, '', untimed)).toThrow(/secret is empty/);
  });

  it('reports a signed body that is not JSON', () => {
    expect(() => verifyWebhook('not json', { 'x-service-signature': signWebhook('not json', secret) }, secret, untimed)).toThrow(
      /not valid JSON/,
    );
  });
});

describe('verifyWebhook with Standard Webhooks headers', () => {
  const at = Date.UTC(2026, 0, 1, 12, 0, 0);
  const now = () => at;
  const seconds = at / 1000;
  const standard = (overrides: Record<string, string> = {}) => ({
    ...webhookHeaders({ eventId: 'evt_1', eventType: 'deal.ready', deliveryId: 'dlv_1', rawBody: body, secret, timestampSeconds: seconds }),
    ...overrides,
  });

  it('accepts a delivery signed as the server signs it, within the tolerance either side', () => {
    expect(verifyWebhook(body, standard(), secret, { now }).id).toBe('evt_1');
    expect(verifyWebhook(body, standard(), secret, { now: () => at + 299_000 }).id).toBe('evt_1');
    expect(verifyWebhook(body, standard(), secret, { now: () => at - 299_000 }).id).toBe('evt_1');
  });

  it('matches the Standard Webhooks reference vector (whsec_ base64 key)', () => {
    // From the standard-webhooks specification's test vectors.
    const refSecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const refBody = '{"test": 2432232314}';
    expect(signStandardWebhook('msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, refBody, refSecret)).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('prefers the Standard Webhooks signature: a wrong one fails even with a valid X-Service-Signature', () => {
    const headers = standard({ 'webhook-signature': signStandardWebhook('evt_1', seconds, body, 'other-secret') });
    expect(() => verifyWebhook(body, headers, secret, { now })).toThrow(/Signature mismatch/);
  });

  it('accepts one valid signature among several (key rotation)', () => {
    const headers = standard();
    headers['webhook-signature'] = `v1,AAAA ${headers['webhook-signature']}`;
    expect(verifyWebhook(body, headers, secret, { now }).id).toBe('evt_1');
  });

  it('rejects a replay outside the 5-minute tolerance', () => {
    expect(() => verifyWebhook(body, standard(), secret, { now: () => at + 301_000 })).toThrow(/outside the tolerance of 300 s/);
    expect(() => verifyWebhook(body, standard(), secret, { now: () => at - 301_000 })).toThrow(/outside the tolerance/);
    expect(verifyWebhook(body, standard(), secret, { now: () => at + 500_000, toleranceSeconds: 600 }).id).toBe('evt_1');
  });

  it('rejects a signed timestamp that was changed', () => {
    expect(() => verifyWebhook(body, standard({ 'webhook-timestamp': String(seconds + 1) }), secret, { now })).toThrow(
      /Signature mismatch/,
    );
  });

  it('explains missing companions and malformed values', () => {
    const { 'webhook-id': _id, ...noId } = standard();
    expect(() => verifyWebhook(body, noId, secret, { now })).toThrow(/needs the webhook-id and webhook-timestamp/);
    expect(() => verifyWebhook(body, standard({ 'webhook-timestamp': 'yesterday' }), secret, { now })).toThrow(
      /Malformed webhook-timestamp/,
    );
    expect(() => verifyWebhook(body, standard({ 'webhook-signature': 'v2,abc' }), secret, { now })).toThrow(/Malformed webhook-signature/);
  });

  it('rejects a webhook-id that is not the event id of the body', () => {
    const other = webhookHeaders({
      eventId: 'evt_2',
      eventType: 'deal.ready',
      deliveryId: 'dlv_1',
      rawBody: body,
      secret,
      timestampSeconds: seconds,
    });
    expect(() => verifyWebhook(body, other, secret, { now })).toThrow(/does not match the event id/);
  });

  it('refuses a delivery replayed with its Standard Webhooks headers stripped (X-Service-Signature signs no time)', () => {
    const { 'webhook-id': _a, 'webhook-timestamp': _b, 'webhook-signature': _c, ...stripped } = standard();
    const thirtyDaysLater = { now: () => at + 30 * 86_400_000 };
    expect(() => verifyWebhook(body, stripped, secret, thirtyDaysLater)).toThrow(
      /Missing webhook-signature header: x-service-signature alone signs no timestamp, so a captured request could be replayed/,
    );
    expect(() => verifyWebhook(body, stripped, secret, { now })).toThrow(WebhookVerificationError);
    // only the signature stripped: still refused
    const { 'webhook-signature': _s, ...noSignature } = standard();
    expect(() => verifyWebhook(body, noSignature, secret, { now })).toThrow(/Missing webhook-signature header/);
  });

  it('accepts X-Service-Signature alone only when the caller opts in (batch-completion callbacks)', () => {
    const { 'webhook-id': _a, 'webhook-timestamp': _b, 'webhook-signature': _c, ...legacy } = standard();
    expect(verifyWebhook(body, legacy, secret, { now: () => at + 10 * 86_400_000, ...untimed }).id).toBe('evt_1');
    // the opt-in does not weaken a timed signature that is present
    expect(() => verifyWebhook(body, standard(), secret, { now: () => at + 301_000, ...untimed })).toThrow(/outside the tolerance/);
  });
});

describe('verifyWebhook checks the event envelope', () => {
  const sign = (raw: string) => ({ 'x-service-signature': signWebhook(raw, secret) });
  it.each([
    ['an array', '[]', /not an event object/],
    ['no type', JSON.stringify({ id: 'evt_1', created_at: 'x', data: {} }), /type \(or event\)/],
    ['no data', JSON.stringify({ id: 'evt_1', type: 't', created_at: 'x' }), /data must be an object/],
    ['a numeric id', JSON.stringify({ id: 1, type: 't', created_at: 'x', data: {} }), /id must be a string/],
    ['no timestamp', JSON.stringify({ id: 'e', type: 't', data: {} }), /created_at \(or timestamp\)/],
    ['a string deal_id', JSON.stringify({ id: 'e', type: 't', created_at: 'x', deal_id: '7', data: {} }), /deal_id must be/],
  ])('rejects %s', (_name, raw, message) => {
    expect(() => verifyWebhook(raw, sign(raw), secret, untimed)).toThrow(message);
  });

  it('accepts the batch-completion callback body (event + timestamp, no id)', () => {
    const raw = JSON.stringify({
      event: 'batch.completed',
      batch_id: 'b_1',
      deal_id: 3,
      timestamp: '2026-01-01T00:00:00Z',
      data: { total_documents: 2 },
    });
    expect(verifyWebhook(raw, sign(raw), secret, untimed).event).toBe('batch.completed');
    expect(() => verifyWebhook(raw, sign(raw), secret)).toThrow(/allowUntimedSignature/);
  });
});
