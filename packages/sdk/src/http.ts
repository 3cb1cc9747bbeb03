import { createError, LedgerlensConnectionError, LedgerlensError, type LedgerlensErrorCode } from './errors.js';
import { IDEMPOTENCY_KEYED, WRAPPED } from './operation-flags.js';
import type { ApiResponse, ErrorEnvelope, ParseAs, RateLimitInfo } from './types.js';

export type FetchLike = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;
type BodyInit = NonNullable<RequestInit['body']>;
export type Sleep = (ms: number) => Promise<void>;

export interface RetryInfo {
  /** 1 for the first retry. */
  attempt: number;
  /** How long the SDK waits before the retry. */
  delayMs: number;
  reason: 'rate_limited' | 'server_error' | 'network_error' | 'connection_refused';
  method: string;
  url: string;
  /** The failure that triggers the retry. */
  error: LedgerlensError | LedgerlensConnectionError;
}

export interface TransportConfig {
  baseUrl: string;
  fetch?: FetchLike;
  maxRetries: number;
  maxRetryDelayMs: number;
  /** Per attempt; 0 for none. */
  timeoutMs: number;
  /** The whole call (attempts and waits); 0 for none. */
  timeout: number;
  userAgent: string | null;
  sleep: Sleep;
  random: () => number;
  onRetry?: (info: RetryInfo) => void;
  /** Credential headers, resolved before every attempt (lets OAuth tokens refresh). */
  authHeaders: () => Promise<Record<string, string>>;
}

export interface RawRequest {
  method: string;
  /** Path template such as `/v1/deals/{deal_id}`. */
  path: string;
  params?: { path?: Record<string, unknown>; query?: Record<string, unknown>; header?: Record<string, unknown> };
  headers?: Record<string, string | undefined>;
  body?: unknown;
  signal?: AbortSignal;
  maxRetries?: number;
  timeoutMs?: number;
  timeout?: number;
  parseAs?: ParseAs;
  /**
   * Idempotency-Key for an operation that honours one. Default: a UUID v4 generated once per call
   * and reused by the SDK's own retries, so a retried POST never acts twice. `false` sends none.
   */
  idempotencyKey?: string | false;
}

/** `METHOD /path/{template}` of the operations that honour Idempotency-Key (from the contract). */
const IDEMPOTENCY_KEYED_SET = new Set<string>(IDEMPOTENCY_KEYED);

/** `METHOD /path/{template}` of the operations whose answer wraps one resource in `{data: {...}}`. */
const WRAPPED_SET = new Set<string>(WRAPPED);

/** True when the contract says `method path` honours Idempotency-Key. */
export function honoursIdempotencyKey(method: string, pathTemplate: string): boolean {
  return IDEMPOTENCY_KEYED_SET.has(`${method.toUpperCase()} ${pathTemplate}`);
}

/** True when the contract says `method path` answers `{data: <one resource>}`. */
export function answersWrapped(method: string, pathTemplate: string): boolean {
  return WRAPPED_SET.has(`${method.toUpperCase()} ${pathTemplate}`);
}

/** Methods that may be repeated safely (RFC 9110); other methods need an Idempotency-Key. */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
/** Every method ky may retry: whether a POST or PATCH is repeated is `shouldRetry`'s call (429, or an Idempotency-Key). */
const RETRY_METHODS = ['get', 'put', 'head', 'delete', 'options', 'trace', 'post', 'patch'] as const;
/** The statuses ky retries (429: the server did not process the request; 5xx of a gateway or an overloaded server). */
const RETRY_STATUS_CODES = [429, 500, 502, 503, 504];
const BACKOFF_BASE_MS = 1000;
const BACKOFF_MAX_MS = 30_000;
/** The one retry of a refused connection (nothing listening, unknown host) comes after this. */
const REFUSED_RETRY_MS = 250;
/** Error codes (of fetch's cause) that mean nothing answered at that address. */
const REFUSED_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_NONAME']);

export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let kyModule: Promise<typeof import('ky')> | null = null;
/**
 * ky is ESM only and this package is also built as CommonJS: a dynamic import (kept as `import()`
 * in both builds) loads it once, in either.
 */
function loadKy(): Promise<typeof import('ky')> {
  kyModule ??= import('ky');
  return kyModule;
}

/** The retry ky is about to make: decided and timed by `shouldRetry`, waited by ky (`retry.delay`). */
interface PlannedRetry {
  info: RetryInfo;
}

/**
 * The SDK's one HTTP layer: ky, with its retry (`retry.limit`, `methods`, `statusCodes`,
 * `shouldRetry`, `delay`, `backoffLimit`) and its per-attempt `timeout`, configured per call with
 * the rules in the README (Retries): the call's time budget, a refused connection retried once, a
 * server-requested wait longer than `maxRetryDelayMs` not taken, and the Idempotency-Key.
 */
export class Transport {
  constructor(readonly config: TransportConfig) {}

  async request<T>(req: RawRequest): Promise<ApiResponse<T>> {
    const method = req.method.toUpperCase();
    const url = buildUrl(this.config.baseUrl, req.path, req.params?.path, req.params?.query);
    const maxRetries = req.maxRetries ?? this.config.maxRetries;
    const budget = req.timeout ?? this.config.timeout;
    const deadline = budget > 0 && Number.isFinite(budget) ? Date.now() + budget : Infinity;
    const perAttempt = req.timeoutMs ?? this.config.timeoutMs;
    const { body, contentType } = serializeBody(req.body);
    const explicitKey =
      Object.keys(req.params?.header ?? {}).some((k) => k.toLowerCase() === 'idempotency-key') ||
      Object.keys(req.headers ?? {}).some((k) => k.toLowerCase() === 'idempotency-key');
    // one key per call, generated before the first attempt and sent again by every retry
    const autoKey =
      req.idempotencyKey !== undefined
        ? req.idempotencyKey || null
        : !explicitKey && honoursIdempotencyKey(method, req.path)
          ? globalThis.crypto.randomUUID()
          : null;
    req.signal?.throwIfAborted();
    const headers = this.staticHeaders(req, contentType);
    if (autoKey !== null) headers.set('Idempotency-Key', autoKey);
    const retrySafe = IDEMPOTENT_METHODS.has(method) || headers.has('idempotency-key');

    // the call's budget: ends attempts and waits alike (ky hands the signal to fetch and to its waits)
    const budgetController = new AbortController();
    const budgetTimer = Number.isFinite(deadline)
      ? setTimeout(() => budgetController.abort(new DOMException(`${method} ${url} timed out`, 'TimeoutError')), Math.max(0, budget))
      : undefined;
    const signal = req.signal ? AbortSignal.any([req.signal, budgetController.signal]) : budgetController.signal;

    const converted = new WeakMap<object, LedgerlensError | LedgerlensConnectionError>();
    const convert = async (error: unknown): Promise<LedgerlensError | LedgerlensConnectionError | null> => {
      if (typeof error !== 'object' || error === null) return null;
      const known = converted.get(error);
      if (known) return known;
      const { HTTPError, TimeoutError } = await loadKy();
      let result: LedgerlensError | LedgerlensConnectionError | null = null;
      if (error instanceof HTTPError) result = await toError(error.response, method, url);
      else if (error instanceof TimeoutError || (budgetController.signal.aborted && !req.signal?.aborted))
        result = new LedgerlensConnectionError(`${method} ${url} timed out`, { method, url, cause: error, timedOut: true, refused: false });
      // fetch's network failure (by name: it may come from another realm than this module's TypeError)
      else if ((error as Error).name === 'TypeError')
        result = new LedgerlensConnectionError(`${method} ${url} failed: ${describe(error)}`, {
          method,
          url,
          cause: error,
          timedOut: false,
          refused: isRefused(error),
        });
      if (result) converted.set(error, result);
      return result;
    };

    let planned: PlannedRetry | null = null;
    /** Whether to retry `error` (the `retryCount`th retry), and after how long: null for no. */
    const plan = async (error: unknown, retryCount: number): Promise<PlannedRetry | null> => {
      if (req.signal?.aborted || budgetController.signal.aborted) return null;
      const failure = await convert(error);
      if (!failure) return null; // not an HTTP or network failure (a hook or a custom fetch threw): never retried
      let delayMs: number;
      let reason: RetryInfo['reason'];
      if (failure instanceof LedgerlensConnectionError) {
        if (!retrySafe) return null;
        if (failure.refused) {
          if (retryCount > 1) return null;
          delayMs = REFUSED_RETRY_MS + Math.floor(this.config.random() * (REFUSED_RETRY_MS / 4));
          reason = 'connection_refused';
        } else {
          delayMs = this.backoff(retryCount - 1);
          reason = 'network_error';
        }
      } else {
        const rateLimited = failure.status === 429;
        if (!RETRY_STATUS_CODES.includes(failure.status) || (!rateLimited && !retrySafe)) return null;
        const hintMs = failure.retryAfter !== null ? failure.retryAfter * 1000 : null;
        if (hintMs !== null && hintMs > this.config.maxRetryDelayMs) return null;
        delayMs = hintMs !== null ? Math.round(hintMs) + Math.floor(this.config.random() * 250) : this.backoff(retryCount - 1);
        reason = rateLimited ? 'rate_limited' : 'server_error';
      }
      // a wait that would end after the call's budget: fail now, with the wait in the error
      if (Date.now() + delayMs >= deadline) return null;
      return { info: { attempt: retryCount, delayMs, reason, method, url, error: failure } };
    };

    const injectedSleep = this.config.sleep !== realSleep;
    const { default: ky } = await loadKy();
    try {
      const response = await ky(url, {
        method,
        headers,
        body,
        signal,
        fetch: this.config.fetch,
        timeout: perAttempt > 0 && Number.isFinite(perAttempt) ? perAttempt : false,
        throwHttpErrors: true,
        retry: {
          limit: maxRetries,
          methods: [...RETRY_METHODS],
          statusCodes: RETRY_STATUS_CODES,
          // Retry-After (and X-RateLimit-Reset) is read by `shouldRetry`, which must know the wait
          // to check it against maxRetryDelayMs and the call's budget and to put it on the error
          afterStatusCodes: [],
          retryOnTimeout: true,
          backoffLimit: Number.isFinite(this.config.maxRetryDelayMs) ? this.config.maxRetryDelayMs + 250 : Infinity,
          shouldRetry: async ({ error, retryCount }) => {
            // ky wraps what is not an Error of its realm (fetch's TypeError under a test runner's VM)
            planned = await plan(error.name === 'NonError' && 'value' in error ? error.value : error, retryCount);
            // undefined: ky's own rules (statusCodes, retryOnTimeout) decide, with the wait below
            return planned ? undefined : false;
          },
          delay: () => {
            const next = planned!;
            this.config.onRetry?.(next.info);
            // an injected sleep replaces ky's wait (tests); it runs in beforeRetry, after a 0 ms wait
            return injectedSleep ? 0 : next.info.delayMs;
          },
        },
        hooks: {
          beforeRequest: [
            async (request) => {
              // credentials are resolved before every attempt (an OAuth token may have been renewed)
              for (const [k, v] of Object.entries(await this.config.authHeaders())) request.headers.set(k, v);
              this.applyCallerHeaders(req, request.headers);
            },
          ],
          beforeRetry: injectedSleep ? [async () => this.wait(planned!.info.delayMs, signal)] : [],
        },
      });
      // a stream is read by the caller for as long as it wants: only the caller's signal ends it
      if (req.parseAs === 'stream') clearTimeout(budgetTimer);
      return await success<T>(response, req.parseAs);
    } catch (err) {
      if (req.signal?.aborted) throw req.signal.reason ?? err;
      if (err instanceof LedgerlensError) throw err;
      throw (await convert(err)) ?? err;
    } finally {
      clearTimeout(budgetTimer);
    }
  }

  /** 1 s, 2 s, 4 s, 8 s ... (capped at 30 s) plus up to 25 % jitter. */
  private backoff(attempt: number): number {
    const base = Math.min(BACKOFF_BASE_MS * 2 ** attempt, BACKOFF_MAX_MS);
    return Math.round(base + base * 0.25 * this.config.random());
  }

  /** The injected sleep, ended by the call's signal. */
  private async wait(ms: number, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    let onAbort: () => void = () => undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      await Promise.race([this.config.sleep(ms), aborted]);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  private staticHeaders(req: RawRequest, contentType: string | null): Headers {
    const headers = new Headers({ Accept: 'application/json' });
    if (this.config.userAgent) headers.set('User-Agent', this.config.userAgent);
    if (contentType) headers.set('Content-Type', contentType);
    this.applyCallerHeaders(req, headers);
    return headers;
  }

  /** The call's own headers, which win over the credential headers. */
  private applyCallerHeaders(req: RawRequest, headers: Headers): void {
    for (const [k, v] of Object.entries(req.params?.header ?? {})) if (v !== undefined && v !== null) headers.set(k, String(v));
    for (const [k, v] of Object.entries(req.headers ?? {})) {
      if (v === undefined) headers.delete(k);
      else headers.set(k, v);
    }
  }
}

async function success<T>(response: Response, parseAs: ParseAs | undefined): Promise<ApiResponse<T>> {
  let data: unknown;
  switch (parseAs) {
    case 'text':
      data = await response.text();
      break;
    case 'blob':
      data = await response.blob();
      break;
    case 'arrayBuffer':
      data = await response.arrayBuffer();
      break;
    case 'stream':
      data = response.body;
      break;
    default: {
      const text = response.status === 204 ? '' : await response.text();
      const json = parseAs === 'json' || isJson(response.headers);
      data = text === '' ? undefined : json ? JSON.parse(text) : text;
    }
  }
  return {
    data: data as T,
    status: response.status,
    headers: response.headers,
    requestId: response.headers.get('x-request-id'),
    replayed: response.headers.get('idempotent-replayed') === 'true',
    rateLimit: rateLimitOf(response.headers),
    response,
  };
}

/** fetch failed because nothing answered at the address (refused, unknown host, unreachable). */
function isRefused(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e && typeof e === 'object'; depth++) {
    const x = e as { code?: unknown; errors?: unknown; cause?: unknown };
    if (typeof x.code === 'string' && REFUSED_CODES.has(x.code)) return true;
    if (Array.isArray(x.errors) && x.errors.some((inner: { code?: unknown }) => REFUSED_CODES.has(String(inner?.code)))) return true;
    e = x.cause;
  }
  return false;
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  const base = (err as Error)?.message ?? String(err);
  return cause?.code ? `${base} (${cause.code})` : base;
}

function isJson(headers: Headers): boolean {
  return /[/+]json\b/i.test(headers.get('content-type') ?? '');
}

async function toError(response: Response, method: string, url: string): Promise<LedgerlensError> {
  const text = await response.text().catch(() => '');
  let body: unknown = text;
  try {
    if (text) body = JSON.parse(text);
  } catch {
    /* not JSON: keep the text */
  }
  const envelope = isEnvelope(body) ? body : null;
  return createError({
    status: response.status,
    code: (envelope?.code ?? `HTTP_${response.status}`) as LedgerlensErrorCode,
    detail: envelope?.detail ?? (response.statusText || `HTTP ${response.status}`),
    errors: Array.isArray(envelope?.errors) ? envelope.errors : [],
    requestId: response.headers.get('x-request-id'),
    retryAfter: serverDelaySeconds(response.headers, response.status === 429),
    method,
    url,
    headers: response.headers,
    body,
  });
}

function isEnvelope(body: unknown): body is ErrorEnvelope {
  return typeof body === 'object' && body !== null && typeof (body as ErrorEnvelope).code === 'string';
}

/** Retry-After as seconds (delta-seconds or an HTTP date), or null. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

/** The wait the server asks for, in seconds: Retry-After, else (on 429) X-RateLimit-Reset. */
function serverDelaySeconds(headers: Headers, rateLimited: boolean): number | null {
  const retryAfter = retryAfterSeconds(headers.get('retry-after'));
  if (retryAfter !== null) return retryAfter;
  if (!rateLimited) return null;
  const reset = Number(headers.get('x-ratelimit-reset'));
  if (!headers.has('x-ratelimit-reset') || !Number.isFinite(reset)) return null;
  // Unix seconds (what Ledgerlens sends); small values are read as seconds from now.
  return Math.max(0, reset > 1e9 ? reset - Date.now() / 1000 : reset);
}

function rateLimitOf(headers: Headers): RateLimitInfo | null {
  const limit = headers.get('x-ratelimit-limit');
  if (limit === null) return null;
  return { limit: Number(limit), remaining: Number(headers.get('x-ratelimit-remaining')), reset: Number(headers.get('x-ratelimit-reset')) };
}

export function buildUrl(baseUrl: string, template: string, pathParams?: Record<string, unknown>, query?: Record<string, unknown>): string {
  const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = pathParams?.[name];
    if (value === undefined || value === null || value === '') throw new TypeError(`Missing path parameter "${name}" for ${template}`);
    return encodeURIComponent(String(value));
  });
  let url = baseUrl.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`);
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const v of value) search.append(key, String(v));
    else search.append(key, value instanceof Date ? value.toISOString() : String(value));
  }
  const qs = search.toString();
  if (qs) url += `?${qs}`;
  return url;
}

function serializeBody(body: unknown): { body: BodyInit | undefined; contentType: string | null } {
  if (body === undefined) return { body: undefined, contentType: null };
  if (
    typeof body === 'string' ||
    body instanceof URLSearchParams ||
    body instanceof FormData ||
    body instanceof Blob ||
    body instanceof ArrayBuffer ||
    ArrayBuffer.isView(body)
  ) {
    return { body: body as BodyInit, contentType: null };
  }
  return { body: JSON.stringify(body), contentType: 'application/json' };
}
