/** One server-sent event (text/event-stream, per the WHATWG HTML standard's parsing rules). */
export interface SseMessage {
  /** `id:` of the event (resume from it with Last-Event-ID), or null when the event had none. */
  id: string | null;
  /** `event:` name; `message` when the event had none. */
  event: string;
  /** `data:` lines joined with `\n`. */
  data: string;
  /** `retry:` reconnection time in milliseconds, when the server sent one with this event. */
  retry: number | null;
}

/**
 * Parses a text/event-stream body into events. Comments (`: ping`) are skipped; an event without
 * data is not dispatched (the `retry` it carries is reported on the next event).
 */
export async function* parseEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage, void, undefined> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let id: string | null = null;
  let event = '';
  let data: string[] = [];
  let retry: number | null = null;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += value;
      let nl: number;
      while ((nl = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + (buffer[nl] === '\r' && buffer[nl + 1] === '\n' ? 2 : 1));
        if (line === '') {
          if (data.length) yield { id, event: event || 'message', data: data.join('\n'), retry };
          event = '';
          data = [];
          retry = null;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'data') data.push(value);
        else if (field === 'event') event = value;
        else if (field === 'id' && !value.includes('\0')) id = value;
        else if (field === 'retry' && /^\d+$/.test(value)) retry = Number(value);
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
