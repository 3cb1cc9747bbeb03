import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { realRedisUrl } from '../../../test/support/services';
import { BullJobQueue, InProcessJobQueue, JobHandedBack, JobQueue, QueueStats } from './job-queue';

const documents = (stats: QueueStats[]) => stats.find((s) => s.queue === 'documents')!;

/** A promise with its resolver outside (awaiting events, never sleeping). */
function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * Graceful stop of a consumer: stop() takes no new job and waits for the running one; a job its
 * handler hands back (the process is shutting down) returns to the queue without using up an
 * attempt, for another worker (BullMQ) or the next start.
 */
describe('JobQueue: stop and hand back', () => {
  it('in-process: a handed-back job waits at the head of its queue, not failed, not retried', async () => {
    const q = new InProcessJobQueue(10);
    const handedBack = deferred<Promise<void>>();
    q.process(
      'documents',
      async () => {
        handedBack.resolve(q.stop('documents'));
        throw new JobHandedBack('shutting down');
      },
      1,
    );
    await q.enqueue('documents', 'doc-1-1', { documentId: 1, attempt: 1 });
    await await handedBack.promise;
    expect(documents(await q.stats())).toMatchObject({ waiting: 1, active: 0, delayed: 0, failed: 0 });
    await q.idle(); // a stopped consumer's queue does not keep the process busy
    await q.close();
  });

  const redisUrl = realRedisUrl();
  (redisUrl ? it : it.skip)(
    'BullMQ: a job handed back by a stopping worker runs at once on another, no attempt used',
    async () => {
      const redis = new Redis(redisUrl!, { maxRetriesPerRequest: null });
      const prefix = `lltest:handback:${randomBytes(4).toString('hex')}`;
      const first: JobQueue = new BullJobQueue(redis, prefix, 60_000);
      const second: JobQueue = new BullJobQueue(redis, prefix, 60_000);
      try {
        const stopping = deferred<Promise<void>>();
        first.process(
          'documents',
          async () => {
            stopping.resolve(first.stop('documents'));
            throw new JobHandedBack('shutting down');
          },
          1,
        );
        await first.enqueue('documents', 'doc-7-1', { documentId: 7, attempt: 1 });
        await await stopping.promise;
        // back in waiting: not failed, not delayed by a retry backoff (60 s here)
        expect(documents(await first.stats())).toMatchObject({ waiting: 1, active: 0, delayed: 0, failed: 0 });
        const ran = deferred<unknown>();
        second.process('documents', async (data) => ran.resolve(data), 1);
        expect(await ran.promise).toEqual({ documentId: 7, attempt: 1 });
        await second.idle();
        expect(documents(await second.stats())).toMatchObject({ waiting: 0, active: 0, delayed: 0, failed: 0 });
      } finally {
        await first.close();
        await second.close();
        redis.disconnect();
      }
    },
    30_000,
  );
});

/**
 * Priorities (the documents queue's fairness between organizations): a job with a lower number
 * runs before any waiting job with a higher one, equal ones in the order queued, with either queue.
 */
describe('JobQueue: priorities', () => {
  /** Holds the first job until released, queues the rest behind it, and returns the order jobs ran in. */
  async function runOrder(q: JobQueue, jobs: [string, number | undefined][]): Promise<string[]> {
    const order: string[] = [];
    const first = deferred();
    const started = deferred();
    const done = deferred();
    q.process<{ id: string }>(
      'documents',
      async ({ id }) => {
        order.push(id);
        if (order.length === 1) {
          started.resolve();
          await first.promise;
        }
        if (order.length === jobs.length) done.resolve();
      },
      1,
    );
    const [head, ...rest] = jobs;
    await q.enqueue('documents', head[0], { id: head[0] }, { priority: head[1] });
    await started.promise; // the head runs; everything else waits behind it
    for (const [id, priority] of rest) await q.enqueue('documents', id, { id }, { priority });
    first.resolve();
    await done.promise;
    return order;
  }

  // organization A's backlog (its 1st..4th documents), then B's first two; a job with no priority goes first
  const jobs: [string, number | undefined][] = [
    ['a1', 1],
    ['a2', 2],
    ['a3', 3],
    ['a4', 4],
    ['b1', 1],
    ['b2', 2],
    ['plain', undefined],
  ];
  const fair = ['a1', 'plain', 'b1', 'a2', 'b2', 'a3', 'a4'];

  it('in-process: runs waiting jobs by priority (none first), then in the order queued', async () => {
    const q = new InProcessJobQueue(10);
    try {
      expect(await runOrder(q, jobs)).toEqual(fair);
    } finally {
      await q.close();
    }
  });

  const redisUrl = realRedisUrl();
  (redisUrl ? it : it.skip)(
    'BullMQ: the same order',
    async () => {
      const redis = new Redis(redisUrl!, { maxRetriesPerRequest: null });
      const q = new BullJobQueue(redis, `lltest:priority:${randomBytes(4).toString('hex')}`, 60_000);
      try {
        expect(await runOrder(q, jobs)).toEqual(fair);
      } finally {
        await q.close();
        redis.disconnect();
      }
    },
    30_000,
  );
});
