export interface SseMessage {
  id: string | null;
  event: string | null;
  data: any;
  /** Comment lines (heartbeats), without the leading colon. */
  comments: string[];
}

/**
 * A minimal EventSource over fetch for tests: `next()` awaits the next event (or comment block),
 * so tests wait for what they expect instead of sleeping.
 */
export class SseClient {
  private buffer = '';
  private readonly queue: SseMessage[] = [];
  private waiters: (() => void)[] = [];
  private done = false;

  private constructor(
    readonly status: number,
    readonly headers: Headers,
    private readonly controller: AbortController,
  ) {}

  static async open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const controller = new AbortController();
    const res = await fetch(url, { headers: { Accept: 'text/event-stream', ...headers }, signal: controller.signal });
    const client = new SseClient(res.status, res.headers, controller);
    if (res.body && res.headers.get('content-type')?.startsWith('text/event-stream')) void client.pump(res.body);
    return client;
  }

  private async pump(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        this.buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = this.buffer.indexOf('\n\n')) >= 0) {
          const block = this.buffer.slice(0, end);
          this.buffer = this.buffer.slice(end + 2);
          this.queue.push(parse(block));
          for (const w of this.waiters.splice(0)) w();
        }
      }
    } catch {
      /* aborted */
    } finally {
      this.done = true;
      for (const w of this.waiters.splice(0)) w();
    }
  }

  /** The next message matching `filter` (default: real events, not comments). */
  async next(filter: (m: SseMessage) => boolean = (m) => m.event !== null): Promise<SseMessage> {
    for (;;) {
      const index = this.queue.findIndex(filter);
      if (index >= 0) return this.queue.splice(index, 1)[0];
      if (this.done) throw new Error('stream ended');
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  /** Events received so far and not consumed. */
  pending(): SseMessage[] {
    return this.queue.filter((m) => m.event !== null);
  }

  close(): void {
    this.controller.abort();
  }
}

function parse(block: string): SseMessage {
  const message: SseMessage = { id: null, event: null, data: null, comments: [] };
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) message.comments.push(line.slice(1).trim());
    else if (line.startsWith('id: ')) message.id = line.slice(4);
    else if (line.startsWith('event: ')) message.event = line.slice(7);
    else if (line.startsWith('data: ')) data.push(line.slice(6));
  }
  if (data.length) message.data = JSON.parse(data.join('\n'));
  return message;
}
