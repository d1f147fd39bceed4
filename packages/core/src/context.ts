/**
 * The running task's context, reachable anywhere in the task's call tree through `currentTask()`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Duration } from './duration';
import { CeleriacError } from './errors';
import type { TaskState } from './states';

/** Options of `currentTask().retry()`. */
export interface RetryOptions {
  /** Wait this long before the retry; defaults to the task's backoff policy. */
  countdown?: Duration;
  /** The error that caused the retry; reported in the RETRY state and, when retries run out, as the failure. */
  cause?: unknown;
}

/** What a running task can know and do about itself. */
export interface TaskContext {
  /** The task id. */
  readonly id: string;
  /** The registered task name. */
  readonly name: string;
  readonly args: readonly unknown[];
  /** How many times this task was retried before this run. */
  readonly retries: number;
  /** The most retries allowed for this run. */
  readonly maxRetries: number;
  /** 1 on first delivery; higher when a worker was lost while running it. */
  readonly deliveries: number;
  readonly queue: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly parentId: string | undefined;
  readonly rootId: string | undefined;
  /** Aborts on the soft time limit, the hard time limit, a revoke with terminate, or worker shutdown timeout. */
  readonly signal: AbortSignal;
  /** Reports progress: stores the custom state `PROGRESS` with `meta`, readable through `AsyncResult.info()`. */
  progress(meta: unknown): Promise<void>;
  /** Stores a custom state (e.g. `'UPLOADING'`) with metadata. */
  setState(state: TaskState, meta?: unknown): Promise<void>;
  /** Ends this run and schedules a retry; never returns. Counts against the task's `retries`. */
  retry(options?: RetryOptions): never;
}

/** Thrown by `currentTask().retry()`; the worker turns it into a retry. */
export class RetryRequest extends Error {
  constructor(readonly options: RetryOptions) {
    super('Task asked to retry');
    this.name = 'RetryRequest';
  }
}

const storage = new AsyncLocalStorage<TaskContext>();

/** The task of a process that runs only it (see {@link runAsSoleTask}). */
let soleTask: TaskContext | undefined;

/**
 * The context of the task running in this async call tree.
 * @throws CeleriacError `CELERIAC_NO_TASK_CONTEXT` outside a task run by a worker.
 */
export function currentTask(): TaskContext {
  const context = storage.getStore() ?? soleTask;
  if (!context) {
    throw new CeleriacError(
      'CELERIAC_NO_TASK_CONTEXT',
      'currentTask() was called outside a running task. Call it from a task function run by a worker (not from a ' +
        'direct call of the handle).',
    );
  }
  return context;
}

/** The running task's context, or undefined outside a task. */
export function maybeCurrentTask(): TaskContext | undefined {
  return storage.getStore() ?? soleTask;
}

/**
 * Runs `fn` with `context` as the current task of the whole process, from now until it exits: for a
 * process that runs one task and no other (a `fork` pool child), where everything that runs is part
 * of it. It spares that process the AsyncLocalStorage of {@link runWithTaskContext}, whose first
 * use loads and switches on Node's async hooks (~0.5 ms of a child that lives ~25 ms).
 */
export function runAsSoleTask<T>(context: TaskContext, fn: () => T): T {
  soleTask = context;
  return fn();
}

/** Task functions started through {@link runWithTaskContext} that have not settled yet. */
let runningTasks = 0;
/** A check whether to switch the storage off is queued. */
let disableQueued = false;

/**
 * Runs `fn` with `context` as the current task. Used by workers.
 *
 * While a store is enabled, Node runs a hook for every promise the process creates (in Node 20,
 * a visible share of a short task's cost in the worker, the sender and the Redis client alike).
 * So the storage is enabled only while some task function is running, and switched off once none
 * is; no context can be lost then, since none is current. The switch-off waits for the current
 * microtasks: switching costs ~2 us, and a worker starting a batch of short tasks in one go would
 * otherwise switch twice per task.
 */
export function runWithTaskContext<T>(context: TaskContext, fn: () => T): T {
  runningTasks += 1;
  let result: T;
  try {
    result = storage.run(context, fn);
  } catch (error) {
    taskSettled();
    throw error;
  }
  if (isThenable(result)) {
    // Through a promise: it settles once, even for a thenable that calls back twice.
    Promise.resolve(result).then(taskSettled, taskSettled);
  } else {
    taskSettled();
  }
  return result;
}

function taskSettled(): void {
  runningTasks -= 1;
  if (runningTasks > 0 || disableQueued) return;
  disableQueued = true;
  queueMicrotask(() => {
    disableQueued = false;
    if (runningTasks === 0) storage.disable();
  });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
