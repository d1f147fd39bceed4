/**
 * Runs a task function and turns what happened into a {@link TaskOutcome}: the value, a retry with
 * its delay, or a failure. It runs where the function runs (the worker process, or a pool child),
 * because only there are the real error objects at hand for `autoretryFor` and the hooks.
 */
import { type Codec, type RemoteError } from '@celeriac/core';
import { describeError } from '@celeriac/core/internal';
import { execute } from './execute';
import { decideRetry } from './retry-policy';
import { withTraceparent } from './tracing/with-traceparent';
import type { TaskRun } from './task-job';

export type { TaskJob, TaskRun } from './task-job';

/** How a run ended, as the worker settles it. */
export type TaskOutcome =
  | { kind: 'success'; value: unknown; json?: undefined }
  /** A pool child's plain result as JSON text: stored as it is, parsed only where the value is needed. */
  | { kind: 'success'; json: string; value?: undefined }
  | { kind: 'retry'; delay: number; error: RemoteError }
  | { kind: 'failure'; error: RemoteError }
  /** The process running the task died, and the task's policy does not retry: redeliver it. */
  | { kind: 'lost'; error: RemoteError };

/** The value of a successful run. */
export function successValue(outcome: Extract<TaskOutcome, { kind: 'success' }>): unknown {
  return outcome.json === undefined ? outcome.value : JSON.parse(outcome.json);
}

/** Reports a failure of a hook without changing the outcome. */
export type HookErrorHandler = (hook: string, error: unknown) => void;

/** Runs the task and its hooks; never throws. */
export async function runTask(job: TaskRun, codec: Codec, onHookError: HookErrorHandler): Promise<TaskOutcome> {
  const { message, definition } = job;
  const options = definition.options;
  const result = await withTraceparent(job.traceparent, () => execute(job));
  let error: unknown;
  let final = false;
  if (result.kind === 'success') {
    try {
      codec.assertSerializable(result.value, () => `the result of ${message.task}`);
      // Most tasks have no hooks: a call through callHook would still cost a promise per run.
      if (options.onSuccess)
        await callHook('onSuccess', onHookError, () => options.onSuccess?.(result.value, message.id));
      return { kind: 'success', value: result.value };
    } catch (serializationError) {
      // It would fail the same way again: not worth a retry.
      error = serializationError;
      final = true;
    }
  } else {
    error = result.error;
  }
  const decision = decideRetry({
    error,
    taskName: message.task,
    options,
    retries: message.retries,
    maxRetries: job.maxRetries,
    final,
  });
  if (decision.retry) {
    await callHook('onRetry', onHookError, () => options.onRetry?.(decision.error, message.id));
    return { kind: 'retry', delay: decision.delay, error: describeError(decision.error, codec) };
  }
  await callHook('onFailure', onHookError, () => options.onFailure?.(decision.error, message.id));
  return { kind: 'failure', error: describeError(decision.error, codec) };
}

async function callHook(
  hook: string,
  onHookError: HookErrorHandler,
  call: () => void | Promise<void> | undefined,
): Promise<void> {
  try {
    await call();
  } catch (error) {
    onHookError(hook, error);
  }
}
