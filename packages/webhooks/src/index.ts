import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Verification of Ledgerlens webhook deliveries and batch callbacks. Each request carries
 * `X-Service-Signature: sha256=<hex>`, the HMAC-SHA256 of the raw request body with your secret.
 * Dependency-free and MIT-licensed so it can be embedded anywhere.
 */

export const SIGNATURE_HEADER = 'x-service-signature';
export const EVENT_HEADER = 'x-service-event';
export const DELIVERY_HEADER = 'x-service-delivery';

export interface WebhookEvent<T = Record<string, unknown>> {
  id: string;
  type: string;
  event: string;
  created_at: string;
  timestamp: string;
  deal_id: number | null;
  data: T;
}

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

export type HeaderBag = Record<string, string | string[] | undefined> | Headers;

/** Signs a raw body as Ledgerlens does: `sha256=<hex>`. For receivers' own tests. */
export function signWebhook(rawBody: string | Uint8Array, secret: string): string {
  if (!secret) throw new WebhookVerificationError('secret is empty');
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Checks the signature (constant-time) and returns the parsed event. Throws
 * WebhookVerificationError with a message that says what is wrong.
 */
export function verifyWebhook<T = Record<string, unknown>>(rawBody: string | Uint8Array, headers: HeaderBag, secret: string): WebhookEvent<T> {
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new WebhookVerificationError('Pass the raw request body (string or bytes), not parsed JSON: the signature covers the exact bytes received');
  }
  if (!secret) throw new WebhookVerificationError('The webhook secret is empty');
  const given = header(headers, SIGNATURE_HEADER);
  if (!given) throw new WebhookVerificationError(`Missing ${SIGNATURE_HEADER} header`);
  const match = /^sha256=([0-9a-f]{64})$/i.exec(given.trim());
  if (!match) throw new WebhookVerificationError(`Malformed ${SIGNATURE_HEADER} header: expected "sha256=<64 hex characters>"`);
  const expected = Buffer.from(signWebhook(rawBody, secret).slice('sha256='.length), 'hex');
  const actual = Buffer.from(match[1].toLowerCase(), 'hex');
  if (!timingSafeEqual(expected, actual)) {
    throw new WebhookVerificationError('Signature mismatch: check the secret, and that the body was not re-serialized before verifying');
  }
  const text = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  try {
    return JSON.parse(text) as WebhookEvent<T>;
  } catch {
    throw new WebhookVerificationError('The body is signed correctly but is not valid JSON');
  }
}
