/**
 * A worker of one library (concurrency 1 unless a fourth argument says; a fifth, `sum`, adds BullMQ's fan-out parent worker) in a process of its own, for the round trips where the
 * sender and the worker run in different processes (as a web app and its workers do). Started by
 * `remote.ts` with the library, the Redis URL and the key prefix as arguments; it says 'ready' over
 * IPC once it consumes, and stops on 'stop'.
 */
import { startRoundTripWorker } from './round-trip-worker';

async function main(): Promise<void> {
  const [library = '', url = '', prefix = '', concurrency = '1', sum = ''] = process.argv.slice(2);
  const stop = await startRoundTripWorker(library, url, prefix, Number(concurrency), sum === 'sum');
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
