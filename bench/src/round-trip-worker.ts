/**
 * The worker each library runs for round trips (concurrency 1, a no-op job), defined once for both
 * placements: in the sender's process, and in a process of its own (remote-worker.ts).
 */
import BeeQueue from 'bee-queue';
import { Worker as BullWorker } from 'bullmq';
import { Celeriac } from 'celeriac';

/** Stops a worker started by {@link startRoundTripWorker}. */
export type StopWorker = () => Promise<void>;

/** The queue of BullMQ's fan-out parent job, which sums its children's values (see fan-out.ts). */
export const BULLMQ_SUM_QUEUE = 'bench-sum';

/**
 * Starts a worker of `library` in this process (concurrency 1 unless told), consuming the benchmark's
 * queue. Celeriac's also has `bench.sum`; with `sum`, BullMQ's also consumes the fan-out parent's queue.
 */
export async function startRoundTripWorker(
  library: string,
  url: string,
  prefix: string,
  concurrency = 1,
  sum = false,
): Promise<StopWorker> {
  switch (library) {
    case 'celeriac': {
      const app = new Celeriac({ broker: url, prefix, events: process.env.BENCH_EVENTS === 'on' });
      app.task('bench.noop', (i: number) => i);
      app.task('bench.sum', (values: number[]) => values.reduce((total, value) => total + value, 0));
      await app.worker({ concurrency }).start();
      return () => app.close();
    }
    case 'bullmq': {
      const worker = new BullWorker('bench', async (job) => (job.data as { i: number }).i, {
        connection: connectionOf(url),
        prefix,
        concurrency,
      });
      await worker.waitUntilReady();
      if (!sum) return () => worker.close();
      const parent = new BullWorker(
        BULLMQ_SUM_QUEUE,
        async (job) => Object.values(await job.getChildrenValues<number>()).reduce((total, value) => total + value, 0),
        { connection: connectionOf(url), prefix },
      );
      await parent.waitUntilReady();
      return async () => void (await Promise.all([worker.close(), parent.close()]));
    }
    case 'bee-queue': {
      const worker = new BeeQueue('bench', { redis: { url }, prefix, getEvents: false });
      worker.process(concurrency, async (job: BeeQueue.Job<{ i: number }>) => job.data.i);
      await worker.ready();
      return () => worker.close();
    }
    default:
      throw new Error(`round-trip worker: unknown library ${library}`);
  }
}

/** ioredis connection options for BullMQ from a Redis URL. */
export function connectionOf(url: string) {
  const parsed = new URL(url);
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 6379),
    db: Number(parsed.pathname.slice(1) || 0),
    maxRetriesPerRequest: null,
  };
}
