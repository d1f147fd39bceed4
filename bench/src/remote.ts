/** Starts a subject's round-trip worker where the run asks: here, or in a {@link ./remote-worker} process. */
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { startRoundTripWorker, type StopWorker } from './round-trip-worker';
import type { Placement } from './subject';

/** Starts the round-trip worker of `library` in this process (`here`) or in one of its own (`apart`). */
export function startWorker(where: Placement, library: string, url: string, prefix: string): Promise<StopWorker> {
  return where === 'apart' ? startRemoteWorker(library, url, prefix) : startRoundTripWorker(library, url, prefix);
}

/** Forks a worker of `library` in its own process; resolves, once it consumes, with a function that stops it. */
export async function startRemoteWorker(library: string, url: string, prefix: string): Promise<StopWorker> {
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
