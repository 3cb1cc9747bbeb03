import { createHash } from 'node:crypto';
import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Multipart } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';

/**
 * The fingerprint an `Idempotency-Key` keeps of the request that claimed it: SHA-256 over the
 * method, the matched route and its decoded parameters, the query and the body, in a canonical
 * form (object keys sorted), so an identical retry matches however its JSON or query is ordered
 * or its path percent-encoded. A multipart body counts by its parts in order: each field's name
 * and value, each file's field name, file name and content digest (never the boundary, which a
 * client may draw anew on each retry).
 */

type PartDigest = { field: string; value: string } | { file: string; filename: string; content: string };

/** JSON with object keys sorted at every level (undefined members left out, as JSON.stringify does). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

function digest(request: FastifyRequest, body: unknown): string {
  const shape = {
    method: request.method,
    route: request.routeOptions.url ?? request.url.split('?')[0],
    params: request.params ?? {},
    query: request.query ?? {},
    body: body ?? null,
  };
  return createHash('sha256').update(canonicalJson(shape)).digest('hex');
}

/** The fingerprint of a request whose body is already parsed (JSON, form-encoded, none). */
export function parsedBodyFingerprint(request: FastifyRequest): string {
  return digest(request, request.body);
}

/**
 * A pass-through stream that digests a file part as it is read. Past `maxFileBytes` the content
 * counts as `too-large` (the upload refuses it, and a retry of it reads the same), so the digest
 * does not depend on where reading stopped.
 */
function fileDigester(entry: { content: string }, maxFileBytes: number): Transform {
  const hash = createHash('sha256');
  let bytes = 0;
  const settle = () => {
    if (bytes > maxFileBytes) entry.content = 'too-large';
  };
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes <= maxFileBytes) hash.update(chunk);
      done(null, chunk);
    },
    flush(done) {
      entry.content = bytes > maxFileBytes ? 'too-large' : hash.digest('hex');
      done();
    },
  });
  stream.once('close', settle);
  return stream;
}

/**
 * Digests a multipart body while the route handler reads it: `request.parts()` yields the same
 * parts, each file read through a digester (errors and early ends travel both ways, as when the
 * handler reads the file itself). Returns the fingerprint once the handler is done.
 */
export function watchMultipart(request: FastifyRequest, maxFileBytes: number): () => string {
  const entries: PartDigest[] = [];
  const parts = request.parts.bind(request);
  async function* digesting(source: AsyncIterableIterator<Multipart>): AsyncGenerator<Multipart> {
    for await (const part of source) {
      if (part.type === 'field') {
        entries.push({ field: part.fieldname, value: String(part.value ?? '') });
        yield part;
        continue;
      }
      const entry = { file: part.fieldname, filename: part.filename ?? '', content: 'incomplete' };
      entries.push(entry);
      const digester = fileDigester(entry, maxFileBytes);
      pipeline(part.file, digester).catch(() => undefined);
      yield { ...part, file: digester as unknown as typeof part.file };
    }
  }
  Object.defineProperty(request, 'parts', {
    configurable: true,
    writable: true,
    value: (options?: Parameters<FastifyRequest['parts']>[0]) => digesting(parts(options)),
  });
  return () => digest(request, { multipart: entries });
}

/** Reads a whole multipart body only to digest it (a replay: the handler does not run). */
export async function readMultipartFingerprint(request: FastifyRequest, maxFileBytes: number): Promise<string> {
  const entries: PartDigest[] = [];
  for await (const part of request.parts()) {
    if (part.type === 'field') {
      entries.push({ field: part.fieldname, value: String(part.value ?? '') });
      continue;
    }
    const entry = { file: part.fieldname, filename: part.filename ?? '', content: 'incomplete' };
    entries.push(entry);
    await pipeline(part.file, fileDigester(entry, maxFileBytes), new Writable({ write: (_chunk, _encoding, done) => done() }));
  }
  return digest(request, { multipart: entries });
}
