/** Builds the runner a worker's `pool` option names. */
import { resolve } from 'node:path';
import { type RemoteError } from '@celeriac/core';
import { toRemoteError } from '@celeriac/core/internal';
import { InlineRunner } from '../inline-runner';
import type { ResolvedWorkerOptions } from '../options';
import type { TaskRunner } from '../runner';
import type { WorkerApp } from '../worker-app';
import type { ForkPool } from './fork-pool';
import type { PreforkPool } from './prefork-pool';

// The pools are loaded when one is made: an app that only runs inline workers, and every pool child
// (which loads the app), skip node:child_process and the pool code.
/* eslint-disable @typescript-eslint/no-require-imports */
const pools = {
  prefork: (): typeof PreforkPool => (require('./prefork-pool') as typeof import('./prefork-pool')).PreforkPool,
  fork: (): typeof ForkPool => (require('./fork-pool') as typeof import('./fork-pool')).ForkPool,
};
/* eslint-enable @typescript-eslint/no-require-imports */

/** The runner for `options.pool`. */
export function createRunner(app: WorkerApp, options: ResolvedWorkerOptions, onReplaced?: () => void): TaskRunner {
  const { logger } = options;
  const onHookError = (hook: string, error: RemoteError) =>
    logger.error({ hook, error }, `The ${hook} hook threw; the task's outcome stands`);
  // What both process pools need to start children, and how they log replacing one (not for
  // inline, which has no app module to resolve).
  const children = () => ({
    size: options.concurrency,
    appModule: resolve(options.appModule as string),
    codec: app.codec,
    onReplace: (child: number | undefined, reason: string) => {
      onReplaced?.();
      logger.info({ child, reason }, `Replacing pool child ${child}: ${reason}`);
    },
    onHookError,
  });
  switch (options.pool) {
    case 'inline':
      return new InlineRunner(app.codec, (hook, error) => onHookError(hook, toRemoteError(error)));
    case 'prefork':
      return new (pools.prefork())({
        ...children(),
        // Queue jobs ahead in each child (up to 128 while tasks are tiny), unless prefetching is off
        // (long tasks: keep them free for other workers).
        depth: options.prefetch > 0 ? 128 : 1,
        maxTasksPerChild: options.maxTasksPerChild,
        onRetire: (child, reason) => logger.info({ child, reason }, `Retired pool child ${child}: ${reason}`),
        maxMemoryPerChild: options.maxMemoryPerChild === undefined ? undefined : options.maxMemoryPerChild * 1_048_576,
      });
    case 'fork':
      return new (pools.fork())(children());
  }
}
