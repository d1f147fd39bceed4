/** BullMQ under test: its in-process Worker, results kept (the default). */
import { Queue, QueueEvents, Worker } from 'bullmq';
import { startWorker } from '../remote';
import { connectionOf } from '../round-trip-worker';
import { timed, type Subject } from '../subject';

/** Builds the BullMQ subject. */
export function bullmqSubject(url: string, prefix: string): Subject {
  const queue = new Queue('bench', { connection: { ...connectionOf(url) }, prefix });
  const jobs = (n: number) => Array.from({ length: n }, (_, i) => ({ name: 'noop', data: { i } }));

  return {
    name: 'bullmq',
    async enqueueSerial(n) {
      for (let i = 0; i < n; i++) await queue.add('noop', { i });
    },
    async enqueueConcurrent(n) {
      await Promise.all(jobs(n).map((job) => queue.add(job.name, job.data)));
    },
    async enqueueBulk(n) {
      for (let start = 0; start < n; start += 1000) await queue.addBulk(jobs(Math.min(1000, n - start)));
    },
    async processAll(n, concurrency) {
      let left = n;
      let worker: Worker | undefined;
      await new Promise<void>((resolve) => {
        worker = new Worker('bench', async (job) => job.data.i, { connection: connectionOf(url), prefix, concurrency });
        worker.on('completed', () => {
          left -= 1;
          if (left === 0) resolve();
        });
      });
      await worker?.close();
    },
    async startRoundTrips(where) {
      const events = new QueueEvents('bench', { connection: connectionOf(url), prefix });
      await events.waitUntilReady();
      const worker = await startWorker(where, 'bullmq', url, prefix);
      let i = 0;
      return {
        once: () => timed(async () => (await queue.add('noop', { i: i++ })).waitUntilFinished(events)),
        async stop() {
          await worker.stop();
          await events.close();
        },
        workerPid: worker.pid,
      };
    },
    async close() {
      await queue.obliterate({ force: true });
      await queue.close();
    },
  };
}
