/**
 * `celeriac worker -B`: the periodic-task scheduler inside the worker process, as Celery's, for a
 * deployment of one process. It closes with the app (which gives its lease up).
 */
import { CeleriacError } from '@celeriac/core';
import type { Logger } from 'pino';
import type { BeatApp } from './beat-app';

/** What stderr says when -B is used: one scheduler belongs in its own process once there are more workers. */
export const EMBEDDED_BEAT_WARNING =
  'warning: -B runs the periodic-task scheduler inside this worker, for a one-process setup. Do not start two ' +
  'workers with -B: run `celeriac beat` on its own (two or more of them for high availability) and the workers ' +
  'without -B.\n';

/** Starts a scheduler in this process for the app's periodic tasks; the app's `close()` stops it. */
export async function startEmbeddedBeat(app: Partial<BeatApp>, logger: Logger): Promise<void> {
  if (typeof app.beat?.scheduler !== 'function')
    throw new CeleriacError(
      'CELERIAC_INVALID_OPTION',
      '-B needs an app with periodic tasks support (app.beat): create it with `new Celeriac(...)` from the ' +
        "'celeriac' package.",
    );
  process.stderr.write(EMBEDDED_BEAT_WARNING);
  const scheduler = app.beat.scheduler({ logger });
  await scheduler.start();
  logger.info(
    { scheduler: scheduler.id, state: scheduler.state, entriesInCode: app.beat.entriesInCode().length },
    `Beat ${scheduler.id} started inside the worker (-B)`,
  );
}
