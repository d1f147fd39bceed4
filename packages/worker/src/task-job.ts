/** One run of one task, as the worker hands it to a runner (and a runner to `runTask`). */
import type { TaskState } from '@celeriac/core';
import type { TaskDefinition, TaskMessage } from '@celeriac/core/internal';
import type { RunSignal } from './run-signal';

/** What running a task needs where the task function runs (the worker process, or a pool child). */
export interface TaskRun {
  message: TaskMessage;
  definition: TaskDefinition;
  /** 1 on first delivery. */
  deliveries: number;
  maxRetries: number;
  /** Aborted on revoke with terminate, shutdown and time limits. */
  stop: RunSignal;
  /** The only task its process runs (a `fork` child's job): its context is the whole process's. */
  soleInProcess?: boolean;
  softTimeLimit: number | undefined;
  /** The hard limit, enforced here; a pool child has none (its worker kills it instead). */
  timeLimit?: number;
  /** The `traceparent` of the worker's run span: the task function runs under it (tracing on). */
  traceparent?: string;
  /** Stores a state change (progress, custom states). */
  report(state: TaskState, meta: unknown): Promise<void>;
}

/** One run of one task, as the worker hands it to a runner. */
export interface TaskJob extends TaskRun {
  timeLimit: number | undefined;
  /**
   * Called by the runner when the task function begins (a pool child may hold a job a while first,
   * and says when it begins it), with the pid of the pool child running it (none inline).
   */
  onStart(childPid?: number): void;
}
