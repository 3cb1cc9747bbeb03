import { FetchLike, RetryInfo, Sleep, Transport, realSleep } from './http.js';
import type {
  ApiResponse,
  CommonRequestOptions,
  HttpMethod,
  MaybeOptional,
  OperationOf,
  PageItem,
  PageMeta,
  PaginatedPaths,
  paths,
  PathsWithMethod,
  RequestOptions,
  SuccessBody,
} from './types.js';
import { SDK_VERSION } from './version.js';

export interface LedgerlensOptions {
  /** API base URL, e.g. `https://ledgerlens.example.com` (no `/v1`). */
  baseUrl: string;
  /** API key, sent as `X-API-Key`. */
  apiKey?: string;
  /**
   * Bearer token (session token, OAuth access token or API key), sent as `Authorization: Bearer`.
   * A function is called before every attempt, so it can refresh an expiring token.
   */
  accessToken?: string | (() => string | Promise<string>);
  /** A fetch implementation (default: the global fetch). */
  fetch?: FetchLike;
  /** Retries after 429, 5xx and network errors (see README: Retries). Default 4. */
  maxRetries?: number;
  /** Per-attempt timeout in milliseconds; 0 disables it. Default 60 000. */
  timeoutMs?: number;
  /**
   * Default time budget of every call in milliseconds: its attempts and the waits between them.
   * A retry wait that would end after it is not waited for (the error is thrown at once, with
   * `retryAfter`). Default 0: no budget beyond `timeoutMs` per attempt and `maxRetryDelayMs` per wait.
   */
  timeout?: number;
  /** User-Agent header; null to send none. Default `ledgerlens-sdk-js/<version>`. */
  userAgent?: string | null;
  /** Waits between retries (inject a fake in tests). Default: setTimeout. */
  sleep?: Sleep;
  /**
   * A server-requested wait (Retry-After / X-RateLimit-Reset) longer than this is not waited for:
   * the error is thrown at once. Default 120 000.
   */
  maxRetryDelayMs?: number;
  /** Called before each retry wait, e.g. for logging. */
  onRetry?: (info: RetryInfo) => void;
  /** Random source for jitter, in [0, 1). Default Math.random. */
  random?: () => number;
}

type ClientOptions = Omit<LedgerlensOptions, 'apiKey' | 'accessToken'>;

export interface BrowserOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** Default: the page's origin (`location.origin`), where the API serves the web app. */
  baseUrl?: string;
}

export interface LoginOptions extends ClientOptions {
  email: string;
  password: string;
  /** Aborts the login request (and any retry wait). */
  signal?: AbortSignal;
}

export interface ClientCredentialsOptions extends ClientOptions {
  clientId: string;
  clientSecret: string;
  /** Fetch a new token this many ms before the current one expires. Default 60 000. */
  refreshMarginMs?: number;
  /** Aborts the first token request (and any retry wait). */
  signal?: AbortSignal;
}

type Call<M extends HttpMethod> = <P extends PathsWithMethod<paths, M>>(
  path: P,
  ...options: MaybeOptional<RequestOptions<OperationOf<paths, P, M>>>
) => Promise<ApiResponse<SuccessBody<OperationOf<paths, P, M>>>>;

export type PageQuery<P extends PaginatedPaths<paths>> =
  OperationOf<paths, P, 'get'> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** Path parameters of a list endpoint (`{ deal_id }` for `/v1/deals/{deal_id}/transactions`), never when it has none. */
export type PagePathParams<P extends PaginatedPaths<paths>> =
  OperationOf<paths, P, 'get'> extends { parameters: { path?: infer X } } ? NonNullable<X> : never;

/**
 * Arguments of `pages`/`paginate` after the path: the query, or, for a path with parameters,
 * `{ path, query }` (so a missing path parameter is a type error, not a run-time one).
 */
export type PageArgs<P extends PaginatedPaths<paths>> = [PagePathParams<P>] extends [never]
  ? [query?: PageQuery<P>, options?: CommonRequestOptions]
  : [params: { path: PagePathParams<P>; query?: PageQuery<P> }, options?: CommonRequestOptions];

export interface Page<T> {
  data: T[];
  meta: PageMeta;
}

/**
 * The client without its resources: credentials, the HTTP layer (ky, retries, budgets), the calls
 * typed by path (`GET`, `POST`, ...), `request`, `pages` and `paginate`. `Ledgerlens` adds every
 * resource; a bundle that needs a few builds them on this one (each resource is its own module,
 * and the package has no side effects, so a bundler leaves out the rest):
 *
 * ```ts
 * import { LedgerlensCore, DealsResource } from '@ledgerlens/sdk';
 * const core = new LedgerlensCore({ baseUrl, apiKey });
 * const deals = new DealsResource(core);
 * ```
 */
export class LedgerlensCore {
  readonly baseUrl: string;
  protected readonly transport: Transport;
  /** The browser session's CSRF token, learnt by `session`; sent as X-CSRF-Token while known. */
  protected csrfToken: string | null = null;

  constructor(options: LedgerlensOptions) {
    if (!options || typeof options.baseUrl !== 'string' || !options.baseUrl) throw new TypeError('Ledgerlens: baseUrl is required');
    const maxRetries = options.maxRetries ?? 4;
    if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new TypeError('Ledgerlens: maxRetries must be a non-negative integer');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    const { apiKey, accessToken } = options;
    this.transport = new Transport({
      baseUrl: this.baseUrl,
      fetch: options.fetch,
      maxRetries,
      maxRetryDelayMs: options.maxRetryDelayMs ?? 120_000,
      timeoutMs: options.timeoutMs ?? 60_000,
      timeout: options.timeout ?? 0,
      userAgent: options.userAgent === undefined ? `ledgerlens-sdk-js/${SDK_VERSION}` : options.userAgent,
      sleep: options.sleep ?? realSleep,
      random: options.random ?? Math.random,
      onRetry: options.onRetry,
      authHeaders: async () => {
        const headers: Record<string, string> = {};
        if (apiKey) headers['X-API-Key'] = apiKey;
        const token = typeof accessToken === 'function' ? await accessToken() : accessToken;
        if (token) headers.Authorization = `Bearer ${token}`;
        if (this.csrfToken) headers['X-CSRF-Token'] = this.csrfToken;
        return headers;
      },
    });
  }

  /** Typed GET by path; resolves with `{ data, status, headers, requestId, ... }`, rejects with LedgerlensError. */
  readonly GET: Call<'get'> = (path, ...options) => this.call('get', path, options[0]);
  readonly POST: Call<'post'> = (path, ...options) => this.call('post', path, options[0]);
  readonly PUT: Call<'put'> = (path, ...options) => this.call('put', path, options[0]);
  readonly PATCH: Call<'patch'> = (path, ...options) => this.call('patch', path, options[0]);
  readonly DELETE: Call<'delete'> = (path, ...options) => this.call('delete', path, options[0]);

  /**
   * Untyped escape hatch for endpoints newer than this SDK's schema.
   */
  request<T = unknown>(method: string, path: string, options: UntypedRequestOptions = {}): Promise<ApiResponse<T>> {
    return this.transport.request<T>({ method, path, ...options });
  }

  /**
   * Every page of a `{data, meta}` list endpoint, from `query.page` (default 1) to the last.
   * For a path with parameters pass `{ path: { deal_id }, query }`.
   */
  async *pages<P extends PaginatedPaths<paths>>(path: P, ...args: PageArgs<P>): AsyncGenerator<Page<PageItem<paths, P>>, void, undefined> {
    const [first, options = {}] = args as [unknown, CommonRequestOptions | undefined];
    const templated = /\{[^}]+\}/.test(path);
    const given = (first ?? {}) as { path?: Record<string, unknown>; query?: Record<string, unknown> };
    const pathParams = templated ? given.path : undefined;
    const query = (templated ? given.query : (first as Record<string, unknown> | undefined)) ?? {};
    let page = Number(query.page ?? 1);
    for (;;) {
      const { data } = await this.transport.request<Page<PageItem<paths, P>>>({
        ...options,
        method: 'GET',
        path,
        params: { path: pathParams, query: { ...query, page } },
      });
      yield data;
      if (data.data.length === 0 || page >= data.meta.total_pages) return;
      page += 1;
    }
  }

  /** Every item of a `{data, meta}` list endpoint, fetching pages as the loop advances. */
  async *paginate<P extends PaginatedPaths<paths>>(path: P, ...args: PageArgs<P>): AsyncGenerator<PageItem<paths, P>, void, undefined> {
    for await (const page of this.pages(path, ...args)) yield* page.data;
  }

  private call(method: HttpMethod, path: string, options: unknown): Promise<ApiResponse<never>> {
    const { params, ...rest } = (options ?? {}) as UntypedRequestOptions;
    return this.transport.request({ method, path, params, ...rest });
  }
}

export interface UntypedRequestOptions extends CommonRequestOptions {
  params?: { path?: Record<string, unknown>; query?: Record<string, unknown>; header?: Record<string, unknown> };
  body?: unknown;
}
