import { createHmac, timingSafeEqual } from 'node:crypto';
import type { LedgerlensEvent } from './events';

export * from './events';

/**
 * Verification of Ledgerlens webhook deliveries and batch callbacks. Each delivery carries two
 * signatures of the same raw body:
 * - Standard Webhooks (https://www.standardwebhooks.com): `webhook-id`, `webhook-timestamp` and
 *   `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. The timestamp is signed,
 *   so a captured request cannot be replayed after the tolerance (5 minutes) has passed.
 * - The spec's `X-Service-Signature: sha256=<hex HMAC-SHA256 of the body>` (batch callbacks carry
 *   only this one). It signs no time: a captured request verifies for ever.
 * verifyWebhook checks the first; a request with only the second (headers stripped, or a batch
 * callback) is refused unless the caller opts in with `allowUntimedSignature`. Dependency-free
 * and MIT-licensed.
 */

export const SIGNATURE_HEADER = 'x-service-signature';
export const EVENT_HEADER = 'x-service-event';
export const DELIVERY_HEADER = 'x-service-delivery';
export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';

/** Default replay window of the Standard Webhooks timestamp, either side of the receiver's clock. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

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

export interface VerifyOptions {
  /** Seconds a Standard Webhooks timestamp may differ from now (default 300). */
  toleranceSeconds?: number;
  /** The receiver's clock (tests); defaults to Date.now. */
  now?: () => Date | number;
  /**
   * Also accept a request signed with `X-Service-Signature` alone, without the Standard Webhooks
   * headers: batch-completion callbacks are signed only that way. That signature covers no time,
   * so a request captured once verifies for ever (replay): opt in only on an endpoint that
   * receives callbacks, and deduplicate there. Default false: webhook deliveries always carry the
   * timed signature, and one without it had it stripped.
   */
  allowUntimedSignature?: boolean;
}

/** Signs a raw body as Ledgerlens does: `sha256=<hex>`. For receivers' own tests. */
export function signWebhook(rawBody: string | Uint8Array, secret: string): string {
  if (!secret) throw new WebhookVerificationError('secret is empty');
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

/**
 * The Standard Webhooks key: a `whsec_<base64>` secret is the base64 key it names (the format
 * Standard Webhooks libraries generate); any other secret is used as its UTF-8 bytes.
 */
function standardKey(secret: string): Buffer {
  if (secret.startsWith('whsec_')) {
    const decoded = Buffer.from(secret.slice('whsec_'.length), 'base64');
    if (decoded.length > 0) return decoded;
  }
  return Buffer.from(secret, 'utf8');
}

/** `v1,<base64>` over `id.timestamp.body` (Standard Webhooks). For receivers' own tests. */
export function signStandardWebhook(id: string, timestampSeconds: number, rawBody: string | Uint8Array, secret: string): string {
  if (!secret) throw new WebhookVerificationError('secret is empty');
  const mac = createHmac('sha256', standardKey(secret));
  mac.update(`${id}.${timestampSeconds}.`);
  mac.update(rawBody);
  return `v1,${mac.digest('base64')}`;
}

export interface SigningInput {
  /** The event id: the same on every attempt and redelivery, so receivers can deduplicate. */
  eventId: string;
  eventType: string;
  deliveryId: string;
  rawBody: string;
  secret: string;
  timestampSeconds: number;
}

/** Every header a Ledgerlens delivery carries (used by the server, and by receivers' tests). */
export function webhookHeaders(input: SigningInput): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'X-Service-Event': input.eventType,
    'X-Service-Delivery': input.deliveryId,
    'X-Service-Signature': signWebhook(input.rawBody, input.secret),
    'webhook-id': input.eventId,
    'webhook-timestamp': String(input.timestampSeconds),
    'webhook-signature': signStandardWebhook(input.eventId, input.timestampSeconds, input.rawBody, input.secret),
  };
}

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value[0] : value;
}

function equal(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

function verifyStandard(rawBody: string | Uint8Array, headers: HeaderBag, secret: string, options: VerifyOptions): string {
  const id = header(headers, WEBHOOK_ID_HEADER);
  const timestamp = header(headers, WEBHOOK_TIMESTAMP_HEADER);
  const signatures = header(headers, WEBHOOK_SIGNATURE_HEADER) ?? '';
  if (!id || !timestamp)
    throw new WebhookVerificationError(
      `${WEBHOOK_SIGNATURE_HEADER} needs the ${WEBHOOK_ID_HEADER} and ${WEBHOOK_TIMESTAMP_HEADER} headers too`,
    );
  if (!/^\d{1,12}$/.test(timestamp.trim()))
    throw new WebhookVerificationError(`Malformed ${WEBHOOK_TIMESTAMP_HEADER} header: expected Unix seconds`);
  const seconds = Number(timestamp.trim());
  const nowValue = options.now ? options.now() : Date.now();
  const nowSeconds = Math.floor((typeof nowValue === 'number' ? nowValue : nowValue.getTime()) / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(nowSeconds - seconds) > tolerance) {
    throw new WebhookVerificationError(
      `Timestamp outside the tolerance of ${tolerance} s (${nowSeconds - seconds} s from now): a replayed request, or a receiver clock out of sync`,
    );
  }
  const expected = Buffer.from(signStandardWebhook(id, seconds, rawBody, secret).slice(3), 'base64');
  const candidates = signatures.split(' ').filter((s) => s.startsWith('v1,'));
  if (candidates.length === 0) throw new WebhookVerificationError(`Malformed ${WEBHOOK_SIGNATURE_HEADER} header: expected "v1,<base64>"`);
  if (!candidates.some((c) => equal(expected, Buffer.from(c.slice(3), 'base64')))) {
    throw new WebhookVerificationError('Signature mismatch: check the secret, and that the body was not re-serialized before verifying');
  }
  return id;
}

function verifyServiceSignature(rawBody: string | Uint8Array, headers: HeaderBag, secret: string, options: VerifyOptions): void {
  const given = header(headers, SIGNATURE_HEADER);
  if (!options.allowUntimedSignature) {
    throw new WebhookVerificationError(
      given
        ? `Missing ${WEBHOOK_SIGNATURE_HEADER} header: ${SIGNATURE_HEADER} alone signs no timestamp, so a captured request could be replayed at any time. ` +
            'Webhook deliveries always carry both; for batch-completion callbacks (signed with X-Service-Signature only) pass { allowUntimedSignature: true }'
        : `Missing ${WEBHOOK_SIGNATURE_HEADER} header`,
    );
  }
  if (!given) throw new WebhookVerificationError(`Missing ${SIGNATURE_HEADER} header (and no ${WEBHOOK_SIGNATURE_HEADER} header)`);
  const match = /^sha256=([0-9a-f]{64})$/i.exec(given.trim());
  if (!match) throw new WebhookVerificationError(`Malformed ${SIGNATURE_HEADER} header: expected "sha256=<64 hex characters>"`);
  const expected = Buffer.from(signWebhook(rawBody, secret).slice('sha256='.length), 'hex');
  if (!equal(expected, Buffer.from(match[1].toLowerCase(), 'hex'))) {
    throw new WebhookVerificationError('Signature mismatch: check the secret, and that the body was not re-serialized before verifying');
  }
}

/** Checks the parsed body is a Ledgerlens event envelope, so handlers can trust its shape. */
function assertEnvelope(value: unknown): asserts value is WebhookEvent<Record<string, unknown>> {
  const problems: string[] = [];
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new WebhookVerificationError('The body is not an event object');
  const v = value as Record<string, unknown>;
  const type = v.type ?? v.event;
  if (v.id !== undefined && typeof v.id !== 'string') problems.push('id must be a string');
  if (typeof type !== 'string' || !type) problems.push('type (or event) must be a non-empty string');
  if (typeof (v.created_at ?? v.timestamp) !== 'string') problems.push('created_at (or timestamp) must be a string');
  if (!v.data || typeof v.data !== 'object' || Array.isArray(v.data)) problems.push('data must be an object');
  if (v.deal_id !== undefined && v.deal_id !== null && typeof v.deal_id !== 'number') problems.push('deal_id must be a number or null');
  if (problems.length) throw new WebhookVerificationError(`The body is not a Ledgerlens event: ${problems.join('; ')}`);
}

/**
 * Checks the signature (constant-time) and returns the parsed event, typed by its `type`
 * (`LedgerlensEvent`: `switch (event.type)` narrows `event.data`). Standard Webhooks headers
 * are checked when present (with the timestamp tolerance); without them, `X-Service-Signature`
 * only with `options.allowUntimedSignature` (it signs no time). Throws WebhookVerificationError
 * with a message that says what is wrong.
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: HeaderBag, secret: string, options?: VerifyOptions): LedgerlensEvent;
/** With a type argument: the event with `data` of that type (e.g. a batch-completion callback's). */
export function verifyWebhook<T>(
  rawBody: string | Uint8Array,
  headers: HeaderBag,
  secret: string,
  options?: VerifyOptions,
): WebhookEvent<T>;
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: HeaderBag,
  secret: string,
  options: VerifyOptions = {},
): WebhookEvent<unknown> {
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new WebhookVerificationError(
      'Pass the raw request body (string or bytes), not parsed JSON: the signature covers the exact bytes received',
    );
  }
  if (!secret) throw new WebhookVerificationError('The webhook secret is empty');
  const standardId = header(headers, WEBHOOK_SIGNATURE_HEADER) !== undefined ? verifyStandard(rawBody, headers, secret, options) : null;
  if (standardId === null) verifyServiceSignature(rawBody, headers, secret, options);
  const text = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new WebhookVerificationError('The body is signed correctly but is not valid JSON');
  }
  assertEnvelope(parsed);
  if (standardId !== null && parsed.id !== undefined && parsed.id !== standardId) {
    throw new WebhookVerificationError(`${WEBHOOK_ID_HEADER} (${standardId}) does not match the event id in the body (${parsed.id})`);
  }
  return parsed as unknown as WebhookEvent<unknown>;
}
