import type { ValidationEntry } from './types.js';

/** Base class of every error the SDK throws. */
export class LedgerlensBaseError extends Error {
  override name = 'LedgerlensBaseError';
}

export interface LedgerlensErrorInit {
  status: number;
  code: string;
  detail: string;
  errors: ValidationEntry[];
  requestId: string | null;
  retryAfter: number | null;
  method: string;
  url: string;
  headers: Headers;
  body: unknown;
}

/**
 * A non-2xx answer from the API. `code` is the stable API error code (`DEAL_NOT_FOUND`,
 * `VALIDATION_ERROR`, `RATE_LIMIT_EXCEEDED`, ...); when the body is not the API's error envelope
 * (e.g. a proxy's 502 page) it is `HTTP_<status>`.
 */
export class LedgerlensError extends LedgerlensBaseError {
  override name = 'LedgerlensError';
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  /** Validation problems (`loc`, `msg`, `type`, `field`, `message`); empty for other errors. */
  readonly errors: ValidationEntry[];
  /** X-Request-Id of the failed response. */
  readonly requestId: string | null;
  /** Seconds from Retry-After, or null when the response had none. */
  readonly retryAfter: number | null;
  readonly method: string;
  readonly url: string;
  readonly headers: Headers;
  /** The parsed response body (the error envelope, or raw text). */
  readonly body: unknown;

  constructor(init: LedgerlensErrorInit) {
    super(errorMessage(init));
    this.status = init.status;
    this.code = init.code;
    this.detail = init.detail;
    this.errors = init.errors;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.method = init.method;
    this.url = init.url;
    this.headers = init.headers;
    this.body = init.body;
  }
}

/**
 * `422 VALIDATION_ERROR: Validation failed: business_name: must be a string; funding_amount_requested:
 * must be a positive number (request req_...)`: the fields are in the message, not only in `errors`.
 */
export function errorMessage(init: Pick<LedgerlensErrorInit, 'status' | 'code' | 'detail' | 'errors' | 'requestId'>): string {
  const problems = init.errors.map((e) => {
    const field = e.field || (Array.isArray(e.loc) ? e.loc.filter((p) => p !== 'body' && p !== 'query' && p !== 'path').join('.') : '');
    const text = e.message || e.msg || e.type || 'invalid';
    return field && !text.startsWith(field) ? `${field}: ${text}` : text;
  });
  const detail = problems.length ? `${init.detail}: ${problems.join('; ')}` : init.detail;
  return `${init.status} ${init.code}: ${detail}${init.requestId ? ` (request ${init.requestId})` : ''}`;
}

/** `deals.waitUntilReady` gave up: the deal failed (every document failed) or the time ran out. */
export class LedgerlensWaitError extends LedgerlensBaseError {
  override name = 'LedgerlensWaitError';
  constructor(
    message: string,
    readonly reason: 'failed' | 'timeout',
    /** The deal as last read (null when it was never read). */
    readonly deal: unknown,
  ) {
    super(message);
  }
}

/** The request never got an HTTP answer: DNS, refused or reset connection, or timeout. */
export class LedgerlensConnectionError extends LedgerlensBaseError {
  override name = 'LedgerlensConnectionError';
  readonly method: string;
  readonly url: string;
  /** True when the per-attempt timeout (`timeoutMs`) expired. */
  readonly timedOut: boolean;

  constructor(message: string, init: { method: string; url: string; cause: unknown; timedOut?: boolean }) {
    super(message, { cause: init.cause });
    this.method = init.method;
    this.url = init.url;
    this.timedOut = init.timedOut ?? false;
  }
}
