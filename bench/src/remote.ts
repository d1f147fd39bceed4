/** Starts and stops a {@link ./remote-worker} process for a subject's remote round trips. */
import { fork } from 'node:child_process';
import { join } from 'node:path';

/** Forks a worker of `library` in its own process; resolves, once it consumes, with a function that stops it. */
export async function startRemoteWorker(library: string, url: string, prefix: string): Promise<() => Promise<void>> {
  const child = fork(join(__dirname, 'remote-worker.js'), [library, url, prefix], { stdio: 'inherit' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`The ${library} worker process exited with ${code} before it was ready`)));
  });
  return async () => {
    child.send('stop');
    await exited;
  };
}
