/**
 * Runs one task function in the current process: sets up its context (`currentTask()`), its abort
 * signal and time limits, and reduces whatever happens to an {@link ExecutionResult}.
 */
import { SoftTimeLimitError, TimeLimitExceededError, type RetryOptions, type TaskContext } from '@celeriac/core';
import {
  clearLongTimeout,
  runAsSoleTask,
  setLongTimeout,
  runWithTaskContext,
  RetryRequest,
  type LongTimeout,
} from '@celeriac/core/internal';
import { monotonicMs } from './pool/child-clock';
import type { TaskRun } from './task-job';

/** How one run ended. */
export type ExecutionResult =
  { kind: 'success'; value: unknown } | { kind: 'failure'; error: unknown; timedOut: boolean };

/** What one run needs. */
export type ExecuteInput = TaskRun;

/** Runs the task; never throws. */
export function execute(input: ExecuteInput): Promise<ExecutionResult> {
  const { message, definition, softTimeLimit, timeLimit } = input;
  const context = createContext(input);
  // Read before the function starts: synchronous code runs to its end before any timer can fire.
  const began = timeLimit === undefined ? 0 : monotonicMs();
  const run = (async (): Promise<ExecutionResult> => {
    try {
      const runWithContext = input.soleInProcess ? runAsSoleTask : runWithTaskContext;
      const value = await runWithContext(context, () => definition.fn(...message.args));
      return { kind: 'success', value };
    } catch (error) {
      return { kind: 'failure', error, timedOut: false };
    }
  })();
  // Most tasks have no time limit: their run is the result, with no wrapper to wait through.
  if (softTimeLimit === undefined && timeLimit === undefined) return run;
  return withTimeLimits(input, run, began);
}

/** Arms the soft and hard time limits around a run. */
async function withTimeLimits(
  input: ExecuteInput,
  run: Promise<ExecutionResult>,
  began: number,
): Promise<ExecutionResult> {
  const { softTimeLimit, timeLimit, stop } = input;
  let soft: LongTimeout | undefined;
  let hard: LongTimeout | undefined;
  if (softTimeLimit !== undefined)
    soft = setLongTimeout(() => stop.abort(new SoftTimeLimitError(softTimeLimit)), softTimeLimit);
  const hardLimit =
    timeLimit === undefined
      ? undefined
      : new Promise<ExecutionResult>((resolve) => {
          hard = setLongTimeout(() => {
            const error = new TimeLimitExceededError(timeLimit);
            stop.abort(error);
            resolve({ kind: 'failure', error, timedOut: true });
          }, timeLimit);
        });
  try {
    // An inline run cannot be killed: past the hard limit it is abandoned (its signal has aborted).
    const result = await (hardLimit ? Promise.race([run, hardLimit]) : run);
    // Code that never yielded kept the timer from firing: a run that returned late still failed.
    if (timeLimit === undefined || (result.kind === 'failure' && result.timedOut)) return result;
    const took = monotonicMs() - began;
    return took >= timeLimit
      ? { kind: 'failure', error: new TimeLimitExceededError(timeLimit, took), timedOut: true }
      : result;
  } finally {
    clearLongTimeout(soft);
    clearLongTimeout(hard);
  }
}

function createContext(input: ExecuteInput): TaskContext {
  const { message, stop } = input;
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
    get signal() {
      return stop.signal;
    },
    progress: (meta) => input.report('PROGRESS', meta),
    setState: (state, meta) => input.report(state, meta),
    retry: (options: RetryOptions = {}) => {
      throw new RetryRequest(options);
    },
  };
}
