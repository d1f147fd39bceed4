/**
 * The app module that `celeriac worker -A dist/tasks.js` loads, in the worker and in each of its pool
 * children, and that the client imports to send tasks: one place registers every task.
 */
import { Celeriac, currentTask } from 'celeriac';

/** The Redis database the example uses. */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';

/** Every key of the example starts with this; `run-demo` sets a fresh one per run. */
export const PREFIX = process.env.CELERIAC_EXAMPLE_PREFIX ?? 'celeriac-example-worker-cli';

export const app = new Celeriac({ broker: REDIS_URL, prefix: PREFIX });

/** CPU-bound: keeps a core busy, which is what process pools are for. Returns the child's pid too. */
export const fib = app.task('cpu.fib', (n: number) => ({ n, value: slowFib(n), pid: process.pid }));

/**
 * Never returns and never yields: no signal can reach it. Only the hard time limit ends it, by
 * killing the pool child that runs it (the worker then starts a fresh child).
 */
export const hang = app.task(
  'demo.hang',
  (): void => {
    for (;;) {
      // Burns one core until the worker kills this process.
    }
  },
  { timeLimit: '1s' },
);

/** Reports progress from inside a pool child; each report reaches the result backend and the caller. */
export const convert = app.task('demo.convert', async (file: string, steps: number) => {
  for (let step = 1; step <= steps; step += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    await currentTask().progress({ file, step, steps });
  }
  return `${file}: converted in ${steps} steps by child ${process.pid}`;
});

function slowFib(n: number): number {
  return n < 2 ? n : slowFib(n - 1) + slowFib(n - 2);
}
