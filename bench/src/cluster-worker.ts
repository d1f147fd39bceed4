/**
 * A Celeriac worker process for the topology benchmark (`cluster.ts`): a no-op task, the queues and
 * concurrency given as arguments. It says 'ready' over IPC once it consumes, answers 'count' with
 * how many tasks it finished, and stops on 'stop'.
 */
import { Celeriac } from 'celeriac';

async function main(): Promise<void> {
  const [url = '', prefix = '', queues = 'default', concurrency = '100'] = process.argv.slice(2);
  const app = new Celeriac({ broker: url, prefix });
  app.task('bench.noop', (i: number) => i);
  const worker = app.worker({ concurrency: Number(concurrency), queues: queues.split(',') });
  await worker.start();
  process.on('message', (message) => {
    if (message === 'count') process.send?.({ processed: worker.processed });
    if (message === 'stop') void app.close().then(() => process.exit(0));
  });
  process.on('disconnect', () => process.exit(0));
  process.send?.('ready');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
