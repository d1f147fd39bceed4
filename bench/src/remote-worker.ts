/**
 * A worker of one library at concurrency 1 in a process of its own, for the round trips where the
 * sender and the worker run in different processes (as a web app and its workers do). Started by
 * `remote.ts` with the library, the Redis URL and the key prefix as arguments; it says 'ready' over
 * IPC once it consumes, and stops on 'stop'.
 */
import BeeQueue from 'bee-queue';
import { Worker as BullWorker } from 'bullmq';
import { Celeriac } from 'celeriac';
import { connectionOf } from './subjects/bullmq';

type Stop = () => Promise<void>;

async function start(library: string, url: string, prefix: string): Promise<Stop> {
  switch (library) {
    case 'celeriac': {
      const app = new Celeriac({ broker: url, prefix });
      app.task('bench.noop', (i: number) => i);
      await app.worker({ concurrency: 1 }).start();
      return () => app.close();
    }
    case 'bullmq': {
      const worker = new BullWorker('bench', async (job) => (job.data as { i: number }).i, { connection: connectionOf(url), prefix, concurrency: 1 });
      await worker.waitUntilReady();
      return () => worker.close();
    }
    case 'bee-queue': {
      const worker = new BeeQueue('bench', { redis: { url }, prefix, getEvents: false });
      worker.process(1, async (job: BeeQueue.Job<{ i: number }>) => job.data.i);
      await worker.ready();
      return () => worker.close();
    }
    default:
      throw new Error(`remote-worker: unknown library ${library}`);
  }
}

async function main(): Promise<void> {
  const [library = '', url = '', prefix = ''] = process.argv.slice(2);
  const stop = await start(library, url, prefix);
  process.on('message', (message) => {
    if (message === 'stop') void stop().then(() => process.exit(0));
  });
  // The benchmark that started this process is gone (killed): go too.
  process.on('disconnect', () => process.exit(0));
  process.send?.('ready');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
