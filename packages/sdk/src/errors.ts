import type { ValidationEntry } from './types.js';

/**
 * The API's stable error codes (the `code` of the error envelope `{detail, code, errors}`).
 * `errors.spec.ts` checks this list against the server's, so a code added there fails the SDK's
 * tests until it is added here.
 */
export const ERROR_CODES = [
  'VALIDATION_ERROR',
  'AUTH_REQUIRED',
  'INVALID_API_KEY',
  'INVALID_CREDENTIALS',
  'SHARE_PASSWORD_REQUIRED',
  'SHARE_PASSWORD_INVALID',
  'FORBIDDEN',
  'HTTPS_REQUIRED',
  'NOT_FOUND',
  'DEAL_NOT_FOUND',
  'DOCUMENT_NOT_FOUND',
  'CONFLICT',
  'DUPLICATE_RESOURCE',
  'IDEMPOTENCY_IN_PROGRESS',
  'IDEMPOTENCY_KEY_REUSED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMIT_EXCEEDED',
  'QUOTA_EXCEEDED',
  'PROCESSING_FAILED',
  'WEIGHT_SUM_INVALID',
  'INVALID_DECISION',
  'CRM_NOT_CONFIGURED',
  'CRM_CONNECTION_FAILED',
  'CRM_SIGNATURE_INVALID',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
] as const;

/** One of the API's error codes. */
export type ApiErrorCode = (typeof ERROR_CODES)[number];

/** `HTTP_<status>`: the answer was not the API's error envelope (e.g. a proxy's 502 page). */
export type HttpStatusCode = `HTTP_${number}`;

/** What `LedgerlensError.code` can be. */
export type LedgerlensErrorCode = ApiErrorCode | HttpStatusCode;

/** The kind of an API error: one subclass of LedgerlensError each, and the `kind` discriminant. */
export type LedgerlensErrorKind =
  'authentication' | 'permission' | 'not_found' | 'validation' | 'conflict' | 'idempotency' | 'rate_limit' | 'server' | 'other';

/** Base class of every error the SDK throws. */
export class LedgerlensBaseError extends Error {
  override name = 'LedgerlensBaseError';
}

export interface LedgerlensErrorInit {
  status: number;
  code: LedgerlensErrorCode;
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
 * it is `HTTP_<status>`. What the SDK throws is one of its subclasses (AuthenticationError,
 * PermissionError, NotFoundError, ValidationError, ConflictError, IdempotencyKeyReusedError,
 * RateLimitError, ServerError), or this class for any other status; `kind` tells them apart too.
 */
export class LedgerlensError extends LedgerlensBaseError {
  override name = 'LedgerlensError';
  readonly kind: LedgerlensErrorKind = 'other';
  readonly status: number;
  readonly code: LedgerlensErrorCode;
  readonly detail: string;
  /** Validation problems (`loc`, `msg`, `type`, `field`, `message`); empty for other errors. */
  readonly errors: ValidationEntry[];
  /** X-Request-Id of the failed response. */
  readonly requestId: string | null;
  /** Seconds the server asks to wait before retrying (Retry-After, or X-RateLimit-Reset on a 429), or null. */
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

/** 401: no credential, an invalid, expired or revoked one, wrong login or share password. */
export class AuthenticationError extends LedgerlensError {
  override name = 'AuthenticationError';
  override readonly kind = 'authentication' as const;
  declare readonly code:
    | 'AUTH_REQUIRED'
    | 'INVALID_API_KEY'
    | 'INVALID_CREDENTIALS'
    | 'SHARE_PASSWORD_REQUIRED'
    | 'SHARE_PASSWORD_INVALID'
    | 'CRM_SIGNATURE_INVALID'
    | HttpStatusCode;
}

/** 403: the credential lacks the scope or role (or plain HTTP where HTTPS is required). */
export class PermissionError extends LedgerlensError {
  override name = 'PermissionError';
  override readonly kind = 'permission' as const;
  declare readonly code: 'FORBIDDEN' | 'HTTPS_REQUIRED' | HttpStatusCode;
}

/** 404: absent, or of another organization or mode. */
export class NotFoundError extends LedgerlensError {
  override name = 'NotFoundError';
  override readonly kind = 'not_found' as const;
  declare readonly code: 'NOT_FOUND' | 'DEAL_NOT_FOUND' | 'DOCUMENT_NOT_FOUND' | 'CRM_NOT_CONFIGURED' | HttpStatusCode;
}

/** One invalid field of a request, from a validation error's entries. */
export interface FieldError {
  /** Dotted field name (`business_name`, `factors.0.weight`); empty when the problem is not one field's. */
  field: string;
  /** Where the field was: `body`, `query`, `path` or `header`. */
  location: 'body' | 'query' | 'path' | 'header' | null;
  message: string;
  /** Machine-readable kind of problem (`value_error.missing`, `type_error.integer`, ...). */
  type: string;
}

/**
 * 400/422: the request is invalid (`VALIDATION_ERROR`) or breaks a business rule
 * (`INVALID_DECISION`, `WEIGHT_SUM_INVALID`, `PROCESSING_FAILED`, ...). `fields` lists every
 * invalid field; `fieldErrors` groups their messages by field name.
 */
export class ValidationError extends LedgerlensError {
  override name = 'ValidationError';
  override readonly kind = 'validation' as const;
  declare readonly code:
    'VALIDATION_ERROR' | 'PROCESSING_FAILED' | 'WEIGHT_SUM_INVALID' | 'INVALID_DECISION' | 'CRM_CONNECTION_FAILED' | HttpStatusCode;
  readonly fields: FieldError[];
  readonly fieldErrors: Record<string, string[]>;

  constructor(init: LedgerlensErrorInit) {
    super(init);
    this.fields = init.errors.map(toFieldError);
    const grouped: Record<string, string[]> = {};
    for (const f of this.fields) (grouped[f.field] ??= []).push(f.message);
    this.fieldErrors = grouped;
  }
}

/** 409: the state forbids it (a duplicate, a deal not ready, the same Idempotency-Key still in flight). */
export class ConflictError extends LedgerlensError {
  override name = 'ConflictError';
  override readonly kind = 'conflict' as const;
  declare readonly code: 'CONFLICT' | 'DUPLICATE_RESOURCE' | 'IDEMPOTENCY_IN_PROGRESS' | HttpStatusCode;
}

/**
 * 422 `IDEMPOTENCY_KEY_REUSED`: the Idempotency-Key was already used for a different request
 * (method, path, query or body). Use a new key per logical operation.
 */
export class IdempotencyKeyReusedError extends LedgerlensError {
  override name = 'IdempotencyKeyReusedError';
  override readonly kind = 'idempotency' as const;
  declare readonly code: 'IDEMPOTENCY_KEY_REUSED';
}

/**
 * 429: the rate limit (`RATE_LIMIT_EXCEEDED`) or the monthly quota (`QUOTA_EXCEEDED`) is used up.
 * `retryAfter` is how many seconds to wait. Thrown after the SDK's retries, or at once when the
 * wait is longer than the call's `timeout` or the client's `maxRetryDelayMs`.
 */
export class RateLimitError extends LedgerlensError {
  override name = 'RateLimitError';
  override readonly kind = 'rate_limit' as const;
  declare readonly code: 'RATE_LIMIT_EXCEEDED' | 'QUOTA_EXCEEDED' | HttpStatusCode;
}

/** 5xx: the server failed (after the SDK's retries when the request was safe to repeat). */
export class ServerError extends LedgerlensError {
  override name = 'ServerError';
  override readonly kind = 'server' as const;
  declare readonly code: 'INTERNAL_ERROR' | 'SERVICE_UNAVAILABLE' | HttpStatusCode;
}

/** Every API error the SDK throws, discriminated by `kind`. */
export type LedgerlensApiError =
  | AuthenticationError
  | PermissionError
  | NotFoundError
  | ValidationError
  | ConflictError
  | IdempotencyKeyReusedError
  | RateLimitError
  | ServerError
  | (LedgerlensError & { kind: 'other' });

/** The subclass for an error answer: by code first (a code names its kind), else by status. */
export function createError(init: LedgerlensErrorInit): LedgerlensError {
  const { status, code } = init;
  if (code === 'IDEMPOTENCY_KEY_REUSED') return new IdempotencyKeyReusedError(init);
  if (status === 401) return new AuthenticationError(init);
  if (status === 403) return new PermissionError(init);
  if (status === 404) return new NotFoundError(init);
  if (status === 409) return new ConflictError(init);
  if (status === 429) return new RateLimitError(init);
  if (status >= 500) return new ServerError(init);
  if (status === 400 || status === 422) return new ValidationError(init);
  return new LedgerlensError(init);
}

function toFieldError(e: ValidationEntry): FieldError {
  const loc = Array.isArray(e.loc) ? e.loc : [];
  const source = typeof loc[0] === 'string' && ['body', 'query', 'path', 'header'].includes(loc[0]) ? loc[0] : null;
  const field = e.field || (source ? loc.slice(1) : loc).join('.');
  return {
    field,
    location: source as FieldError['location'],
    message: e.message || e.msg || e.type || 'invalid',
    type: e.type || '',
  };
}

/**
 * `422 VALIDATION_ERROR: Validation failed: business_name: must be a string; funding_amount_requested:
 * must be a positive number (request req_...)`: the fields are in the message, not only in `errors`.
 */
export function errorMessage(init: Pick<LedgerlensErrorInit, 'status' | 'code' | 'detail' | 'errors' | 'requestId'>): string {
  const problems = init.errors.map((e) => {
    const { field, message } = toFieldError(e);
    return field && !message.startsWith(field) ? `${field}: ${message}` : message;
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
  /** True when the call's `timeout` (or the per-attempt `timeoutMs`) expired. */
  readonly timedOut: boolean;
  /** True when nothing listened at the address (connection refused, unknown host): retried once at most. */
  readonly refused: boolean;

  constructor(message: string, init: { method: string; url: string; cause: unknown; timedOut?: boolean; refused?: boolean }) {
    super(message, { cause: init.cause });
    this.method = init.method;
    this.url = init.url;
    this.timedOut = init.timedOut ?? false;
    this.refused = init.refused ?? false;
  }
}
