import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/config';
import { Database } from '../database/database.service';
import { DomainEventRecord } from './outbox.entity';
import { DomainEvent, toDomainEvent } from './events';
import { scrubSqlError } from '../logging/redact';

export type EventHandler = (event: DomainEvent) => Promise<void> | void;

const LEASE_SECONDS = 60;
const BATCH = 50;
/** Backoff after a failed delivery attempt, by attempt number (seconds). */
const BACKOFF = [1, 5, 30, 120, 600, 1800];

/**
 * Delivers outbox events to in-process subscribers, at least once. Rows are claimed with a lease
 * (`next_attempt_at` moved forward, `FOR UPDATE SKIP LOCKED`), so several processes share the
 * work and a crashed process's claims are picked up again when the lease ends. An event is
 * marked dispatched only when every subscriber succeeded; subscribers dedupe by `event.id`.
 */
@Injectable()
export class EventDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('EventDispatcher');
  private readonly handlers = new Map<string, EventHandler>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly db: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Registers a named subscriber; the name makes logs readable and registration idempotent. */
  subscribe(name: string, handler: EventHandler): void {
    this.handlers.set(name, handler);
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.notify(), this.config.outboxPollSeconds * 1000);
    this.timer.unref();
    this.notify();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** Called after a commit that recorded events: dispatch now rather than at the next poll. */
  notify(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => {
      this.running = null;
      if (this.again && !this.stopped) {
        this.again = false;
        this.notify();
      }
    });
  }

  /** Dispatches until nothing is due: tests await it instead of sleeping. */
  async drain(): Promise<void> {
    while (this.running) await this.running;
    await this.loop();
  }

  private async loop(): Promise<void> {
    try {
      while (!this.stopped && (await this.dispatchBatch()) > 0) {
        /* keep going while there is work */
      }
    } catch (err) {
      this.logger.error(`Outbox dispatch failed: ${scrubSqlError(err as Error).stack}`);
    }
  }

  private async dispatchBatch(): Promise<number> {
    const em = this.db.system();
    const rows: Record<string, unknown>[] = await em.getConnection().execute(
      `update domain_events set next_attempt_at = now() + interval '${LEASE_SECONDS} seconds', attempts = attempts + 1
       where id in (select id from domain_events where dispatched_at is null and next_attempt_at <= now()
                    order by id limit ${BATCH} for update skip locked)
       returning *`,
    );
    const records = rows.map((row) => em.map(DomainEventRecord, row)).sort((a, b) => a.id - b.id);
    for (const record of records) {
      const event = toDomainEvent(record);
      const failures: string[] = [];
      for (const [name, handler] of this.handlers) {
        try {
          await handler(event);
        } catch (err) {
          failures.push(`${name}: ${(err as Error).message}`);
        }
      }
      if (failures.length === 0) {
        await em.nativeUpdate(DomainEventRecord, { id: record.id }, { dispatchedAt: new Date(), lastError: null });
      } else {
        const delay = BACKOFF[Math.min(record.attempts - 1, BACKOFF.length - 1)];
        this.logger.warn(`Event ${event.id} (${event.type}) failed for ${failures.join('; ')}; retry in ${delay}s`);
        await em.nativeUpdate(
          DomainEventRecord,
          { id: record.id },
          { nextAttemptAt: new Date(Date.now() + delay * 1000), lastError: failures.join('; ').slice(0, 2000) },
        );
      }
    }
    return records.length;
  }
}
