import type { FastifyInstance } from 'fastify';

/**
 * Graceful stop of the HTTP side (SIGTERM, rolling restarts), in three phases:
 * 1. announce: for SHUTDOWN_DELAY_SECONDS the process still serves, `/ready` answers 503 so a
 *    load balancer polling it stops sending new requests here, and every answer carries
 *    `Connection: close` so no pooled connection is left to be reused;
 * 2. close: the listener closes (new connections are refused: a proxy retries another replica),
 *    requests in flight finish, as does one still arriving on an open connection (also answered
 *    with `Connection: close`);
 * 3. past SHUTDOWN_GRACE_SECONDS, the remaining connections are cut.
 */
export class HttpDrain {
  private state: 'serving' | 'draining' = 'serving';

  get draining(): boolean {
    return this.state === 'draining';
  }

  install(fastify: FastifyInstance): void {
    // onSend: also the requests that were in flight when the drain began
    // (a callback hook, not an async one: no promise per response)
    fastify.addHook('onSend', (_request, reply, payload, done) => {
      if (this.draining) reply.header('Connection', 'close');
      done(null, payload);
    });
  }

  async drain(fastify: FastifyInstance, opts: { delayMs: number; graceMs: number; beforeClose?: () => void }): Promise<void> {
    this.state = 'draining';
    if (opts.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, opts.delayMs));
    opts.beforeClose?.();
    const closed = fastify.close();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'expired'>((resolve) => (timer = setTimeout(() => resolve('expired'), opts.graceMs)));
    if ((await Promise.race([closed, expired])) === 'expired') fastify.server.closeAllConnections();
    clearTimeout(timer);
    await closed;
  }
}
