import { hash, timingSafeEqual } from 'node:crypto';

/**
 * The browser session of the web app (README, "The web app"): the session token travels in an
 * HttpOnly, SameSite=Strict cookie (Secure in production), never readable by scripts. Writes made
 * with the cookie must also carry `X-CSRF-Token`, a value derived from the session token that the
 * app reads from `GET /v1/auth/session` (a signed double submit: a page of another site can make
 * the browser send the cookie, but cannot read the token it would have to echo).
 */
export const SESSION_COOKIE = 'll_session';
export const CSRF_HEADER = 'x-csrf-token';
/** Methods that change nothing, so need no CSRF token. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The CSRF token of a session: only the holder of the session token (the server) can compute it. */
export function csrfTokenFor(sessionToken: string): string {
  return hash('sha256', `ll-csrf:${sessionToken}`, 'base64url');
}

/** True when a request made with the session cookie may proceed: a safe method, or the right token. */
export function csrfAllows(method: string, sessionToken: string, presented: string | string[] | undefined): boolean {
  if (SAFE_METHODS.has(method.toUpperCase())) return true;
  if (typeof presented !== 'string' || !presented) return false;
  const expected = Buffer.from(csrfTokenFor(sessionToken));
  const actual = Buffer.from(presented);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** One cookie's value from a Cookie header (first occurrence), or null. */
export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    return value ? value : null;
  }
  return null;
}

/** The Set-Cookie header that stores (or, with `maxAgeSeconds` 0, clears) the session cookie. */
export function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  const parts = [
    `${SESSION_COOKIE}=${token}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`,
  ];
  if (secure) parts.push('Secure');
  return parts.join('; ');
}
