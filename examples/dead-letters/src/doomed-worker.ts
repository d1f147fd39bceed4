/**
 * A worker that dies: run in a child process, it starts a worker whose copy of the task kills the
 * process mid-run. Its lease is then never renewed nor settled, exactly as after `kill -9`.
 */
import { fork } from 'node:child_process';
import { createExampleApp, QUEUE } from './app';
import { taggedLogger } from './logger';

/** The command-line flag that makes `main.js` run as a doomed worker. */
export const DOOMED_WORKER_FLAG = '--doomed-worker';

/** Longest a doomed worker may live; past it something went wrong and the example fails. */
const LIFETIME_MS = 20_000;

/** Inside the child: starts the worker and waits for the task to kill this process. */
export async function runDoomedWorker(redisUrl: string, prefix: string): Promise<void> {
  const { app } = createExampleApp({ redisUrl, prefix, crashes: true });
  const worker = app.worker({ queues: [QUEUE], concurrency: 1, logger: taggedLogger(`worker ${process.pid}`) });
  await worker.start();
  console.log(`  worker ${process.pid}: started on queue '${QUEUE}'`);
  // Never outlive the parent.
  process.on('disconnect', () => process.exit(1));
}

/** In the parent: runs one doomed worker process and resolves once it has died. */
export function runDoomedWorkerProcess(entry: string, redisUrl: string, prefix: string): Promise<void> {
  const child = fork(entry, [DOOMED_WORKER_FLAG, redisUrl, prefix], { stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`The doomed worker ${child.pid} did not pick up the task within ${LIFETIME_MS} ms`));
    }, LIFETIME_MS);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal === 'SIGKILL') resolve();
      else
        reject(
          new Error(
            `The doomed worker ${child.pid} exited with ${signal ?? `code ${code}`} instead of dying in the task`,
          ),
        );
    });
  });
}
