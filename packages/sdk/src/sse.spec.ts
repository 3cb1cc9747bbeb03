import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEventStream, type SseMessage } from './sse.js';

/** A deal's event stream as the server sent it (the recorded example of GET /v1/events/deals/{deal_id}). */
const recorded = readFileSync(join(__dirname, '__fixtures__/deal-events.sse'), 'utf8');
/** The same stream with CRLF line ends, a keep-alive comment, a multi-line event and non-ASCII text. */
const crlf =
  recorded.replace(/\n/g, '\r\n') +
  ': ping\r\n\r\nid: 9\r\nevent: deal.ready\r\ndata: {"deal_id":1,\r\ndata: "business_name":"Café Señor Ünal"}\r\n\r\n';

const expected: Partial<SseMessage>[] = [
  { id: '1', event: 'deal.created', retry: 3000 },
  { id: '4', event: 'deal.updated', retry: null },
  { id: '5', event: 'document.uploaded', retry: null },
  { id: '9', event: 'deal.ready', retry: null, data: '{"deal_id":1,\n"business_name":"Café Señor Ünal"}' },
];

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(c);
      controller.close();
    },
  });
}

async function parse(chunks: Uint8Array[]): Promise<SseMessage[]> {
  const out: SseMessage[] = [];
  for await (const m of parseEventStream(streamOf(chunks))) out.push(m);
  return out;
}

describe('parseEventStream', () => {
  const bytes = new TextEncoder().encode(crlf);

  it('reads the recorded stream in one chunk', async () => {
    const events = await parse([bytes]);
    expect(events).toMatchObject(expected);
    expect(events.slice(0, 3).every((e) => JSON.parse(e.data).deal_id === 1)).toBe(true);
  });

  it('gives the same events at every two-chunk boundary (CRLF and UTF-8 characters split included)', async () => {
    const whole = await parse([bytes]);
    const splitInCrlf = [];
    for (let i = 1; i < bytes.length; i++) {
      if (bytes[i - 1] === 13 && bytes[i] === 10) splitInCrlf.push(i);
      const events = await parse([bytes.subarray(0, i), bytes.subarray(i)]);
      if (JSON.stringify(events) !== JSON.stringify(whole)) throw new Error(`split at byte ${i} gives ${JSON.stringify(events)}`);
    }
    expect(splitInCrlf.length).toBeGreaterThan(10);
  });

  it('gives the same events one byte at a time', async () => {
    const chunks = Array.from(bytes, (b) => Uint8Array.of(b));
    expect(await parse(chunks)).toEqual(await parse([bytes]));
  });

  it('reads the stream as recorded (LF line ends)', async () => {
    const lf = await parse([new TextEncoder().encode(recorded)]);
    expect(lf).toMatchObject(expected.slice(0, 3));
  });
});
