import type { FastifyInstance } from 'fastify';
import multipart, { type FastifyMultipartOptions } from '@fastify/multipart';

/**
 * @fastify/multipart for streamed uploads only (`request.parts()`: FileStore.put takes each file as
 * it arrives). The plugin also adds two hooks to every request of the server, an async onRequest
 * that listens for the response's 'close' and an async onResponse, both to delete the temporary
 * files of `saveRequestFiles()`. Ledgerlens never saves request files, so on every other request
 * (nearly all of them) they were two promises, a closure and a listener for nothing
 * (docs/performance.md, session 6): they are not installed. `saveRequestFiles` must not be used.
 */
export async function registerStreamingMultipart(
  register: (plugin: typeof multipart, options: FastifyMultipartOptions) => PromiseLike<unknown>,
  fastify: FastifyInstance,
  options: FastifyMultipartOptions,
): Promise<void> {
  const addHook = fastify.addHook;
  const skipped: string[] = [];
  // The plugin is loaded while `register` is awaited; no other code adds hooks meanwhile.
  fastify.addHook = function (this: FastifyInstance, name: string, ...rest: unknown[]) {
    if (name === 'onRequest' || name === 'onResponse') {
      skipped.push(name);
      return this;
    }
    return (addHook as (...args: unknown[]) => FastifyInstance).call(this, name, ...rest);
  } as typeof fastify.addHook;
  try {
    await register(multipart, options);
  } finally {
    fastify.addHook = addHook;
  }
  // A plugin upgrade that stops adding them, or adds others, is noticed here rather than guessed at.
  if (skipped.sort().join(',') !== 'onRequest,onResponse')
    throw new Error(`@fastify/multipart added unexpected request hooks: ${skipped.join(', ') || 'none'}`);
}
