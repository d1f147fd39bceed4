/**
 * Celeriac's errors: one base class with a string `code`, and subclasses only where callers branch.
 */

/** Every code a Celeriac error can carry. */
export type CeleriacErrorCode =
  | 'CELERIAC_INVALID_OPTION'
  | 'CELERIAC_INVALID_DURATION'
  | 'CELERIAC_DUPLICATE_TASK'
  | 'CELERIAC_UNKNOWN_TASK'
  | 'CELERIAC_SERIALIZATION'
  | 'CELERIAC_MESSAGE_TOO_LARGE'
  | 'CELERIAC_INVALID_MESSAGE'
  | 'CELERIAC_RECORD_REFUSED'
  | 'CELERIAC_BAD_SIGNATURE'
  | 'CELERIAC_SIGNATURE_EXPIRED'
  | 'CELERIAC_NO_PERMISSION'
  | 'CELERIAC_TASK_FAILED'
  | 'CELERIAC_TASK_REVOKED'
  | 'CELERIAC_TIMEOUT'
  | 'CELERIAC_SOFT_TIME_LIMIT'
  | 'CELERIAC_TIME_LIMIT_EXCEEDED'
  | 'CELERIAC_MAX_RETRIES_EXCEEDED'
  | 'CELERIAC_WORKER_LOST'
  | 'CELERIAC_BROKER_UNAVAILABLE'
  | 'CELERIAC_NOT_REPLICATED'
  | 'CELERIAC_PUBLISH_REFUSED'
  | 'CELERIAC_QUEUE_MISMATCH'
  | 'CELERIAC_NO_TASK_CONTEXT'
  | 'CELERIAC_NO_TASKS'
  | 'CELERIAC_NOT_A_TASK'
  | 'CELERIAC_UNSUPPORTED_URL'
  | 'CELERIAC_UNSUPPORTED_BY_TRANSPORT'
  | 'CELERIAC_INVALID_STATE'
  | 'CELERIAC_APP_MODULE'
  | 'CELERIAC_CLOSED'
  | 'CELERIAC_INVALID_SCHEDULE'
  | 'CELERIAC_INVALID_CANVAS'
  | 'CELERIAC_CHORD_FAILED'
  | 'CELERIAC_DEPENDENCY_FAILED'
  | 'CELERIAC_NO_REPLY'
  | 'CELERIAC_NO_EVENT_LOG'
  | 'CELERIAC_NO_FAILED_REGISTRY'
  | 'CELERIAC_UNSUPPORTED_CONTENT';

/** Base class of every error Celeriac throws; branch on `code`. */
export class CeleriacError extends Error {
  /** A stable, machine-readable identifier of what went wrong. */
  readonly code: CeleriacErrorCode;

  constructor(code: CeleriacErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** The shape of an error as it travels between processes. */
export interface RemoteError {
  /** The error's class name on the worker, e.g. `TypeError`. */
  name: string;
  message: string;
  stack?: string;
  /** The error's own `code` property, when it had one. */
  code?: string;
  /** The name its class was registered under (`app.registerError`), when it was. */
  type?: string;
  /** The error's own fields, encoded by the codec, when its class was registered. */
  fields?: string;
}

/** Thrown by `AsyncResult.get()` (and `await result`) when the task ended in FAILURE. */
export class TaskFailedError extends CeleriacError {
  /** The error the task raised, as the worker reported it. */
  readonly remote: RemoteError;
  /** The id of the failed task (of the awaited task, when an earlier workflow step failed). */
  readonly taskId: string;
  /** The earlier workflow step that raised `remote`, when this task did not run because of it. */
  readonly failedStep: { id: string; task: string } | undefined;

  /**
   * `cause` is the task's error as the caller rebuilt it: an instance of its class when the app
   * registered that class (`app.registerError`), else an `Error` with the remote name and message.
   */
  constructor(
    taskId: string,
    taskName: string | undefined,
    remote: RemoteError,
    failedStep?: { id: string; task: string },
    cause?: Error,
  ) {
    const label = taskName ? `${taskName}[${taskId}]` : taskId;
    const message = failedStep
      ? `Task ${failedStep.task}[${failedStep.id}] failed: ${remote.name}: ${remote.message} (so ${label}, after it ` +
        `in the workflow, did not run)`
      : `Task ${label} failed: ${remote.name}: ${remote.message}`;
    super('CELERIAC_TASK_FAILED', message, { cause: cause ?? reviveRemoteError(remote) });
    this.remote = remote;
    this.taskId = taskId;
    this.failedStep = failedStep;
  }
}

/** Thrown by `AsyncResult.get()` when the task was revoked (or expired) before it finished. */
export class TaskRevokedError extends CeleriacError {
  constructor(
    readonly taskId: string,
    readonly reason: string,
  ) {
    super('CELERIAC_TASK_REVOKED', `Task ${taskId} was revoked (${reason}); it will not run.`);
  }
}

/** Thrown when waiting for a result took longer than the given timeout. */
export class TimeoutError extends CeleriacError {
  constructor(message: string) {
    super('CELERIAC_TIMEOUT', message);
  }
}

/** An argument, result or error could not be serialized; the message names where. */
export class SerializationError extends CeleriacError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('CELERIAC_SERIALIZATION', message, options);
  }
}

/**
 * A message a worker reserved has a field it cannot use (a message written into Redis by something
 * other than Celeriac's own calls, which check every field). It is dead-lettered at once.
 */
export class InvalidMessageError extends CeleriacError {
  /** What is wrong, naming the field: `flow.then must be a list of workflow nodes, not "x"`. */
  readonly problem: string;

  constructor(problem: string) {
    super(
      'CELERIAC_INVALID_MESSAGE',
      `Invalid message: ${problem}. Messages sent through Celeriac's calls are checked when sent; look for a ` +
        `producer that writes to the queue directly.`,
    );
    this.problem = problem;
  }
}

/**
 * The result backend refused some records of a batch and stored the others: one task's bad record
 * (a TTL Redis will not take, a value that does not encode) fails that task's settle, not the batch.
 */
export class RecordsRefusedError extends CeleriacError {
  /** Why each refused task's record was not stored, by task id. */
  readonly refused: ReadonlyMap<string, Error>;

  constructor(refused: ReadonlyMap<string, Error>) {
    const [first] = refused;
    const detail = first ? `task ${first[0]}: ${first[1].message}` : 'none';
    super(
      'CELERIAC_RECORD_REFUSED',
      `The result backend refused ${refused.size} record(s) (${detail}); the other records were stored. Check the ` +
        `task's resultTtl and what it stores.`,
    );
    this.refused = refused;
  }

  /** The error of task `id`'s records alone, or undefined when they were stored. */
  of(id: string): RecordsRefusedError | undefined {
    const error = this.refused.get(id);
    return error === undefined ? undefined : new RecordsRefusedError(new Map([[id, error]]));
  }
}

/** A message names a task that this process has not registered. */
export class UnknownTaskError extends CeleriacError {
  constructor(readonly taskName: string) {
    super(
      'CELERIAC_UNKNOWN_TASK',
      `No task named "${taskName}" is registered here. Check the name, and that the worker loads the module that ` +
        `defines it.`,
    );
  }
}

/** Raised inside a task (through its signal and the task's promise) when its soft time limit passes. */
export class SoftTimeLimitError extends CeleriacError {
  constructor(limitMs: number) {
    super('CELERIAC_SOFT_TIME_LIMIT', `Soft time limit of ${limitMs} ms exceeded; clean up and return.`);
  }
}

/**
 * The task ran past its hard time limit and was stopped, or (in the inline pool, which cannot stop
 * synchronous code) returned only after it: its result is discarded.
 */
export class TimeLimitExceededError extends CeleriacError {
  constructor(limitMs: number, tookMs?: number) {
    super(
      'CELERIAC_TIME_LIMIT_EXCEEDED',
      tookMs === undefined
        ? `Hard time limit of ${limitMs} ms exceeded; the task was stopped.`
        : `Hard time limit of ${limitMs} ms exceeded: the task returned after ${Math.round(tookMs)} ms, and its ` +
            `result was discarded. The inline pool cannot interrupt synchronous code; run such tasks with --pool ` +
            `prefork or fork.`,
    );
  }
}

/** A task asked to retry (or failed with autoretry) once more than its `retries` allow. */
export class MaxRetriesExceededError extends CeleriacError {
  constructor(taskName: string, retries: number) {
    super(
      'CELERIAC_MAX_RETRIES_EXCEEDED',
      `Task ${taskName} asked to retry, but it already retried ${retries} time(s), its limit. Raise the task's ` +
        `"retries" option to allow more.`,
    );
  }
}

/** The process running a task died, or the task was delivered more often than `maxDeliveries`. */
export class WorkerLostError extends CeleriacError {
  constructor(message: string) {
    super('CELERIAC_WORKER_LOST', message);
  }
}

/**
 * The error stored for a chord's callback (and the steps after it) when a header task failed; the
 * callback does not run. The message names the failed task.
 */
export class ChordError extends CeleriacError {
  constructor(message: string) {
    super('CELERIAC_CHORD_FAILED', message);
  }
}

/** The error of a task whose `dependsOn` task failed or was revoked; the task does not run. */
export class DependencyFailedError extends CeleriacError {
  constructor(message: string) {
    super('CELERIAC_DEPENDENCY_FAILED', message);
  }
}

/** The broker could not be reached within the retry budget. */
export class BrokerUnavailableError extends CeleriacError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('CELERIAC_BROKER_UNAVAILABLE', message, options);
  }
}

/** The error a wait for a result ends with when the app closes (the task itself is unaffected). */
export function closedWhileWaiting(): CeleriacError {
  return new CeleriacError(
    'CELERIAC_CLOSED',
    'The app was closed while waiting for this result; the task itself is unaffected.',
  );
}

/** Turns any thrown value into the portable {@link RemoteError} shape. */
export function toRemoteError(error: unknown): RemoteError {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const remote: RemoteError = { name: error.name, message: error.message };
    if (error.stack !== undefined) remote.stack = error.stack;
    if (typeof code === 'string' || typeof code === 'number') remote.code = String(code);
    return remote;
  }
  return { name: 'NonError', message: typeof error === 'string' ? error : safeString(error) };
}

/** Rebuilds an `Error` carrying the remote name, message, stack and code. */
export function reviveRemoteError(remote: RemoteError): Error {
  const error = new Error(remote.message) as Error & { code?: string };
  error.name = remote.name;
  if (remote.stack !== undefined) error.stack = remote.stack;
  if (remote.code !== undefined) error.code = remote.code;
  return error;
}

function safeString(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
