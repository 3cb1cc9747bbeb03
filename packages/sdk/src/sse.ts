import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** One server-sent event (text/event-stream, parsed per the WHATWG HTML standard by eventsource-parser). */
export interface SseMessage {
  /** `id:` of the event (resume from it with Last-Event-ID), or null when the event had none. */
  id: string | null;
  /** `event:` name; `message` when the event had none. */
  event: string;
  /** `data:` lines joined with `\n`. */
  data: string;
  /** `retry:` reconnection time in milliseconds, when the server sent one with (or before) this event. */
  retry: number | null;
}

/**
 * Parses a text/event-stream body into events, whatever the network's chunking (a CRLF or a
 * UTF-8 character split across two chunks included). Comments (`: ping`) are skipped; an event
 * without data is not dispatched (the `retry` it carries is reported on the next event).
 */
export async function* parseEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage, void, undefined> {
  // TextDecoder in streaming mode rather than TextDecoderStream: the same in Node.js and browsers,
  // and it type-checks under both the DOM and the Node.js typings
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const ready: SseMessage[] = [];
  let retry: number | null = null;
  const parser = createParser({
    onEvent: (m: EventSourceMessage) => {
      ready.push({ id: m.id ?? null, event: m.event || 'message', data: m.data, retry });
      retry = null;
    },
    onRetry: (ms) => {
      retry = ms;
    },
  });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        const rest = decoder.decode();
        if (rest) parser.feed(rest);
        while (ready.length) yield ready.shift()!;
        return;
      }
      parser.feed(decoder.decode(value, { stream: true }));
      while (ready.length) yield ready.shift()!;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
