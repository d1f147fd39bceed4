/** bee-queue under test: its in-process processor, results stored (storeJobs, the default). */
import BeeQueue from 'bee-queue';
import { startWorker } from '../remote';
import { timed, type Subject } from '../subject';

/** Builds the bee-queue subject. */
export function beeQueueSubject(url: string, prefix: string): Subject {
  const producer = new BeeQueue('bench', {
    redis: { url },
    prefix,
    isWorker: false,
    getEvents: true,
    removeOnSuccess: false,
  });

  return {
    name: 'bee-queue',
    async enqueueSerial(n) {
      for (let i = 0; i < n; i++) await producer.createJob({ i }).save();
    },
    async enqueueConcurrent(n) {
      await Promise.all(Array.from({ length: n }, (_, i) => producer.createJob({ i }).save()));
    },
    async enqueueBulk(n) {
      await producer.saveAll(Array.from({ length: n }, (_, i) => producer.createJob({ i })));
    },
    async processAll(n, concurrency) {
      const worker = new BeeQueue('bench', { redis: { url }, prefix, getEvents: false, sendEvents: false });
      let left = n;
      await new Promise<void>((resolve) => {
        worker.on('succeeded', () => {
          left -= 1;
          if (left === 0) resolve();
        });
        worker.process(concurrency, async (job: BeeQueue.Job<{ i: number }>) => job.data.i);
      });
      await worker.close();
    },
    async startRoundTrips(where) {
      const worker = await startWorker(where, 'bee-queue', url, prefix);
      await producer.ready();
      // The queue-level event, by job id: a job's own 'succeeded' listener can only be added once
      // save() resolved, and the event may come first (a worker in another process is that fast),
      // which would hang the run.
      const finished = new Set<string>();
      const waiting = new Map<string, () => void>();
      const onSucceeded = (jobId: string) => {
        const resolve = waiting.get(jobId);
        if (resolve) {
          waiting.delete(jobId);
          resolve();
        } else {
          finished.add(jobId);
        }
      };
      producer.on('job succeeded', onSucceeded);
      let i = 0;
      return {
        once: () =>
          timed(async () => {
            const job = await producer.createJob({ i: i++ }).save();
            if (finished.delete(job.id)) return;
            await new Promise<void>((resolve) => waiting.set(job.id, resolve));
          }),
        async stop() {
          producer.removeListener('job succeeded', onSucceeded);
          await worker.stop();
        },
        workerPid: worker.pid,
      };
    },
    async close() {
      await producer.destroy();
      await producer.close();
    },
  };
}
