import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, ErrorCode } from '../errors/api-error';
import { toEnvelope } from '../errors/error.filter';

/**
 * The web app (apps/web, README "The web app"), served by the API itself at /app: the files Vite
 * wrote to apps/web/dist, the IBM Plex Sans files of the PDF report (apps/api/assets/fonts), and
 * index.html for every other /app path (the app routes in the browser). Hashed assets are cached
 * for a year, index.html never without revalidation; every answer carries a strict
 * Content-Security-Policy: scripts, styles, fonts and requests from this server only, no inline
 * script, no framing.
 */
// from src/platform/http (tests) and dist/platform/http alike
const APP_ROOT = join(__dirname, '..', '..', '..');
export const WEB_DIST = join(APP_ROOT, '..', 'web', 'dist');
const FONTS_DIR = join(APP_ROOT, 'assets', 'fonts');

export const WEB_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  woff: 'font/woff',
  woff2: 'font/woff2',
  json: 'application/json; charset=utf-8',
  map: 'application/json; charset=utf-8',
};
/** One plain file name: no folder, no `..`. */
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const FONT_NAME = /^IBMPlexSans-(Regular|Medium|SemiBold|Bold)\.woff$/;
const YEAR = 365 * 24 * 3600;

function secure(reply: FastifyReply): FastifyReply {
  return reply
    .header('Content-Security-Policy', WEB_CSP)
    .header('X-Frame-Options', 'DENY')
    .header('Referrer-Policy', 'no-referrer')
    .header('Cross-Origin-Opener-Policy', 'same-origin');
}

function notFound(reply: FastifyReply): FastifyReply {
  const { status, body } = toEnvelope(new ApiError(ErrorCode.NOT_FOUND, 'Not found'));
  return reply.status(status).header('Content-Type', 'application/json; charset=utf-8').header('Cache-Control', 'no-store').send(body);
}

async function sendFile(reply: FastifyReply, path: string, cacheControl: string): Promise<FastifyReply> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch {
    return notFound(reply);
  }
  const ext = path.slice(path.lastIndexOf('.') + 1);
  return secure(reply)
    .header('Content-Type', TYPES[ext] ?? 'application/octet-stream')
    .header('Cache-Control', cacheControl)
    .send(bytes);
}

async function sendIndex(reply: FastifyReply, dist: string): Promise<FastifyReply> {
  let html: Buffer;
  try {
    html = await readFile(join(dist, 'index.html'));
  } catch {
    const { body } = toEnvelope(
      new ApiError(ErrorCode.SERVICE_UNAVAILABLE, 'The web app is not built: run `npm run build` (or `npm start`)'),
    );
    return reply.status(503).header('Content-Type', 'application/json; charset=utf-8').header('Cache-Control', 'no-store').send(body);
  }
  return secure(reply).header('Content-Type', 'text/html; charset=utf-8').header('Cache-Control', 'no-cache').send(html);
}

/** Registers `/` (a browser is sent to /app/), `/app`, `/app/assets/*`, `/app/fonts/*` and the app's own paths. */
export function installWebApp(fastify: FastifyInstance, dist: string = WEB_DIST): void {
  fastify.get('/', (request: FastifyRequest, reply: FastifyReply) => {
    const accept = request.headers.accept ?? '';
    if (accept.includes('text/html')) return reply.redirect('/app/', 302);
    return notFound(reply);
  });
  fastify.get('/app', (_request, reply) => reply.redirect('/app/', 301));
  // wildcards, not `:file`: a single plain file name is checked below, and no route of the app has an id
  fastify.get('/app/assets/*', (request: FastifyRequest<{ Params: { '*': string } }>, reply) => {
    const file = request.params['*'];
    if (!FILE_NAME.test(file)) return notFound(reply);
    // Vite names every asset after its content hash: a changed file is a new name
    return sendFile(reply, join(dist, 'assets', file), `public, max-age=${YEAR}, immutable`);
  });
  fastify.get('/app/fonts/*', (request: FastifyRequest<{ Params: { '*': string } }>, reply) => {
    const file = request.params['*'];
    if (!FONT_NAME.test(file)) return notFound(reply);
    return sendFile(reply, join(FONTS_DIR, file), 'public, max-age=604800');
  });
  fastify.get('/app/favicon.svg', (_request, reply) => sendFile(reply, join(dist, 'favicon.svg'), 'public, max-age=86400'));
  // the app's own routes (/app/, /app/deals/12, ...): the browser routes them
  fastify.get('/app/*', (_request, reply) => sendIndex(reply, dist));
}
