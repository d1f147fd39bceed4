/**
 * What a worker tells its metrics about the tasks it runs. The worker calls these only when it
 * serves metrics (`run.metrics` is absent otherwise), from its main process, whatever the pool.
 */
import type { TaskMessage } from '@celeriac/core/internal';

/** A task's final state, as `celeriac_tasks_total` counts it. */
export type FinalState = 'SUCCESS' | 'FAILURE' | 'REVOKED';

/** The hooks of a worker's metrics. */
export interface TaskMetrics {
  /** The task function begins, at `at` (epoch ms): the queue wait ends. */
  started(message: TaskMessage, at: number): void;
  /** The task reached a final state; `runtime` (ms) when its function ran. */
  finished(message: TaskMessage, state: FinalState, runtime?: number): void;
  /** The task raised and goes back to its queue for a retry, after `runtime` ms. */
  retried(message: TaskMessage, runtime: number): void;
  /** A task of `queue` went to the dead-letter set (`message` when it decoded). */
  deadLettered(queue: string, message: TaskMessage | undefined): void;
  /** A pool child was replaced (it died, or retired after its task or memory limit). */
  childReplaced(): void;
}

/**
 * How long a task starting at `at` (epoch ms) waited in its queue, in ms: from when it was sent, or
 * due (after a countdown or a retry's delay), to its start; never negative (clocks of callers and
 * workers differ a little). The `task-started` event carries it, and the worker's histogram observes it.
 */
export function queueWait(message: TaskMessage, at: number): number {
  return Math.max(0, at - Math.max(message.publishedAt, message.eta ?? 0));
}
