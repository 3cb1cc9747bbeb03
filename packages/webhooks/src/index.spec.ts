import { signWebhook, verifyWebhook, WebhookVerificationError } from './index';

const secret = 'whsec_test_secret';
const body = JSON.stringify({ id: 'evt_1', type: 'deal.ready', event: 'deal.ready', created_at: '2026-01-01T00:00:00Z', timestamp: '2026-01-01T00:00:00Z', deal_id: 7, data: { deal_id: 7 } });
const signed = { 'X-Service-Signature': signWebhook(body, secret), 'X-Service-Event': 'deal.ready' };

describe('verifyWebhook', () => {
  it('returns the parsed event for a correctly signed body (string, bytes, Headers)', () => {
    expect(verifyWebhook(body, signed, secret).deal_id).toBe(7);
    expect(verifyWebhook(new TextEncoder().encode(body), signed, secret).type).toBe('deal.ready');
    expect(verifyWebhook(body, new Headers(signed), secret).id).toBe('evt_1');
  });

  it('matches an HMAC-SHA256 hex digest computed independently', () => {
    expect(signWebhook('abc', 'key')).toBe('sha256=9c196e32dc0175f86f4b1cb89289d6619de6bee699e4c378e68309ed97a1a6ab');
  });

  it('rejects a tampered body', () => {
    expect(() => verifyWebhook(body.replace('"deal_id":7', '"deal_id":8'), signed, secret)).toThrow(/Signature mismatch/);
  });

  it('rejects a wrong secret', () => {
    expect(() => verifyWebhook(body, signed, 'other')).toThrow(WebhookVerificationError);
  });

  it('explains a missing or malformed header', () => {
    expect(() => verifyWebhook(body, {}, secret)).toThrow(/Missing x-service-signature/);
    expect(() => verifyWebhook(body, { 'x-service-signature': 'md5=abc' }, secret)).toThrow(/Malformed/);
  });

  it('explains that parsed JSON cannot be verified', () => {
    expect(() => verifyWebhook(JSON.parse(body) as never, signed, secret)).toThrow(/raw request body/);
  });

  it('refuses an empty secret', () => {
    expect(() => verifyWebhook(body, signed, '')).toThrow(/secret is empty/);
  });

  it('reports a signed body that is not JSON', () => {
    expect(() => verifyWebhook('not json', { 'x-service-signature': signWebhook('not json', secret) }, secret)).toThrow(/not valid JSON/);
  });
});
