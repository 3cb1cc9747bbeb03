import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../config/config';
import { ApiError, ErrorCode } from '../errors/api-error';
import { toEnvelope } from '../errors/error.filter';
import { Authenticator, PresentedCredential } from '../auth/authenticator';
import type { AuthContext } from '../auth/auth-context';
import { EndpointClass, endpointClass, RateLimiter, RateLimitResult } from '../rate-limit/rate-limit';
import { UsageMeter } from '../usage/usage-meter';
import { CSRF_HEADER, csrfAllows, readCookie, SESSION_COOKIE } from '../auth/browser-session';

const SSE_PATH = /^\/v1\/events\//;
/** Probes and the metrics scrape: no credential lookup, no rate limit; /metrics checks its own token. */
const PROBES = new Set(['/health', '/ready', '/metrics']);
/** The web app's static files (platform/http/web-app.ts): no credential is looked up for them. */
const WEB_APP = /^\/(app(\/.*)?)?$/;
/** Reading one's usage is free, so a client that ran out can still see why. */
const UNMETERED = /^\/(api\/)?v1\/usage\/me\/?$/;

/**
 * The front of the request pipeline (docs/architecture.md, "An upload", step 1), as Fastify hooks so
 * they also cover unknown routes: HTTPS check -> authentication -> rate limit. Authentication only
 * resolves the credential here; AuthGuard decides whether the route needs one, so public routes still
 * work with a bad header.
 */
export function installRequestHooks(
  fastify: FastifyInstance,
  deps: { config: AppConfig; authenticator: Authenticator; limiter: RateLimiter; usage: UsageMeter },
): void {
  const { config, authenticator, limiter, usage } = deps;
  // The endpoint class by method and matched route template (reused: it depends on nothing else).
  const classes = new Map<string, EndpointClass>();

  // A callback hook, not an async one: with the credential in the in-process cache, an in-process
  // rate limit and batched usage counts (the embedded default), a request passes without a promise;
  // a step that has to wait (a database lookup, Redis) continues when its promise settles.
  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, next: (err?: Error) => void) => {
    reply.header('X-Request-Id', request.id);
    // every answer (JSON, downloads, the reference, share pages) is read as the type it declares
    reply.header('X-Content-Type-Options', 'nosniff');
    const q = request.url.indexOf('?');
    const path = q < 0 ? request.url : request.url.slice(0, q);
    if (PROBES.has(path)) return next();

    if (config.nodeEnv === 'production' && !isHttps(request, config)) {
      return send(reply, new ApiError(ErrorCode.HTTPS_REQUIRED, 'HTTPS is required: plain HTTP requests are rejected'));
    }

    // Each way out (on to the route, an early answer, a 500 for an unexpected error) is taken once.
    let finished = false;
    const finish = (exit: () => unknown) => {
      if (finished) return;
      finished = true;
      exit();
    };
    const done = (err?: unknown) => finish(() => next(err as Error | undefined));
    const answer = (err: ApiError) => finish(() => send(reply, err));

    const limited = (result: RateLimitResult) => {
      reply.header('X-RateLimit-Limit', result.limit);
      reply.header('X-RateLimit-Remaining', result.remaining);
      reply.header('X-RateLimit-Reset', result.reset);
      if (!result.allowed) {
        reply.header('Retry-After', result.retryAfter);
        return answer(new ApiError(ErrorCode.RATE_LIMIT_EXCEEDED, `Rate limit exceeded. Try again in ${result.retryAfter} seconds.`));
      }
      // Monthly quota: live API keys and OAuth clients (not test keys, not dashboard sessions).
      const auth = request.auth;
      if (!auth?.livemode || auth.credential.type === 'session' || UNMETERED.test(path)) return done();
      const overQuota = (err: unknown) => {
        if (!(err instanceof ApiError)) return done(err);
        if (err.retryAfter) reply.header('Retry-After', err.retryAfter);
        answer(err);
      };
      let counted: void | Promise<void>;
      try {
        counted = usage.countRequest(auth.organizationId);
      } catch (err) {
        return overQuota(err);
      }
      if (counted) counted.then(() => done(), overQuota).catch(done);
      else done();
    };

    const limit = () => {
      const route = request.routeOptions.url;
      const classKey = `${request.method} ${route ?? ''}`;
      let cls = classes.get(classKey);
      if (cls === undefined) {
        cls = endpointClass(request.method, route);
        classes.set(classKey, cls);
      }
      // a share view is counted per link: its token as routed (decoded), however the URL spells it
      const subject =
        cls === 'shareView'
          ? `share:${(request.params as { token?: string }).token}`
          : request.auth && cls !== 'auth'
            ? `${request.auth.credential.type}:${request.auth.credential.id}`
            : `ip:${request.ip}`;
      const result = limiter.hit(cls, subject);
      if (result instanceof Promise) result.then(limited).catch(done);
      else limited(result);
    };

    try {
      const credential = WEB_APP.test(path) ? null : presentedCredential(request, path);
      if (!credential) return limit();
      if (credential.via === 'cookie' && !csrfAllows(request.method, credential.value, request.headers[CSRF_HEADER])) {
        // a write with the browser session but without its CSRF token: refused where a credential
        // is needed (AuthGuard); public routes such as the sign-in itself still work
        request.authError = ApiError.forbidden('CSRF token missing or invalid: send the X-CSRF-Token of GET /v1/auth/session');
        return limit();
      }
      let auth: AuthContext | Promise<AuthContext>;
      try {
        auth = authenticator.authenticate(credential);
      } catch (err) {
        // not a valid credential: AuthGuard answers 401 where the route needs one
        request.authError = err as Error;
        return limit();
      }
      if (!(auth instanceof Promise)) {
        request.auth = auth;
        return limit();
      }
      auth
        .then(
          (resolved) => (request.auth = resolved),
          (err: unknown) => (request.authError = err as Error),
        )
        .then(limit)
        .catch(done);
    } catch (err) {
      done(err);
    }
  });
}

function send(reply: FastifyReply, err: ApiError): FastifyReply {
  const { status, body } = toEnvelope(err);
  return reply.status(status).header('content-type', 'application/json; charset=utf-8').send(body);
}

function isHttps(request: FastifyRequest, config: AppConfig): boolean {
  if (config.tls) return true;
  if (config.trustProxy) {
    const proto = request.headers['x-forwarded-proto'];
    const first = (Array.isArray(proto) ? proto[0] : proto)?.split(',')[0]?.trim().toLowerCase();
    return first === 'https';
  }
  return false;
}

function presentedCredential(request: FastifyRequest, path: string): PresentedCredential | null {
  const apiKey = request.headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey.trim()) return { via: 'api_key', value: apiKey.trim() };
  const authorization = request.headers.authorization;
  if (typeof authorization === 'string' && authorization.trim()) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return { via: 'bearer', value: match ? match[1] : '' };
  }
  if (SSE_PATH.test(path)) {
    const token = (request.query as Record<string, unknown> | undefined)?.token;
    if (typeof token === 'string' && token) return { via: 'query', value: token };
  }
  const cookie = readCookie(request.headers.cookie, SESSION_COOKIE);
  if (cookie) return { via: 'cookie', value: cookie };
  return null;
}
