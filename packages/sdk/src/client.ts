import { LedgerlensConnectionError, LedgerlensError } from './errors.js';
import { FetchLike, RetryInfo, Sleep, Transport, realSleep } from './http.js';
import {
  ActivityResource,
  AssignmentsResource,
  CommentsResource,
  CrmResource,
  DealsResource,
  DocumentRequestsResource,
  DocumentsResource,
  EventsResource,
  ExportsResource,
  IngestResource,
  KeysResource,
  NotificationsResource,
  RulesetsResource,
  SessionResource,
  SharesResource,
  TransactionsResource,
  UsageResource,
  WebhooksResource,
} from './resources/index.js';
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
 * Ledgerlens API client. One instance per credential; instances share no state.
 *
 * ```ts
 * const ll = new Ledgerlens({ baseUrl: 'https://api.example.com', apiKey: process.env.LEDGERLENS_API_KEY });
 * const deal = await ll.deals.create({ business_name: 'Acme Bakery LLC', funding_amount_requested: 75000 });
 * const { data } = await ll.GET('/v1/deals/{deal_id}', { params: { path: { deal_id: deal.id } } });
 * ```
 */
export class Ledgerlens {
  readonly baseUrl: string;
  readonly deals: DealsResource;
  readonly documents: DocumentsResource;
  readonly transactions: TransactionsResource;
  readonly rulesets: RulesetsResource;
  readonly webhooks: WebhooksResource;
  readonly events: EventsResource;
  readonly exports: ExportsResource;
  readonly shares: SharesResource;
  readonly keys: KeysResource;
  readonly crm: CrmResource;
  readonly usage: UsageResource;
  readonly assignments: AssignmentsResource;
  readonly comments: CommentsResource;
  readonly documentRequests: DocumentRequestsResource;
  readonly activity: ActivityResource;
  readonly notifications: NotificationsResource;
  readonly ingest: IngestResource;
  /** The browser session (web app): sign in, who is signed in, sign out. */
  readonly session: SessionResource;
  private readonly transport: Transport;
  /** The browser session's CSRF token, learnt by `session`; sent as X-CSRF-Token while known. */
  private csrfToken: string | null = null;

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
    this.deals = new DealsResource(this);
    this.documents = new DocumentsResource(this);
    this.transactions = new TransactionsResource(this);
    this.rulesets = new RulesetsResource(this);
    this.webhooks = new WebhooksResource(this);
    this.events = new EventsResource(this);
    this.exports = new ExportsResource(this);
    this.shares = new SharesResource(this);
    this.keys = new KeysResource(this);
    this.crm = new CrmResource(this);
    this.usage = new UsageResource(this);
    this.assignments = new AssignmentsResource(this);
    this.comments = new CommentsResource(this);
    this.documentRequests = new DocumentRequestsResource(this);
    this.activity = new ActivityResource(this);
    this.notifications = new NotificationsResource(this);
    this.ingest = new IngestResource(this);
    this.session = new SessionResource(this, (token) => (this.csrfToken = token));
  }

  /**
   * A client for a web page served by the API itself: no key or token (the browser sends the
   * session cookie, set by `session.signIn`), the page's origin as base URL and no User-Agent header.
   */
  static browser(options: BrowserOptions = {}): Ledgerlens {
    const origin = (globalThis as { location?: { origin?: string } }).location?.origin;
    const baseUrl = options.baseUrl ?? origin;
    if (!baseUrl) throw new TypeError('Ledgerlens.browser: no baseUrl and no page origin');
    return new Ledgerlens({ userAgent: null, ...options, baseUrl });
  }

  /** Logs in with email and password; the client sends the session token (valid 24 h from last use). */
  static async login(options: LoginOptions): Promise<Ledgerlens> {
    const { email, password, signal, ...rest } = options;
    const anonymous = new Ledgerlens(rest);
    const { data } = await anonymous.POST('/v1/auth/login', { body: { email, password }, signal });
    return new Ledgerlens({ ...rest, accessToken: data.token });
  }

  /**
   * OAuth 2.0 client-credentials grant. The client fetches an access token now and fetches a new
   * one shortly before it expires.
   */
  static async fromClientCredentials(options: ClientCredentialsOptions): Promise<Ledgerlens> {
    const { clientId, clientSecret, refreshMarginMs = 60_000, signal, ...rest } = options;
    const anonymous = new Ledgerlens(rest);
    const fetchToken = async (first = false) => {
      const { data } = await anonymous.POST('/v1/oauth/token', {
        body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret },
        signal: first ? signal : undefined,
      });
      const token = data;
      return { value: token.access_token, expiresAt: Date.now() + token.expires_in * 1000 };
    };
    let current = await fetchToken(true);
    let pending: Promise<typeof current> | null = null;
    const accessToken = async () => {
      if (Date.now() < current.expiresAt - refreshMarginMs) return current.value;
      pending ??= fetchToken().finally(() => (pending = null));
      current = await pending;
      return current.value;
    };
    return new Ledgerlens({ ...rest, accessToken });
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

export { LedgerlensConnectionError, LedgerlensError };
