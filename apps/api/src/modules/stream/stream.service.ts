import type { ServerResponse } from 'node:http';
import { BeforeApplicationShutdown, Inject, Injectable, OnModuleInit } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthContext } from '../../platform/auth/auth-context';
import { APP_CONFIG, AppConfig } from '../../platform/config/config';
import { Database } from '../../platform/database/database.service';
import { ApiError, ErrorCode, validationEntry } from '../../platform/errors/api-error';
import { EventBus } from '../../platform/events/event-bus';
import { EventDispatcher } from '../../platform/events/event-dispatcher';
import { DomainEvent, toDomainEvent } from '../../platform/events/events';
import { DomainEventRecord } from '../../platform/events/outbox.entity';
import { DealsService } from '../pipeline/services/deals.service';
import { PUBLIC_EVENT_TYPES, isPublicEventType, toPublicEvent } from '../webhooks/public-events';

/** Replay reads the outbox in pages of this size... */
const REPLAY_PAGE = 500;
/** ...up to this many events per connection; a client further behind gets them, then the stream ends and it resumes from the last id. */
const REPLAY_MAX = 5000;
/** Sequences remembered per connection to drop the overlap between replay and live events. */
const SENT_MEMORY = 2000;

/**
 * One frame of the stream. `data:` is the event in the envelope of a webhook delivery
 * (`LedgerlensEvent`: `id`, `type`, `event`, `created_at`, `timestamp`, `deal_id`, `data`), so one
 * handler serves both; the data's own fields and `event_id` stay flat at the top as well, for the
 * clients of the earlier flat form (the envelope's names win where they meet: `type`, `created_at`).
 * The spec names the document result `document.processed` on the stream (`event:`); other events
 * keep their webhook name, and `type` is always the webhook's.
 */
export function sseFrame(event: DomainEvent): string | null {
  const pub = toPublicEvent(event);
  if (!pub) return null;
  const name = pub.type === 'document.completed' || pub.type === 'document.failed' ? 'document.processed' : pub.type;
  const data = { ...pub.data, event_id: pub.id, ...pub };
  return `id: ${event.sequence}\nevent: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

interface Connection {
  raw: ServerResponse;
  close(): void;
}

/**
 * Server-sent events, scoped to the caller's organization and mode (and one deal on the deal
 * stream). Live events come from the EventBus (Redis pub/sub across api processes); a reconnect
 * with Last-Event-ID replays what was missed from the outbox table first.
 */
@Injectable()
export class StreamService implements OnModuleInit, BeforeApplicationShutdown {
  private readonly connections = new Set<Connection>();

  constructor(
    private readonly db: Database,
    private readonly deals: DealsService,
    private readonly bus: EventBus,
    private readonly dispatcher: EventDispatcher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.dispatcher.subscribe('sse-fanout', (event) => (isPublicEventType(event.type) ? this.bus.publish(event) : undefined));
  }

  /** Open connections end before the HTTP server closes (it would otherwise wait for them). */
  beforeApplicationShutdown(): void {
    this.closeAll();
  }

  /** Ends every open stream (clients reconnect with Last-Event-ID): the first step of a graceful stop. */
  closeAll(): void {
    for (const c of [...this.connections]) c.close();
  }

  get openConnections(): number {
    return this.connections.size;
  }

  async open(
    auth: AuthContext,
    request: FastifyRequest,
    reply: FastifyReply,
    dealId: number | null,
    queryLastId: string | undefined,
  ): Promise<void> {
    const lastEventId = parseLastEventId(request.headers['last-event-id'], queryLastId);
    if (dealId !== null && !(await this.deals.exists(auth, dealId))) {
      throw ApiError.notFound('Deal', ErrorCode.DEAL_NOT_FOUND);
    }
    const matches = (e: DomainEvent) =>
      e.organizationId === auth.organizationId &&
      e.livemode === auth.livemode &&
      isPublicEventType(e.type) &&
      (dealId === null || e.dealId === dealId);

    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    raw.write(`retry: 3000\n: connected\n\n`);

    const sent = new Set<number>();
    const send = (e: DomainEvent) => {
      if (sent.has(e.sequence)) return;
      sent.add(e.sequence);
      if (sent.size > SENT_MEMORY) sent.delete(sent.values().next().value as number);
      const frame = sseFrame(e);
      if (frame) raw.write(frame);
    };
    let buffered: DomainEvent[] | null = [];
    const unsubscribe = this.bus.subscribe((e) => {
      if (!matches(e)) return;
      if (buffered) buffered.push(e);
      else send(e);
    });
    const heartbeat = setInterval(() => raw.write(': ping\n\n'), this.config.sse.heartbeatSeconds * 1000);
    const connection: Connection = {
      raw,
      close: () => {
        if (!this.connections.delete(connection)) return;
        clearInterval(heartbeat);
        unsubscribe();
        raw.end();
      },
    };
    this.connections.add(connection);
    request.raw.on('close', () => connection.close());
    raw.on('close', () => connection.close());

    if (lastEventId !== null) {
      try {
        let after = lastEventId;
        for (let replayed = 0; ;) {
          const page = await this.replay(auth, dealId, after);
          for (const e of page) send(e);
          replayed += page.length;
          if (page.length < REPLAY_PAGE) break;
          after = page[page.length - 1].sequence;
          if (replayed >= REPLAY_MAX) {
            // Live events would jump over the rest: end here, EventSource reconnects from `after`.
            connection.close();
            return;
          }
        }
      } catch {
        connection.close();
        return;
      }
    }
    const pending = buffered.sort((a, b) => a.sequence - b.sequence);
    buffered = null;
    for (const e of pending) send(e);
  }

  private async replay(auth: AuthContext, dealId: number | null, after: number): Promise<DomainEvent[]> {
    const rows = await this.db.system().find(
      DomainEventRecord,
      {
        organizationId: auth.organizationId,
        livemode: auth.livemode,
        id: { $gt: after },
        type: { $in: [...PUBLIC_EVENT_TYPES] },
        ...(dealId !== null ? { dealId } : {}),
      },
      { orderBy: { id: 'asc' }, limit: REPLAY_PAGE },
    );
    return rows.map(toDomainEvent);
  }
}

function parseLastEventId(header: string | string[] | undefined, query: string | undefined): number | null {
  const value = (Array.isArray(header) ? header[0] : header) ?? query;
  if (value === undefined || value === '') return null;
  if (!/^\d{1,15}$/.test(value.trim())) {
    const loc =
      header !== undefined
        ? validationEntry(
            'header',
            ['Last-Event-ID'],
            'Last-Event-ID must be the id of an event received on this stream (a non-negative integer)',
            'type_error.integer',
          )
        : validationEntry('query', ['last_event_id'], 'last_event_id must be a non-negative integer', 'type_error.integer');
    throw ApiError.validation([loc]);
  }
  return Number(value.trim());
}
