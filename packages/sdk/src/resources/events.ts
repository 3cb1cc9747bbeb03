import type { LedgerlensCore } from '../core.js';
import { LedgerlensError } from '../errors.js';
import { delay } from '../delay.js';
import { parseEventStream } from '../sse.js';
import type { LedgerlensEvent } from '../events.js';
import type { CommonRequestOptions } from '../types.js';

/**
 * A live event: `event` is its stream name (deal.updated, document.processed, ...), `data` its
 * JSON payload as the stream sends it, and `envelope` the same event as a webhook delivers it
 * (`{id, type, event, created_at, timestamp, deal_id, data}`, the one `LedgerlensEvent` type),
 * typed by its `type`: one handler serves both.
 */
export interface LiveEvent<T = LiveEventData> {
  /** Stream position: pass as `lastEventId` to resume after it. */
  id: string | null;
  event: string;
  data: T;
  /** The webhook envelope of this event; null for a frame that is not an event of the API (no `type`). */
  envelope: LedgerlensEvent | null;
}

/**
 * The payload of every live event: the webhook envelope's fields (`id`, `type`, `event`,
 * `created_at`, `timestamp`, `deal_id`, `data`) and, for clients of the earlier flat form, the
 * event's own fields and `event_id` at the top. Prefer `envelope`.
 */
export interface LiveEventData {
  /** The event id (`evt_...`), as in the webhook envelope. */
  id: string;
  type: string;
  /** The same as `type`. */
  event: string;
  created_at: string;
  /** The same as `created_at`. */
  timestamp: string;
  deal_id: number | null;
  /** The event's data, as in the webhook envelope. */
  data: Record<string, unknown>;
  /** The same as `id` (the earlier flat form). */
  event_id: string;
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
  constructor(private readonly client: LedgerlensCore) {}

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

const ENVELOPE_KEYS = ['id', 'type', 'event', 'created_at', 'timestamp', 'deal_id', 'data'] as const;

/**
 * The webhook envelope of a stream frame's payload: the payload's own envelope fields (what the
 * server sends), or, from a server of the earlier flat form (`{...data, deal_id, event_id, type,
 * created_at}`), the envelope rebuilt from it.
 */
export function toEnvelope(payload: unknown): LedgerlensEvent | null {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return null;
  const p = payload as Record<string, unknown>;
  if (typeof p.id === 'string' && typeof p.type === 'string' && p.data !== null && typeof p.data === 'object') {
    return Object.fromEntries(ENVELOPE_KEYS.map((k) => [k, p[k] ?? null])) as unknown as LedgerlensEvent;
  }
  const { event_id, type, created_at, ...data } = p;
  if (typeof type !== 'string' || typeof event_id !== 'string' || typeof created_at !== 'string') return null;
  const dealId = typeof data.deal_id === 'number' ? data.deal_id : null;
  return { id: event_id, type, event: type, created_at, timestamp: created_at, deal_id: dealId, data } as LedgerlensEvent;
}
