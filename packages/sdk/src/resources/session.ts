import type { LedgerlensCore } from '../core.js';
import type { CommonRequestOptions, components } from '../types.js';

export type BrowserSession = components['schemas']['BrowserSessionDto'];

/**
 * `client.session`: the browser session of a web app served by the API (same origin). The browser
 * keeps the session token in an HttpOnly cookie no script can read; this resource keeps only the
 * session's CSRF token, which the client then sends as `X-CSRF-Token` with every request (the
 * server wants it on writes). Use it with `Ledgerlens.browser()`.
 *
 * ```ts
 * const ll = Ledgerlens.browser();
 * const session = await ll.session.get().catch(() => ll.session.signIn(email, password));
 * ```
 */
export class SessionResource {
  constructor(
    private readonly client: LedgerlensCore,
    private readonly setCsrfToken: (token: string | null) => void,
  ) {}

  /** Signs in with email and password: the server sets the session cookie. */
  async signIn(email: string, password: string, options?: CommonRequestOptions): Promise<BrowserSession> {
    const { data } = await this.client.POST('/v1/auth/session', { ...options, body: { email, password } });
    this.setCsrfToken(data.csrf_token);
    return data;
  }

  /** The signed-in user (and the session's CSRF token, kept by the client); AuthenticationError (401) when signed out. */
  async get(options?: CommonRequestOptions): Promise<BrowserSession> {
    const { data } = await this.client.GET('/v1/auth/session', options);
    this.setCsrfToken(data.csrf_token);
    return data;
  }

  /** Ends the session at once; the server clears the cookie. */
  async signOut(options?: CommonRequestOptions): Promise<void> {
    await this.client.DELETE('/v1/auth/session', options);
    this.setCsrfToken(null);
  }
}
