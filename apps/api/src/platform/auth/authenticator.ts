import { AuthContext } from './auth-context';

export interface PresentedCredential {
  /**
   * `api_key` when sent as X-API-Key; `bearer` for Authorization: Bearer; `query` for ?token= on SSE
   * paths; `cookie` for the web app's session cookie (platform/auth/browser-session.ts).
   */
  via: 'api_key' | 'bearer' | 'query' | 'cookie';
  value: string;
}

/** Port: resolves a presented credential to an AuthContext or throws ApiError(401). Implemented by modules/auth. */
export abstract class Authenticator {
  /** A credential found in the in-process cache is answered without a promise (the request hook's fast path). */
  abstract authenticate(credential: PresentedCredential): AuthContext | Promise<AuthContext>;
}
