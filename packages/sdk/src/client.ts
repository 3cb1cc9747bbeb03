import { LedgerlensConnectionError, LedgerlensError } from './errors.js';
import { LedgerlensCore, type BrowserOptions, type ClientCredentialsOptions, type LedgerlensOptions, type LoginOptions } from './core.js';
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
  LendersResource,
  NotificationsResource,
  RulesetsResource,
  SessionResource,
  SharesResource,
  TransactionsResource,
  UsageResource,
  UsersResource,
  WebhooksResource,
} from './resources/index.js';

export type {
  BrowserOptions,
  ClientCredentialsOptions,
  LedgerlensOptions,
  LoginOptions,
  Page,
  PageArgs,
  PagePathParams,
  PageQuery,
  UntypedRequestOptions,
} from './core.js';

/**
 * Ledgerlens API client. One instance per credential; instances share no state.
 *
 * ```ts
 * const ll = new Ledgerlens({ baseUrl: 'https://api.example.com', apiKey: process.env.LEDGERLENS_API_KEY });
 * const deal = await ll.deals.create({ business_name: 'Acme Bakery LLC', funding_amount_requested: 75000 });
 * const { data } = await ll.GET('/v1/deals/{deal_id}', { params: { path: { deal_id: deal.id } } });
 * ```
 */
export class Ledgerlens extends LedgerlensCore {
  readonly deals: DealsResource;
  readonly documents: DocumentsResource;
  readonly transactions: TransactionsResource;
  readonly rulesets: RulesetsResource;
  readonly lenders: LendersResource;
  readonly webhooks: WebhooksResource;
  readonly events: EventsResource;
  readonly exports: ExportsResource;
  readonly shares: SharesResource;
  readonly keys: KeysResource;
  readonly crm: CrmResource;
  readonly usage: UsageResource;
  readonly users: UsersResource;
  readonly assignments: AssignmentsResource;
  readonly comments: CommentsResource;
  readonly documentRequests: DocumentRequestsResource;
  readonly activity: ActivityResource;
  readonly notifications: NotificationsResource;
  readonly ingest: IngestResource;
  /** The browser session (web app): sign in, who is signed in, sign out. */
  readonly session: SessionResource;

  constructor(options: LedgerlensOptions) {
    super(options);
    this.deals = new DealsResource(this);
    this.documents = new DocumentsResource(this);
    this.transactions = new TransactionsResource(this);
    this.rulesets = new RulesetsResource(this);
    this.lenders = new LendersResource(this);
    this.webhooks = new WebhooksResource(this);
    this.events = new EventsResource(this);
    this.exports = new ExportsResource(this);
    this.shares = new SharesResource(this);
    this.keys = new KeysResource(this);
    this.crm = new CrmResource(this);
    this.usage = new UsageResource(this);
    this.users = new UsersResource(this);
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
}

export { LedgerlensConnectionError, LedgerlensError };
