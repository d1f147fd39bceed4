/** When a failed run is retried, and after how long: fixed or exponential backoff, capped, with optional jitter. */
import { MaxRetriesExceededError, type ErrorMatcher, type TaskOptions } from '@celeriac/core';
import { RetryRequest, TASK_DEFAULTS, toMilliseconds } from '@celeriac/core/internal';

/** The verdict on a failed run. */
export type RetryDecision = { retry: true; delay: number; error: unknown } | { retry: false; error: unknown };

/** What the policy needs to know about the run. */
export interface RetryInput {
  error: unknown;
  taskName: string;
  options: Readonly<TaskOptions>;
  /** Retries already done. */
  retries: number;
  /** The retry limit for this run. */
  maxRetries: number;
  /** Errors that must never be retried (e.g. a result that cannot be serialized). */
  final?: boolean;
  random?: () => number;
}

/** Decides whether a failed run is retried, and the delay. */
export function decideRetry(input: RetryInput): RetryDecision {
  const { error, options, retries, maxRetries } = input;
  if (error instanceof RetryRequest) {
    const cause = error.options.cause;
    if (retries >= maxRetries)
      return { retry: false, error: cause ?? new MaxRetriesExceededError(input.taskName, retries) };
    const delay =
      error.options.countdown !== undefined
        ? toMilliseconds(error.options.countdown, 'retry countdown')
        : backoffDelay(options, retries + 1, input.random);
    return { retry: true, delay, error: cause ?? error };
  }
  if (input.final || retries >= maxRetries || !matches(options.autoretryFor, error)) return { retry: false, error };
  return { retry: true, delay: backoffDelay(options, retries + 1, input.random), error };
}

/** The delay before retry number `attempt` (1 for the first retry). */
export function backoffDelay(
  options: Readonly<TaskOptions>,
  attempt: number,
  random: () => number = Math.random,
): number {
  const base = toMilliseconds(options.retryDelay ?? TASK_DEFAULTS.retryDelay, 'retryDelay');
  const cap = toMilliseconds(options.backoffMax ?? TASK_DEFAULTS.backoffMax, 'backoffMax');
  const raw = (options.backoff ?? TASK_DEFAULTS.backoff) === 'exponential' ? base * 2 ** (attempt - 1) : base;
  const delay = Math.min(raw, cap);
  return (options.jitter ?? TASK_DEFAULTS.jitter) ? Math.round(random() * delay) : delay;
}

function matches(matchers: readonly ErrorMatcher[] | undefined, error: unknown): boolean {
  if (!matchers) return true;
  return matchers.some((matcher) =>
    typeof matcher === 'string' ? error instanceof Error && error.name === matcher : error instanceof matcher,
  );
}
