/**
 * The worker in the sender's process (issue #26): N no-op tasks sent in bulk while a worker of the
 * same process runs at c=100. Celeriac awaits every handle (`delayMany`, `Promise.all`); BullMQ
 * awaits nothing (its worker's `completed` events are counted); bee-queue counts its queue's
 * `job succeeded` events.
 */
import BeeQueue from 'bee-queue';
import { Queue, Worker as BullWorker } from 'bullmq';
import { Celeriac } from 'celeriac';
import { measured, type Sample } from './caller-measure';
import { connectionOf } from './round-trip-worker';

const URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const CONCURRENCY = 100;

/** Celeriac: every handle awaited, the worker in this process. */
export async function celeriacInProcess(count: number, prefix: string): Promise<Sample> {
  const app = new Celeriac({ broker: URL, prefix });
  const noop = app.task('bench.noop', (i: number) => i);
  await app.worker({ concurrency: CONCURRENCY }).start();
  try {
    return await measured(count, async () => {
      await Promise.all(noop.delayMany(Array.from({ length: count }, (_, i) => [i] as [number])));
    });
  } finally {
    await app.close();
  }
}

/** BullMQ: `addBulk` in 1,000s, its worker's `completed` events counted (nothing awaited). */
export async function bullmqInProcess(count: number, prefix: string): Promise<Sample> {
  const queue = new Queue('bench', { connection: connectionOf(URL), prefix });
  const worker = new BullWorker('bench', async (job) => (job.data as { i: number }).i, {
    connection: connectionOf(URL),
    prefix,
    concurrency: CONCURRENCY,
  });
  await worker.waitUntilReady();
  try {
    return await measured(count, async () => {
      const done = countdown(count, (each) => worker.on('completed', each));
      for (let start = 0; start < count; start += 1000) {
        const size = Math.min(1000, count - start);
        await queue.addBulk(Array.from({ length: size }, (_, k) => ({ name: 'noop', data: { i: start + k } })));
      }
      await done;
    });
  } finally {
    await worker.close();
    await queue.close();
  }
}

/** bee-queue: `saveAll`, one queue that processes and listens to its `job succeeded` events. */
export async function beeQueueInProcess(count: number, prefix: string): Promise<Sample> {
  const queue = new BeeQueue('bench', { redis: { url: URL }, prefix, getEvents: true });
  queue.process(CONCURRENCY, async (job: BeeQueue.Job<{ i: number }>) => job.data.i);
  await queue.ready();
  try {
    return await measured(count, async () => {
      const done = countdown(count, (each) => queue.on('job succeeded', each));
      await queue.saveAll(Array.from({ length: count }, (_, i) => queue.createJob({ i })));
      await done;
    });
  } finally {
    queue.removeAllListeners('job succeeded');
    await queue.close();
  }
}

/** Resolves after `listen`'s callback was called `count` times. */
function countdown(count: number, listen: (each: () => void) => void): Promise<void> {
  return new Promise((resolve) => {
    let left = count;
    listen(() => {
      left -= 1;
      if (left === 0) resolve();
    });
  });
}
