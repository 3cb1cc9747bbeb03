import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { BullJobQueue, InProcessJobQueue, JobQueue, QUEUES } from '../src/platform/queue/job-queue';
import { realRedisUrl } from './support/services';

/**
 * Delayed jobs on both JobQueue adapters (webhook retries use them): a delayed job runs after its
 * delay, and a job scheduled far ahead on the webhooks queue does not keep idle() waiting.
 */
const adapters: [string, () => { queue: JobQueue; redis: Redis | null }][] = [
  ['in-process', () => ({ queue: new InProcessJobQueue(), redis: null })],
];
if (realRedisUrl()) {
  adapters.push([
    'BullMQ',
    () => {
      const redis = new Redis(realRedisUrl()!, { maxRetriesPerRequest: 2 });
      return { queue: new BullJobQueue(redis, `lltest:delayed:${randomBytes(4).toString('hex')}:bull`), redis };
    },
  ]);
}

describe.each(adapters)('delayed jobs (%s)', (_name, make) => {
  let queue: JobQueue;
  let redis: Redis | null;
  beforeEach(() => ({ queue, redis } = make()));
  afterEach(async () => {
    await queue.close();
    redis?.disconnect();
  });

  it('runs a delayed job once its delay has passed, not before', async () => {
    const ran: { id: string; at: number }[] = [];
    const waiters = new Map<string, () => void>();
    const ranJob = (id: string) => new Promise<void>((r) => waiters.set(id, r));
    queue.process<{ id: string }>(
      QUEUES.webhooks,
      async (job) => {
        ran.push({ id: job.id, at: Date.now() });
        waiters.get(job.id)?.();
      },
      2,
    );
    // the worker is up and taking jobs first (a BullMQ worker's start-up under load once took longer
    // than the delay below, and the order of the two jobs then said nothing about the delay)
    const nowRan = ranJob('now');
    await queue.enqueue(QUEUES.webhooks, 'now', { id: 'now' });
    await nowRan;
    const laterRan = ranJob('later');
    const start = Date.now();
    await queue.enqueue(QUEUES.webhooks, 'later', { id: 'later' }, { delayMs: 300 });
    // an undelayed job enqueued after it is not held behind it
    const nextRan = ranJob('next');
    await queue.enqueue(QUEUES.webhooks, 'next', { id: 'next' });
    await Promise.all([laterRan, nextRan]);
    const at = (id: string) => ran.find((r) => r.id === id)!.at;
    expect(at('later') - start).toBeGreaterThanOrEqual(290);
    expect(ran.map((r) => r.id).sort()).toEqual(['later', 'next', 'now']);
  });

  it('does not make idle() wait for webhook attempts scheduled in the future', async () => {
    const ran: string[] = [];
    queue.process<{ id: string }>(QUEUES.webhooks, async (job) => void ran.push(job.id), 1);
    await queue.enqueue(QUEUES.webhooks, 'in-15-min', { id: 'in-15-min' }, { delayMs: 900_000 });
    await queue.enqueue(QUEUES.webhooks, 'due', { id: 'due' });
    await queue.idle();
    expect(ran).toEqual(['due']);
  });
});
