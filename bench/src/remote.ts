/** Starts a subject's round-trip worker where the run asks: here, or in a {@link ./remote-worker} process. */
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { startRoundTripWorker } from './round-trip-worker';
import type { Placement } from './subject';

/** A round-trip worker, started by {@link startWorker}. */
export interface RunningWorker {
  stop(): Promise<void>;
  /** Its process id when it runs apart (the benchmark reads its CPU time). */
  pid?: number | undefined;
}

/** Starts the round-trip worker of `library` in this process (`here`) or in one of its own (`apart`). */
export async function startWorker(
  where: Placement,
  library: string,
  url: string,
  prefix: string,
): Promise<RunningWorker> {
  return where === 'apart'
    ? startRemoteWorker(library, url, prefix)
    : { stop: await startRoundTripWorker(library, url, prefix) };
}

/** Forks a worker of `library` in its own process (see startRoundTripWorker); resolves once it consumes. */
export async function startRemoteWorker(
  library: string,
  url: string,
  prefix: string,
  concurrency = 1,
  sum = false,
): Promise<RunningWorker> {
  const args = [library, url, prefix, String(concurrency), ...(sum ? ['sum'] : [])];
  const child = fork(join(__dirname, 'remote-worker.js'), args, { stdio: 'inherit' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) =>
      reject(new Error(`The ${library} worker process exited with ${code} before it was ready`)),
    );
  });
  const stop = async () => {
    child.send('stop');
    await exited;
  };
  return { stop, pid: child.pid };
}
