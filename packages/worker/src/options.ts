/** Options of a worker, with their defaults in one place. */
import { availableParallelism, hostname } from 'node:os';
import { CeleriacError, toMilliseconds, type Duration } from '@celeriac/core';
import type { Logger } from './logger';
import { quietLogger } from './logger';

/** How tasks are run: `inline` runs them as async functions inside the worker process. */
export type PoolKind = 'inline';

/** Options of `app.worker(...)`. */
export interface WorkerOptions {
  /**
   * Queues to consume, in priority order: earlier queues drain first.
   * @defaultValue `[app.options.defaultQueue]`
   */
  queues?: readonly string[];
  /**
   * How many tasks run at once.
   * @defaultValue the number of CPUs
   */
  concurrency?: number;
  /**
   * How tasks are run.
   * @defaultValue `'inline'`
   */
  pool?: PoolKind;
  /**
   * How many tasks the worker reserves ahead of its free slots, so the next ones are on hand when a
   * task ends. Use 0 for long tasks, so that waiting tasks stay free for other workers.
   * @defaultValue `concurrency`
   */
  prefetch?: number;
  /**
   * On close, how long running tasks may take to finish before they are handed back to the queue.
   * @defaultValue `'30s'`
   */
  shutdownTimeout?: Duration;
  /**
   * Names this worker in logs, records and `inspect`.
   * @defaultValue `'<host>:<pid>'`
   */
  hostname?: string;
  /**
   * Where the worker logs.
   * @defaultValue warnings and errors to stderr
   */
  logger?: Logger;
}

/** Worker options after defaults. */
export interface ResolvedWorkerOptions {
  queues: readonly string[];
  concurrency: number;
  pool: PoolKind;
  prefetch: number;
  shutdownTimeout: number;
  hostname: string;
  logger: Logger;
}

/** Fills in defaults and validates; throws `CELERIAC_INVALID_OPTION` naming the bad option. */
export function resolveWorkerOptions(options: WorkerOptions, defaultQueue: string): ResolvedWorkerOptions {
  const concurrency = options.concurrency ?? availableParallelism();
  if (!Number.isInteger(concurrency) || concurrency < 1) throw invalid('concurrency', concurrency, 'an integer of at least 1');
  const prefetch = options.prefetch ?? concurrency;
  if (!Number.isInteger(prefetch) || prefetch < 0) throw invalid('prefetch', prefetch, 'an integer of at least 0');
  const queues = options.queues ?? [defaultQueue];
  if (queues.length === 0) throw invalid('queues', queues, 'at least one queue name');
  const pool = options.pool ?? 'inline';
  if (pool !== 'inline') throw invalid('pool', pool, "'inline' for in-process workers (process pools run with the `celeriac worker` command)");
  return {
    queues: [...queues],
    concurrency,
    pool,
    prefetch,
    shutdownTimeout: toMilliseconds(options.shutdownTimeout ?? '30s', 'shutdownTimeout'),
    hostname: options.hostname ?? `${hostname()}:${process.pid}`,
    logger: options.logger ?? quietLogger,
  };
}

function invalid(option: string, value: unknown, expected: string): CeleriacError {
  return new CeleriacError('CELERIAC_INVALID_OPTION', `Invalid worker option ${option}: ${JSON.stringify(value)}; expected ${expected}.`);
}
