/**
 * The options of one call that travel with its message as plain data; `ApplyOptions` adds callbacks
 * and dependencies. Apart from options.ts so that canvas nodes import nothing that imports the
 * canvas back.
 */
import type { Duration } from './duration';

/** The options of one call that a message carries as they are. */
export interface CallOptions {
  /** Use this id instead of a random one; publishing an id that is still waiting or running is a no-op. */
  taskId?: string;
  /** Run no sooner than this long from now. */
  countdown?: Duration;
  /** Run no sooner than this time (a Date, epoch ms, or an ISO string). */
  eta?: Date | number | string;
  /** Do not run after this: a duration from now, or a Date. The task becomes REVOKED instead. */
  expires?: Duration | Date;
  /** 0–255; higher runs first. Overrides the task's priority. */
  priority?: number;
  /** Overrides the task's queue. */
  queue?: string;
  /** Overrides the task's `retries`. */
  retries?: number;
  /** Overrides the task's hard time limit. */
  timeLimit?: Duration;
  /** Overrides the task's soft time limit. */
  softTimeLimit?: Duration;
  /** Overrides the task's `ignoreResult`. */
  ignoreResult?: boolean;
  /** Overrides the task's `resultTtl`. */
  resultTtl?: Duration;
  /** Extra data for the task, read through `currentTask().headers`. */
  headers?: Record<string, string>;
}
