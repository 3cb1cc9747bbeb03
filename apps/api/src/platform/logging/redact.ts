import { sqlShape } from '../database/sql-text';

/** Query parameters whose value is a credential: `token`, `api_key`, `client_secret`, `password`, ... */
const CREDENTIAL_PARAM = /token|key|secret|passw|pwd|auth|session|signature|^sig$|credential|^code$/i;
const REDACTED = '[redacted]';
/** Values shaped like our credentials (`ll_live_...`, `sess_...`, `oat_...`, `cs_...`, share tokens `shr_...`) are redacted under any name. */
const CREDENTIAL_VALUE = /^[A-Za-z0-9]{1,12}_(?:live|test)_|^(?:sess|oat|cs|shr)_[A-Za-z0-9_-]{16,}/;
/** A path segment that is (or starts like) a credential: a share link's token is the link (`/share/shr_...`). */
const CREDENTIAL_SEGMENT = /^shr_/;

function decode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text; // a malformed escape: judge the raw text
  }
}

/**
 * The URL with every credential-like path segment (a share token, however percent-encoded) and the
 * value of every credential-like query parameter replaced, for logs.
 */
export function redactUrl(url: string | undefined): string {
  if (!url) return '';
  const at = url.indexOf('?');
  if (at === -1) return redactPath(url);
  const query = url
    .slice(at + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1) return pair;
      const rawName = pair.slice(0, eq);
      const secret = CREDENTIAL_PARAM.test(decode(rawName)) || CREDENTIAL_VALUE.test(decode(pair.slice(eq + 1)).trim());
      return secret ? `${rawName}=${REDACTED}` : pair;
    })
    .join('&');
  return `${redactPath(url.slice(0, at))}?${query}`;
}

function redactPath(path: string): string {
  // the common case (no underscore, no escape) costs one scan
  if (!path.includes('_') && !path.includes('%')) return path;
  return path
    .split('/')
    .map((segment) => {
      if (!segment) return segment;
      const decoded = decode(segment).trim();
      return CREDENTIAL_SEGMENT.test(decoded) || CREDENTIAL_VALUE.test(decoded) ? REDACTED : segment;
    })
    .join('/');
}

const SQL_START = /^\s*(select|insert|update|delete|with|begin|commit|rollback|create|alter|drop|set|copy|lock)\b/i;

/**
 * Database errors carry `<statement with inlined values> - <server message>` (knex's format) and the
 * driver's copies of statement and parameters. Rewrites the error in place to the statement's
 * shape, with offending values cut from the server message and detail, so logging it is safe.
 */
export function scrubSqlError<T>(error: T): T {
  if (!(error instanceof Error)) return error;
  const err = error as Error & Record<string, unknown>;
  const original = err.message;
  err.message = scrubSqlText(original);
  if (typeof err.stack === 'string' && original) err.stack = err.stack.split(original).join(err.message);
  if (typeof err.detail === 'string') err.detail = scrubServerText(err.detail);
  for (const field of ['query', 'params', 'queryOptions', 'parameters', 'sql', 'bindings']) delete err[field];
  return error;
}

/** `<statement> - <server message>` becomes `<shape> - <server message without values>`; other text is left alone. */
export function scrubSqlText(message: string): string {
  if (!SQL_START.test(message)) return message;
  return scrubServerText(sqlShape(message));
}

/** Server messages quote offending values (`...: "abc"`, `Key (key_hash)=(9f...)`): keep the column, drop the value. */
function scrubServerText(text: string): string {
  return text
    .replace(/(: )"(?:[^"]|"")*"/g, '$1"?"')
    .replace(/\)=\((?:[^()]|\([^()]*\))*\)/g, ')=(?)')
    .replace(/(Failing row contains )\(.*\)/g, '$1(?)');
}
