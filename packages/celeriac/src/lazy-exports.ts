/**
 * The values this package re-exports from @celeriac/worker and @celeriac/beat, loaded on first use.
 * An app module that never makes a worker or a schedule does not load those packages, which keeps
 * every pool child's start-up (it loads the app) short: the `fork` pool starts one per task.
 * Each name is a getter on this module's exports, and `index.ts` re-exports it (tsc's re-exports
 * read the value when it is used, so the chain stays lazy); the types come from the packages.
 */
import type * as BeatPackage from '@celeriac/beat';
import type * as WorkerPackage from '@celeriac/worker';

/* eslint-disable @typescript-eslint/no-require-imports */
/** Loads @celeriac/worker (once; `require` caches it). */
export const loadWorker = (): typeof WorkerPackage => require('@celeriac/worker') as typeof WorkerPackage;
/** Loads @celeriac/beat (once; `require` caches it). */
export const loadBeat = (): typeof BeatPackage => require('@celeriac/beat') as typeof BeatPackage;
/* eslint-enable @typescript-eslint/no-require-imports */

export declare const Worker: typeof WorkerPackage.Worker;
export type Worker = WorkerPackage.Worker;
export declare const Beat: typeof BeatPackage.Beat;
export type Beat = BeatPackage.Beat;
export declare const Scheduler: typeof BeatPackage.Scheduler;
export type Scheduler = BeatPackage.Scheduler;
export declare const ManualClock: typeof BeatPackage.ManualClock;
export type ManualClock = BeatPackage.ManualClock;
export declare const at: typeof BeatPackage.at;
export declare const crontab: typeof BeatPackage.crontab;
export declare const every: typeof BeatPackage.every;

const LAZY: Record<string, () => Record<string, unknown>> = {
  Worker: loadWorker,
  Beat: loadBeat,
  Scheduler: loadBeat,
  ManualClock: loadBeat,
  at: loadBeat,
  crontab: loadBeat,
  every: loadBeat,
};
for (const [name, load] of Object.entries(LAZY)) {
  Object.defineProperty(exports, name, { enumerable: true, get: () => load()[name] });
}
