/**
 * One Celeriac worker process on the PostgreSQL broker, for the lane that drains one backlog with 1,
 * 2 and 4 processes. Arguments: the database URL, the prefix, the concurrency. Says 'ready' over IPC
 * once it consumes, and stops on 'stop'. The tasks store no result (the peers store none either).
 */
import { Celeriac } from 'celeriac';

async function main(): Promise<void> {
  const [url = '', prefix = '', concurrency = '20'] = process.argv.slice(2);
  const app = new Celeriac({ broker: url, prefix });
  app.task('bench.noop', () => undefined);
  const worker = app.worker({ pool: 'inline', concurrency: Number(concurrency) });
  await worker.start();
  process.on('message', (message) => {
    if (message === 'stop')
      void worker
        .close()
        .then(() => app.close())
        .then(() => process.exit(0));
  });
  process.on('disconnect', () => process.exit(0));
  process.send?.('ready');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
