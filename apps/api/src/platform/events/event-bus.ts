import { EventEmitter } from 'node:events';
import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { DomainEvent } from './events';

export type BusListener = (event: DomainEvent) => void;

/**
 * Live fan-out of dispatched domain events to every api process (the SSE streams). The outbox
 * dispatcher delivers each event in one process; that process publishes it here, and every
 * process (itself included) hands it to its local listeners. Redis pub/sub when REDIS_URL is
 * set, in-process otherwise. Fire and forget: a client that missed events catches up from the
 * outbox with Last-Event-ID.
 */
export abstract class EventBus {
  abstract publish(event: DomainEvent): Promise<void>;
  /** Returns the unsubscribe function. */
  abstract subscribe(listener: BusListener): () => void;
  abstract close(): Promise<void>;
}

export class InProcessEventBus extends EventBus {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  async publish(event: DomainEvent): Promise<void> {
    this.emitter.emit('event', event);
  }

  subscribe(listener: BusListener): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

export class RedisEventBus extends EventBus {
  private readonly logger = new Logger('RedisEventBus');
  private readonly local = new InProcessEventBus();
  private subscriber: Redis | null = null;
  private ready: Promise<unknown> | null = null;
  private readonly channel: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    super();
    this.channel = `${prefix}:events`;
  }

  async publish(event: DomainEvent): Promise<void> {
    await this.redis.publish(this.channel, JSON.stringify(event));
  }

  subscribe(listener: BusListener): () => void {
    // Not awaited (subscribe is synchronous), but a failed SUBSCRIBE is logged, not left as an
    // unhandled rejection that would end the process.
    this.connect().catch((err: Error) => this.logger.error(`Could not subscribe to ${this.channel}: ${err.message}`));
    return this.local.subscribe(listener);
  }

  /** Resolves once this process receives the channel (the subscriber connection is opened on first use). */
  connect(): Promise<unknown> {
    if (!this.ready) {
      const subscriber = this.redis.duplicate();
      this.subscriber = subscriber;
      subscriber.on('message', (_channel: string, message: string) => {
        try {
          const parsed = JSON.parse(message) as DomainEvent & { createdAt: string };
          // a listener that throws rejects this promise: logged like a malformed event, not left unhandled
          this.local
            .publish({ ...parsed, createdAt: new Date(parsed.createdAt) })
            .catch((err: Error) => this.logger.warn(`A listener failed on an event of ${this.channel}: ${err.message}`));
        } catch (err) {
          this.logger.warn(`Ignored a malformed event on ${this.channel}: ${(err as Error).message}`);
        }
      });
      subscriber.on('error', (err: Error) => this.logger.warn(err.message));
      this.ready = subscriber.subscribe(this.channel);
    }
    return this.ready;
  }

  async close(): Promise<void> {
    await this.local.close();
    this.subscriber?.disconnect();
  }
}
