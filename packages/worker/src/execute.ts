/**
 * Runs one task function in the current process: sets up its context (`currentTask()`), its abort
 * signal and time limits, and reduces whatever happens to an {@link ExecutionResult}.
 */
import {
  runWithTaskContext,
  RetryRequest,
  SoftTimeLimitError,
  TimeLimitExceededError,
  type RetryOptions,
  type TaskContext,
  type TaskDefinition,
  type TaskMessage,
  type TaskState,
} from '@celeriac/core';

/** How one run ended. */
export type ExecutionResult =
  | { kind: 'success'; value: unknown }
  | { kind: 'failure'; error: unknown; timedOut: boolean };

/** What one run needs. */
export interface ExecuteInput {
  message: TaskMessage;
  definition: TaskDefinition;
  deliveries: number;
  maxRetries: number;
  /** Aborts the run from outside (revoke with terminate, shutdown). */
  stop: AbortSignal;
  softTimeLimit: number | undefined;
  timeLimit: number | undefined;
  /** Stores a state change of this task (progress, custom states). */
  report(state: TaskState, meta: unknown): Promise<void>;
}

/** Runs the task; never throws. */
export async function execute(input: ExecuteInput): Promise<ExecutionResult> {
  const { message, definition, softTimeLimit, timeLimit } = input;
  const controller = new AbortController();
  const abort = (reason: unknown) => {
    if (!controller.signal.aborted) controller.abort(reason);
  };
  const onStop = () => abort(input.stop.reason);
  input.stop.addEventListener('abort', onStop, { once: true });
  const timers: NodeJS.Timeout[] = [];
  if (softTimeLimit !== undefined) timers.push(setTimeout(() => abort(new SoftTimeLimitError(softTimeLimit)), softTimeLimit));
  let onHardLimit: (error: TimeLimitExceededError) => void = () => undefined;
  const hardLimit = new Promise<ExecutionResult>((resolve) => {
    onHardLimit = (error) => resolve({ kind: 'failure', error, timedOut: true });
  });
  if (timeLimit !== undefined) {
    timers.push(
      setTimeout(() => {
        const error = new TimeLimitExceededError(timeLimit);
        abort(error);
        onHardLimit(error);
      }, timeLimit),
    );
  }
  const context = createContext(input, controller.signal);
  const run = (async (): Promise<ExecutionResult> => {
    try {
      const value = await runWithTaskContext(context, () => definition.fn(...message.args));
      return { kind: 'success', value };
    } catch (error) {
      return { kind: 'failure', error, timedOut: false };
    }
  })();
  try {
    // An inline run cannot be killed: past the hard limit it is abandoned (its signal has aborted).
    return await Promise.race([run, hardLimit]);
  } finally {
    for (const timer of timers) clearTimeout(timer);
    input.stop.removeEventListener('abort', onStop);
  }
}

function createContext(input: ExecuteInput, signal: AbortSignal): TaskContext {
  const { message } = input;
  return {
    id: message.id,
    name: message.task,
    args: message.args,
    retries: message.retries,
    maxRetries: input.maxRetries,
    deliveries: input.deliveries,
    queue: message.queue,
    headers: message.headers,
    parentId: message.parentId,
    rootId: message.rootId,
    signal,
    progress: (meta) => input.report('PROGRESS', meta),
    setState: (state, meta) => input.report(state, meta),
    retry: (options: RetryOptions = {}) => {
      throw new RetryRequest(options);
    },
  };
}
