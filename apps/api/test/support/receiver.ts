import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { verifyWebhook, VerifyOptions, WebhookEvent } from '@ledgerlens/webhooks';

export interface Received {
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** The event as verifyWebhook (packages/webhooks) returned it, or the verification error. */
  event: WebhookEvent | null;
  error: string | null;
}

/**
 * A webhook receiver on 127.0.0.1 that verifies every request with packages/webhooks itself.
 * `respond` decides each answer (status, or 'hang' to never answer); `next()` awaits a request.
 */
export class Receiver {
  readonly received: Received[] = [];
  respond: (n: number) => number | 'hang' = () => 200;
  private waiters: (() => void)[] = [];
  private hanging: ServerResponse[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly secret: () => string,
    private readonly now: () => number,
    private readonly options: VerifyOptions,
  ) {}

  /** `options.allowUntimedSignature`: a batch-callback receiver (X-Service-Signature only). */
  static async start(
    secret: () => string,
    now: () => number = Date.now,
    options: Pick<VerifyOptions, 'allowUntimedSignature'> = {},
  ): Promise<Receiver> {
    let self: Receiver | null = null;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => self!.handle(req.headers, Buffer.concat(chunks).toString('utf8'), res));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    self = new Receiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, secret, now, options);
    return self;
  }

  private handle(headers: IncomingHttpHeaders, rawBody: string, res: ServerResponse): void {
    let event: WebhookEvent | null = null;
    let error: string | null = null;
    try {
      event = verifyWebhook(rawBody, headers as Record<string, string>, this.secret(), { ...this.options, now: this.now });
    } catch (err) {
      error = (err as Error).message;
    }
    this.received.push({ headers, rawBody, event, error });
    const answer = this.respond(this.received.length);
    if (answer === 'hang') this.hanging.push(res);
    else res.writeHead(answer, { 'content-type': 'text/plain', 'x-receiver': 'test' }).end(answer < 300 ? 'thanks' : 'receiver error');
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves when the receiver has seen `count` requests in all. */
  async waitFor(count: number): Promise<void> {
    while (this.received.length < count) await new Promise<void>((r) => this.waiters.push(r));
  }

  reset(): void {
    this.received.length = 0;
    this.respond = () => 200;
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}
