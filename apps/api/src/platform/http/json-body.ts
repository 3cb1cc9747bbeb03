import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, ErrorCode } from '../errors/api-error';

/** Deeper JSON is refused before it is parsed: validation and class-transformer recurse per level. */
export const MAX_JSON_DEPTH = 64;

/**
 * Fastify's JSON body parser (prototype-poisoning checks included), with two changes:
 * - an empty body is no body, so `Content-Type: application/json` on a body-less POST (cancel,
 *   set-default, ...) is accepted; routes that need a body still say so (422);
 * - nesting deeper than MAX_JSON_DEPTH is 400 before parsing, instead of a stack overflow later.
 */
export function installJsonBodyParser(fastify: FastifyInstance): void {
  // Fastify types every body parser as the callback form or the promise form; its default JSON
  // parser is the callback form (synchronous, answers through `done`, returns nothing).
  const parseJson = fastify.getDefaultJsonParser('error', 'ignore') as (
    request: FastifyRequest,
    body: string,
    done: (err: Error | null, body?: unknown) => void,
  ) => void;
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request: FastifyRequest, body: string | Buffer, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    // Kept for receivers that check a provider's signature over the exact bytes (CRM webhooks).
    (request as FastifyRequest & { rawBody?: string }).rawBody = text;
    if (text.trim() === '') return done(null, undefined);
    if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
      return done(
        new ApiError(ErrorCode.VALIDATION_ERROR, `Invalid JSON in request body: nested deeper than ${MAX_JSON_DEPTH} levels`, [], 400),
        undefined,
      );
    }
    parseJson(request, text, done);
  });
}

/** One pass over the text, counting brackets outside strings; stops at the first level past the limit. */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}
