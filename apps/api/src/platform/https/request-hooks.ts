import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../config/config';
import { ApiError, ErrorCode } from '../errors/api-error';
import { toEnvelope } from '../errors/error.filter';
import { Authenticator, PresentedCredential } from '../auth/authenticator';
import { EndpointClass, endpointClass, RateLimiter, shareToken } from '../rate-limit/rate-limit';
import { UsageMeter } from '../usage/usage-meter';

const SSE_PATH = /^\/v1\/events\//;
/** Probes and the metrics scrape: no credential lookup, no rate limit; /metrics checks its own token. */
const PROBES = new Set(['/health', '/ready', '/metrics']);
/** Reading one's usage is free, so a client that ran out can still see why. */
const UNMETERED = /^\/(api\/)?v1\/usage\/me\/?$/;

/**
 * The front of the request pipeline (ARCHITECTURE.md, data flow 1), as Fastify hooks so they also
 * cover unknown routes: HTTPS check -> authentication -> rate limit. Authentication only resolves
 * the credential here; AuthGuard decides whether the route needs one, so public routes still work
 * with a bad header.
 */
export function installRequestHooks(
  fastify: FastifyInstance,
  deps: { config: AppConfig; authenticator: Authenticator; limiter: RateLimiter; usage: UsageMeter },
): void {
  const { config, authenticator, limiter, usage } = deps;
  // The endpoint class of a matched route, by method and route template: the class depends only on
  // the path's shape, so it is worked out from the first request of each route and reused (not for
  // wildcard templates, which cover paths of different shapes).
  const classes = new Map<string, EndpointClass>();

  fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('X-Request-Id', request.id);
    const q = request.url.indexOf('?');
    const path = q < 0 ? request.url : request.url.slice(0, q);
    if (PROBES.has(path)) return;

    if (config.nodeEnv === 'production' && !isHttps(request, config)) {
      return send(reply, new ApiError(ErrorCode.HTTPS_REQUIRED, 'HTTPS is required: plain HTTP requests are rejected'));
    }

    const credential = presentedCredential(request, path);
    if (credential) {
      try {
        request.auth = await authenticator.authenticate(credential);
      } catch (err) {
        request.authError = err as Error;
      }
    }

    const template = request.routeOptions.url;
    let cls = template === undefined ? undefined : classes.get(request.method + template);
    if (cls === undefined) {
      cls = endpointClass(request.method, path);
      if (template !== undefined && !template.includes('*')) classes.set(request.method + template, cls);
    }
    const subject =
      cls === 'shareView'
        ? `share:${shareToken(path)}`
        : request.auth && cls !== 'auth'
          ? `${request.auth.credential.type}:${request.auth.credential.id}`
          : `ip:${request.ip}`;
    const result = await limiter.hit(cls, subject);
    reply.header('X-RateLimit-Limit', result.limit);
    reply.header('X-RateLimit-Remaining', result.remaining);
    reply.header('X-RateLimit-Reset', result.reset);
    if (!result.allowed) {
      reply.header('Retry-After', result.retryAfter);
      return send(reply, new ApiError(ErrorCode.RATE_LIMIT_EXCEEDED, `Rate limit exceeded. Try again in ${result.retryAfter} seconds.`));
    }

    // Monthly quota: live API keys and OAuth clients (not test keys, not dashboard sessions).
    const auth = request.auth;
    if (auth?.livemode && auth.credential.type !== 'session' && !UNMETERED.test(path)) {
      try {
        await usage.countRequest(auth.organizationId);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        if (err.retryAfter) reply.header('Retry-After', err.retryAfter);
        return send(reply, err);
      }
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
  return null;
}
