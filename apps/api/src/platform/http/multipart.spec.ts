import Fastify, { type FastifyInstance } from 'fastify';
import multipart from '@fastify/multipart';
import { registerStreamingMultipart } from './multipart';

const BOUNDARY = 'llboundary';
const body = [
  `--${BOUNDARY}`,
  'Content-Disposition: form-data; name="metadata"',
  '',
  '{"a":1}',
  `--${BOUNDARY}`,
  'Content-Disposition: form-data; name="file"; filename="s.pdf"',
  'Content-Type: application/pdf',
  '',
  '%PDF-1.4 statement bytes',
  `--${BOUNDARY}--`,
  '',
].join('\r\n');

/** A server with a streaming upload route and a plain route that reports the response's 'close' listeners. */
async function server(setup: (app: FastifyInstance) => Promise<void>): Promise<FastifyInstance> {
  const app = Fastify();
  await setup(app);
  app.post('/upload', async (request) => {
    const parts: string[] = [];
    for await (const part of request.parts()) {
      parts.push(
        part.type === 'file' ? `${part.filename}:${(await part.toBuffer()).toString()}` : `${part.fieldname}=${String(part.value)}`,
      );
    }
    return { parts };
  });
  app.get('/plain', async (_request, reply) => ({ closeListeners: reply.raw.listenerCount('close') }));
  await app.ready();
  return app;
}

describe('registerStreamingMultipart', () => {
  const options = { limits: { fileSize: 1024 } };

  it('streams multipart parts like the plugin does', async () => {
    const app = await server((a) => registerStreamingMultipart((plugin, opts) => a.register(plugin, opts), a, options));
    const res = await app.inject({
      method: 'POST',
      url: '/upload',
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      payload: body,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ parts: ['metadata={"a":1}', 's.pdf:%PDF-1.4 statement bytes'] });
    await app.close();
  });

  it('adds no per-request hook: a plain request carries no more than on a server without multipart', async () => {
    const bare = await server(async () => undefined);
    const plugin = await server(async (a) => {
      await a.register(multipart, options);
    });
    const ours = await server((a) => registerStreamingMultipart((p, opts) => a.register(p, opts), a, options));
    const listeners = async (app: FastifyInstance) =>
      (await app.inject({ method: 'GET', url: '/plain' })).json<{ closeListeners: number }>().closeListeners;
    const [b, p, o] = [await listeners(bare), await listeners(plugin), await listeners(ours)];
    expect(p).toBe(b + 1); // the plugin as it is: one more listener per request
    expect(o).toBe(b);
    await Promise.all([bare.close(), plugin.close(), ours.close()]);
  });

  it('puts hook registration back as it was, and other hooks still register', async () => {
    const app = Fastify();
    const before = app.addHook;
    await registerStreamingMultipart((p, opts) => app.register(p, opts), app, options);
    expect(app.addHook).toBe(before);
    let seen = 0;
    app.addHook('onRequest', (_request, _reply, done) => {
      seen++;
      done();
    });
    app.get('/x', async () => ({}));
    await app.inject({ method: 'GET', url: '/x' });
    expect(seen).toBe(1);
    await app.close();
  });
});
