/**
 * A local fake of the Groq chat completions API (POST /openai/v1/chat/completions) for tests.
 * Listens on 127.0.0.1 with a random port. The reply content comes from `respond`.
 */
import * as http from 'http';
import { AddressInfo } from 'net';

export interface FakeGroqRequest {
  model: string;
  messages: Array<{ role: string; content: string }>;
  body: Record<string, unknown>;
  headers: http.IncomingHttpHeaders;
}

export type FakeGroqReply = string | { status: number; body: unknown };

export interface FakeGroqOptions {
  /** returns the assistant message content (a string), or a raw HTTP status + body */
  respond?: (req: FakeGroqRequest, index: number) => FakeGroqReply | Promise<FakeGroqReply>;
  /** delay before answering (to test timeouts) */
  delayMs?: number;
}

export interface FakeGroq {
  /** base URL to pass to groq-sdk (`baseURL`) */
  url: string;
  port: number;
  requests: FakeGroqRequest[];
  close(): Promise<void>;
}

export async function startFakeGroq(opts: FakeGroqOptions = {}): Promise<FakeGroq> {
  const requests: FakeGroqRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body: unknown) => {
        if (res.writableEnded || res.destroyed) return;
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method !== 'POST' || req.url !== '/openai/v1/chat/completions')
        return send(404, { error: { message: `no route ${req.method} ${req.url}` } });
      let body: Record<string, any>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return send(400, { error: { message: 'invalid JSON body' } });
      }
      if (!String(req.headers.authorization ?? '').startsWith('Bearer ')) return send(401, { error: { message: 'missing API key' } });
      const r: FakeGroqRequest = { model: body.model, messages: body.messages ?? [], body, headers: req.headers };
      const index = requests.push(r) - 1;
      const answer = async () => {
        try {
          const reply = opts.respond ? await opts.respond(r, index) : '{"transactions": []}';
          if (typeof reply !== 'string') return send(reply.status, reply.body);
          send(200, {
            id: `chatcmpl-fake-${index}`,
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: body.model,
            choices: [{ index: 0, message: { role: 'assistant', content: reply }, finish_reason: 'stop', logprobs: null }],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          });
        } catch (e) {
          send(500, { error: { message: (e as Error).message } });
        }
      };
      if (opts.delayMs) {
        const t = setTimeout(() => {
          timers.delete(t);
          answer().catch((err: Error) => res.destroy(err));
        }, opts.delayMs);
        timers.add(t);
      } else answer().catch((err: Error) => res.destroy(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

if (require.main === module) {
  // standalone: node tools/dist/fakes/groq.js [reply.json]  -> replies with the file's content to every request
  const file = process.argv[2];
  const content = file ? require('fs').readFileSync(file, 'utf8') : '{"transactions": []}';
  startFakeGroq({ respond: () => content }).then(
    (f) => console.log(`fake Groq listening on ${f.url} (set GROQ_BASE_URL=${f.url})`),
    (err: Error) => {
      console.error(`fake Groq could not start: ${err.message}`);
      process.exitCode = 1;
    },
  );
}
