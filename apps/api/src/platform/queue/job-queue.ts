import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { Queue, Worker } from 'bullmq';

/** BullMQ is loaded when a Redis-backed queue is made (REDIS_URL), not by the embedded default. */
const bullmq = (): typeof import('bullmq') => require('bullmq');
import type { Redis } from 'ioredis';

export const QUEUES = { documents: 'documents', webhooks: 'webhooks', crm: 'crm' } as const;
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

export interface DocumentJob {
  documentId: number;
  attempt: number;
}

export type JobHandler<T> = (data: T) => Promise<void>;
/** Called once when a job has failed its last retry (not while retries remain). */
export type ExhaustedHandler<T> = (data: T, err: Error) => Promise<void>;

/**
 * Thrown by a handler that stops a job unfinished because its process is shutting down: the job
 * goes back to the queue (not counted as a failed attempt) for another worker or the next start.
 */
export class JobHandedBack extends Error {
  constructor(reason: string) {
    super(`handed back: ${reason}`);
    this.name = 'JobHandedBack';
  }
}

/** A job id for running the same work again when the original id is taken by a finished or failed job. */
export const freshJobId = (jobId: string) => `${jobId}-r${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;

/** A queue as seen now (metrics): job counts per state and the age of the oldest waiting job. */
export interface QueueStats {
  queue: QueueName;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  oldestWaitingAgeSeconds: number;
}

export interface EnqueueOptions {
  /** Run no earlier than this many milliseconds from now (a scheduled job, e.g. a webhook retry). */
  delayMs?: number;
  /**
   * Order among waiting jobs: 1 runs first, then 2, ... (jobs of equal priority in the order
   * queued); a job without one runs before them all (BullMQ's rule). The documents queue sets it
   * to the job's place in its organization's backlog, so one organization's backlog never queues
   * ahead of another's first document.
   */
  priority?: number;
}

/** BullMQ's highest priority number (2^21); larger ones are clamped to it. */
export const MAX_PRIORITY = 2_097_152;
const priorityOf = (options: EnqueueOptions) =>
  options.priority === undefined ? 0 : Math.min(MAX_PRIORITY, Math.max(1, Math.floor(options.priority)));

/**
 * Queues whose delayed jobs are scheduled future work (webhook retries), not work in progress:
 * idle() does not wait for them. Their owners persist the schedule, so a restart re-enqueues it.
 */
const SCHEDULED_QUEUES: ReadonlySet<QueueName> = new Set([QUEUES.webhooks, QUEUES.crm]);

/**
 * Port for background jobs. BullMQ on Redis when REDIS_URL is set (retries with backoff, stalled
 * job recovery, shared by worker processes); an in-process queue otherwise. Job ids dedupe:
 * enqueueing the same id twice runs it once.
 */
export abstract class JobQueue {
  abstract enqueue<T extends object>(queue: QueueName, jobId: string, data: T, options?: EnqueueOptions): Promise<void>;
  /**
   * Queues the work of `jobId` again (resuming after a restart): nothing when a job with that id
   * is still waiting, delayed or running; otherwise a new job under a fresh id, since a failed or
   * completed job keeps its id (BullMQ keeps failed jobs for a week) and would swallow it.
   */
  abstract resubmit<T extends object>(queue: QueueName, jobId: string, data: T, options?: EnqueueOptions): Promise<void>;
  /** Starts consuming (only in processes whose ROLE runs workers). */
  abstract process<T>(queue: QueueName, handler: JobHandler<T>, concurrency: number, onExhausted?: ExhaustedHandler<T>): void;
  /** Resolves when no job is queued or running (tests, graceful shutdown); future scheduled jobs do not count. */
  abstract idle(): Promise<void>;
  /** Stops taking jobs of `queue` in this process; resolves when its running jobs have finished or were handed back. */
  abstract stop(queue: QueueName): Promise<void>;
  /** Every queue's depth now (the /metrics gauges). */
  abstract stats(now?: number): Promise<QueueStats[]>;
  abstract close(): Promise<void>;
}

interface PendingJob {
  jobId: string;
  data: unknown;
  attempt: number;
  enqueuedAt: number;
  priority: number;
  seq: number;
}

/** Retry delays in multiples of the configured base (1 s by default): 1 s, 5 s, 30 s. */
const RETRY_FACTORS = [1, 5, 30];

export class InProcessJobQueue extends JobQueue {
  private readonly logger = new Logger('InProcessJobQueue');
  /** Waiting jobs per queue, by priority then arrival (`seq`). */
  private readonly pending = new Map<QueueName, PendingJob[]>();
  private seq = 0;
  private readonly known = new Set<string>();
  private readonly handlers = new Map<
    QueueName,
    { handler: JobHandler<unknown>; concurrency: number; running: number; stopped: boolean; onExhausted?: ExhaustedHandler<unknown> }
  >();
  private waiters: (() => void)[] = [];
  private timers = new Set<NodeJS.Timeout>();
  /** Timers of delayed jobs: lost on exit by design (their owners re-enqueue from the database). */
  private scheduled = new Set<NodeJS.Timeout>();
  /** Delayed jobs and retries waiting for their time, per queue (metrics). */
  private readonly delayed = new Map<QueueName, number>();
  /** Jobs that failed for good since start, per queue (metrics). */
  private readonly failed = new Map<QueueName, number>();
  private closed = false;

  constructor(private readonly retryBaseMs = 1000) {
    super();
  }

  async enqueue<T extends object>(queue: QueueName, jobId: string, data: T, options: EnqueueOptions = {}): Promise<void> {
    if (this.closed || this.known.has(`${queue}:${jobId}`)) return;
    this.known.add(`${queue}:${jobId}`);
    const priority = priorityOf(options);
    const push = () => this.push(queue, { jobId, data, attempt: 0, enqueuedAt: Date.now(), priority, seq: this.seq++ });
    if (!options.delayMs || options.delayMs <= 0) {
      push(); // queued at once, so idle() called right after enqueue() waits for it
      setImmediate(() => this.pump(queue));
      return;
    }
    this.count(this.delayed, queue, 1);
    const timer = setTimeout(() => {
      this.scheduled.delete(timer);
      this.count(this.delayed, queue, -1);
      push();
      this.pump(queue);
    }, options.delayMs);
    timer.unref();
    this.scheduled.add(timer);
  }

  async resubmit<T extends object>(queue: QueueName, jobId: string, data: T, options: EnqueueOptions = {}): Promise<void> {
    if (this.known.has(`${queue}:${jobId}`)) return;
    await this.enqueue(queue, freshJobId(jobId), data, options);
  }

  /** Inserts a job after every waiting job of its priority or a higher one (lower number). */
  private push(queue: QueueName, job: PendingJob): void {
    const list = this.pending.get(queue) ?? [];
    let at = list.length;
    while (at > 0 && list[at - 1].priority > job.priority) at--;
    list.splice(at, 0, job);
    this.pending.set(queue, list);
  }

  process<T>(queue: QueueName, handler: JobHandler<T>, concurrency: number, onExhausted?: ExhaustedHandler<T>): void {
    this.handlers.set(queue, {
      handler: handler as JobHandler<unknown>,
      concurrency,
      running: 0,
      stopped: false,
      onExhausted: onExhausted as ExhaustedHandler<unknown>,
    });
    setImmediate(() => this.pump(queue));
  }

  private pump(queue: QueueName): void {
    const consumer = this.handlers.get(queue);
    const list = this.pending.get(queue);
    if (!consumer || !list) return this.settle();
    while (!this.closed && !consumer.stopped && consumer.running < consumer.concurrency && list.length) {
      const job = list.shift()!;
      consumer.running++;
      consumer
        .handler(job.data)
        .then(() => this.known.delete(`${queue}:${job.jobId}`))
        .catch(async (err: Error) => {
          if (err instanceof JobHandedBack) {
            // back at the head of its queue; lost with the process, the owner's resume re-queues it
            list.unshift(job);
            return;
          }
          const factor = RETRY_FACTORS[job.attempt];
          const delay = factor === undefined ? undefined : factor * this.retryBaseMs;
          if (delay === undefined || this.closed) {
            this.logger.error(`Job ${queue}:${job.jobId} failed for good: ${err.message}`);
            this.count(this.failed, queue, 1);
            // a job cut short by shutdown is resumed by the next start, not given up
            if (delay === undefined && !this.closed)
              await consumer.onExhausted?.(job.data, err).catch((e: Error) => this.logger.error(`Job ${queue}:${job.jobId}: ${e.message}`));
            this.known.delete(`${queue}:${job.jobId}`);
            return;
          }
          this.logger.warn(`Job ${queue}:${job.jobId} failed (${err.message}); retry in ${delay} ms`);
          this.count(this.delayed, queue, 1);
          const timer = setTimeout(() => {
            this.timers.delete(timer);
            this.count(this.delayed, queue, -1);
            this.push(queue, { ...job, attempt: job.attempt + 1, enqueuedAt: Date.now(), seq: this.seq++ });
            this.pump(queue);
          }, delay);
          this.timers.add(timer);
        })
        .finally(() => {
          consumer.running--;
          this.pump(queue);
        });
    }
    this.settle();
  }

  async stop(queue: QueueName): Promise<void> {
    const consumer = this.handlers.get(queue);
    if (!consumer) return;
    consumer.stopped = true;
    while (consumer.running) await new Promise((r) => setTimeout(r, 10));
  }

  private busy(): boolean {
    if (this.timers.size) return true;
    for (const [queue, list] of this.pending)
      if (list.length && !this.handlers.get(queue)?.stopped && this.handlers.has(queue)) return true;
    for (const consumer of this.handlers.values()) if (consumer.running) return true;
    return false;
  }

  private settle(): void {
    if (this.busy()) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private count(map: Map<QueueName, number>, queue: QueueName, by: number): void {
    map.set(queue, (map.get(queue) ?? 0) + by);
  }

  async stats(now = Date.now()): Promise<QueueStats[]> {
    return Object.values(QUEUES).map((queue) => {
      const list = this.pending.get(queue) ?? [];
      const oldest = list.reduce((min, j) => Math.min(min, j.enqueuedAt), now);
      return {
        queue,
        waiting: list.length,
        active: this.handlers.get(queue)?.running ?? 0,
        delayed: this.delayed.get(queue) ?? 0,
        failed: this.failed.get(queue) ?? 0,
        oldestWaitingAgeSeconds: (now - oldest) / 1000,
      };
    });
  }

  idle(): Promise<void> {
    if (!this.busy()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of [...this.timers, ...this.scheduled]) clearTimeout(t);
    this.timers.clear();
    this.scheduled.clear();
    while ([...this.handlers.values()].some((c) => c.running)) await new Promise((r) => setTimeout(r, 10));
  }
}

export class BullJobQueue extends JobQueue {
  private readonly queues = new Map<QueueName, Queue>();
  private readonly workers = new Map<QueueName, Worker>();
  /** BullMQ leaves connections it was given open: ours are closed in close(). */
  private readonly connections: Redis[] = [];

  constructor(
    private readonly connection: Redis,
    private readonly prefix: string,
    private readonly retryBaseMs = 1000,
    /** how long a job's lock lives without renewal: a killed worker's job runs again after about this long */
    private readonly stalledMs = 30_000,
  ) {
    super();
  }

  private queue(name: QueueName): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new (bullmq().Queue)(name, { connection: this.connect(), prefix: this.prefix });
      this.queues.set(name, q);
    }
    return q;
  }

  async resubmit<T extends object>(queue: QueueName, jobId: string, data: T, options: EnqueueOptions = {}): Promise<void> {
    const existing = await this.queue(queue).getJob(jobId);
    const state = existing ? await existing.getState() : 'unknown';
    if (['waiting', 'active', 'delayed', 'prioritized', 'waiting-children'].includes(state)) return;
    await this.enqueue(queue, existing ? freshJobId(jobId) : jobId, data, options);
  }

  async enqueue<T extends object>(queue: QueueName, jobId: string, data: T, options: EnqueueOptions = {}): Promise<void> {
    await this.queue(queue).add(queue, data, {
      jobId,
      delay: options.delayMs && options.delayMs > 0 ? options.delayMs : undefined,
      // a prioritized job (BullMQ's ordered set): lower numbers first, equal ones in order
      priority: priorityOf(options) || undefined,
      attempts: 4,
      backoff: { type: 'exponential', delay: this.retryBaseMs },
      removeOnComplete: { age: 3600, count: 1000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    });
  }

  process<T>(queue: QueueName, handler: JobHandler<T>, concurrency: number, onExhausted?: ExhaustedHandler<T>): void {
    this.queue(queue); // so that idle() sees this queue in a worker-only process too
    const worker = new (bullmq().Worker)(
      queue,
      async (job, token) => {
        try {
          await handler(job.data as T);
        } catch (err) {
          if (!(err instanceof JobHandedBack) || !token) throw err;
          // back to waiting without using up an attempt: another worker takes it at once
          await job.moveToWait(token);
          throw new (bullmq().WaitingError)();
        }
      },
      {
        connection: this.connect({ maxRetriesPerRequest: null }),
        prefix: this.prefix,
        concurrency,
        lockDuration: this.stalledMs,
        stalledInterval: this.stalledMs,
        maxStalledCount: 2,
      },
    );
    worker.on('error', (err) => new Logger('BullJobQueue').error(err.message));
    // finishedOn is set only when the job moved to failed for good (no retry left, or unrecoverable)
    worker.on('failed', (job, err) => {
      if (job?.finishedOn && onExhausted)
        void onExhausted(job.data as T, err).catch((e: Error) => new Logger('BullJobQueue').error(`Job ${job.id}: ${e.message}`));
    });
    this.workers.set(queue, worker);
  }

  async stop(queue: QueueName): Promise<void> {
    await this.workers.get(queue)?.close();
  }

  async idle(): Promise<void> {
    for (;;) {
      const counts = await Promise.all(
        [...this.queues.entries()].map(([name, q]) =>
          SCHEDULED_QUEUES.has(name)
            ? q.getJobCounts('waiting', 'active', 'prioritized', 'waiting-children')
            : q.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children'),
        ),
      );
      if (counts.every((c) => Object.values(c).every((n) => n === 0))) return;
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  async stats(now = Date.now()): Promise<QueueStats[]> {
    return Promise.all(
      Object.values(QUEUES).map(async (name) => {
        const q = this.queue(name);
        const [counts, [oldest]] = await Promise.all([
          q.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed'),
          q.getJobs(['wait'], 0, 0, true),
        ]);
        return {
          queue: name,
          waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
          active: counts.active ?? 0,
          delayed: counts.delayed ?? 0,
          failed: counts.failed ?? 0,
          // a job queued with a delay waits from the end of its delay
          oldestWaitingAgeSeconds: oldest ? Math.max(0, now - oldest.timestamp - (oldest.delay ?? 0)) / 1000 : 0,
        };
      }),
    );
  }

  async close(): Promise<void> {
    await Promise.all([...this.workers.values()].map((w) => w.close()));
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    for (const c of this.connections) c.disconnect();
  }

  private connect(options: Parameters<Redis['duplicate']>[0] = {}): Redis {
    const connection = this.connection.duplicate(options);
    this.connections.push(connection);
    return connection;
  }
}
