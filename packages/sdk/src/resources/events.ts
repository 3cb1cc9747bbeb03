import type { Ledgerlens } from '../client.js';
import { LedgerlensError } from '../errors.js';
import { delay } from '../delay.js';
import { parseEventStream } from '../sse.js';
import type { LedgerlensEvent } from '../events.js';
import type { CommonRequestOptions } from '../types.js';

/**
 * A live event: `event` is its stream name (deal.updated, document.processed, ...), `data` its
 * flat JSON payload as the stream sends it, and `envelope` the same event in the envelope that
 * webhooks deliver (`{id, type, event, created_at, timestamp, deal_id, data}`), typed by its
 * `type`: one handler serves both.
 */
export interface LiveEvent<T = LiveEventData> {
  /** Stream position: pass as `lastEventId` to resume after it. */
  id: string | null;
  event: string;
  data: T;
  /** The webhook envelope of this event; null for a frame that is not an event of the API (no `type`). */
  envelope: LedgerlensEvent | null;
}

/** The payload of every live event: `deal_id`/`document_id` at the top plus the event's own fields. */
export interface LiveEventData {
  event_id: string;
  type: string;
  created_at: string;
  deal_id: number | null;
  document_id?: number | null;
  status?: string;
  [field: string]: unknown;
}

export interface StreamOptions extends Omit<CommonRequestOptions, 'parseAs'> {
  /** Only this deal's events (`/v1/events/deals/{deal_id}`). */
  dealId?: number;
  /** Resume after this event id (events missed while disconnected are replayed first). */
  lastEventId?: string;
  /** Reconnect (with Last-Event-ID) when the connection drops. Default true. */
  reconnect?: boolean;
}

/** `client.events`: the organization's live events as an async iterator (server-sent events). */
export class EventsResource {
  constructor(private readonly client: Ledgerlens) {}

  /**
   * Yields events as they happen until `signal` aborts or the loop breaks. Drops are resumed
   * with Last-Event-ID after the server's `retry` delay; HTTP errors (401, 404, ...) are thrown.
   *
   * ```ts
   * for await (const e of ll.events.stream({ dealId, signal })) if (e.event === 'deal.ready') break;
   * ```
   */
  async *stream(options: StreamOptions = {}): AsyncGenerator<LiveEvent, void, undefined> {
    const { dealId, lastEventId, reconnect = true, ...rest } = options;
    let last = lastEventId ?? null;
    let retryMs = 3000;
    for (;;) {
      let body: ReadableStream<Uint8Array>;
      try {
        const res = await this.client.request<ReadableStream<Uint8Array>>(
          'GET',
          dealId === undefined ? '/v1/events/stream' : '/v1/events/deals/{deal_id}',
          {
            ...rest,
            params: dealId === undefined ? undefined : { path: { deal_id: dealId } },
            headers: { ...rest.headers, Accept: 'text/event-stream', ...(last !== null ? { 'Last-Event-ID': last } : {}) },
            parseAs: 'stream',
          },
        );
        body = res.data;
      } catch (err) {
        if (err instanceof LedgerlensError || !reconnect || rest.signal?.aborted) throw err;
        await delay(retryMs, rest.signal);
        continue;
      }
      try {
        for await (const m of parseEventStream(body)) {
          if (m.retry !== null) retryMs = m.retry;
          if (m.id !== null) last = m.id;
          let data: unknown = m.data;
          try {
            data = JSON.parse(m.data);
          } catch {
            /* not JSON: keep the text */
          }
          yield { id: m.id, event: m.event, data: data as LiveEventData, envelope: toEnvelope(data) };
        }
      } catch (err) {
        if (rest.signal?.aborted) throw rest.signal.reason ?? err;
        if (!reconnect) throw err;
      }
      if (!reconnect || rest.signal?.aborted) return;
      await delay(retryMs, rest.signal);
    }
  }
}

/** The stream's flat payload (`{...data, deal_id, event_id, type, created_at}`) in the webhook envelope. */
export function toEnvelope(payload: unknown): LedgerlensEvent | null {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return null;
  const { event_id, type, created_at, ...data } = payload as Record<string, unknown>;
  if (typeof type !== 'string' || typeof event_id !== 'string' || typeof created_at !== 'string') return null;
  const dealId = typeof data.deal_id === 'number' ? data.deal_id : null;
  return { id: event_id, type, event: type, created_at, timestamp: created_at, deal_id: dealId, data } as LedgerlensEvent;
}
