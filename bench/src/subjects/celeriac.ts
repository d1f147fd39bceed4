/** Celeriac under test: an inline worker in the same process, results kept. */
import { Celeriac, type Worker } from 'celeriac';
import { startRemoteWorker } from '../remote';
import { timed, type Subject } from '../subject';

/** Builds the Celeriac subject. */
export function celeriacSubject(url: string, prefix: string): Subject {
  // BENCH_EVENTS=on measures the event log's cost (see README).
  const app = new Celeriac({ broker: url, prefix, events: process.env.BENCH_EVENTS === 'on' });
  let onDone: (() => void) | undefined;
  const noop = app.task('bench.noop', (i: number) => i, { onSuccess: () => onDone?.() });
  let worker: Worker | undefined;

  async function startWorker(concurrency: number): Promise<Worker> {
    await worker?.close();
    worker = app.worker({ concurrency });
    await worker.start();
    return worker;
  }

  return {
    name: 'celeriac',
    async enqueueSerial(n) {
      for (let i = 0; i < n; i++) await noop.delay(i).sent;
    },
    async enqueueConcurrent(n) {
      await Promise.all(Array.from({ length: n }, (_, i) => noop.delay(i).sent));
    },
    async enqueueBulk(n) {
      await Promise.all(noop.delayMany(Array.from({ length: n }, (_, i) => [i] as [number])).map((r) => r.sent));
    },
    async processAll(n, concurrency) {
      let left = n;
      const done = new Promise<void>((resolve) => {
        onDone = () => {
          left -= 1;
          if (left === 0) resolve();
        };
      });
      await startWorker(concurrency);
      await done;
      await worker?.close();
      worker = undefined;
    },
    async startRoundTrips(where) {
      onDone = undefined;
      let stop: () => Promise<void>;
      let workerPid: number | undefined;
      if (where === 'apart') {
        ({ stop, pid: workerPid } = await startRemoteWorker('celeriac', url, prefix));
      } else {
        // In process, the sender's own app runs the worker, as `app.worker()` users do.
        const running = await startWorker(1);
        stop = async () => {
          await running.close();
          if (worker === running) worker = undefined;
        };
      }
      let i = 0;
      return { once: () => timed(() => noop.delay(i++)), stop, workerPid };
    },
    async close() {
      await app.close();
    },
  };
}
