/**
 * The app the soak's workers load (`celeriac worker -A soak/src/soak-app.ts`): one task that adds
 * its arguments after a short pause and appends a line per run to the runs file, so the soak can
 * tell what ran, where, when and how often. The sender passes each task's id as its last argument.
 */
import { appendFileSync } from 'node:fs';
import { Celeriac } from 'celeriac';

/** The app, on the soak's broker and prefix (from the environment the soak gives its workers). */
export const app = new Celeriac({
  broker: process.env.SOAK_BROKER_URL ?? 'redis://127.0.0.1:6379/0',
  prefix: process.env.SOAK_PREFIX ?? 'celeriac-soak',
  visibilityTimeout: '10s',
});

const runsFile = process.env.SOAK_RUNS_FILE;
const worker = process.env.SOAK_WORKER ?? 'unknown';

/** Adds `a` and `b` after `pauseMs`: a task with a little work in it. */
export const add = app.task('soak.add', async (a: number, b: number, pauseMs: number, id: string) => {
  // One line per run: `<epoch ms> <worker> <task id> <pid>` (an append of one short line is atomic).
  if (runsFile) appendFileSync(runsFile, `${Date.now()} ${worker} ${id} ${process.pid}\n`);
  if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  return a + b;
});
