/**
 * Waiting helpers for tests: wait on an event or a condition, never for a fixed time to paper over
 * a race.
 */

/** A promise with its resolve and reject exposed, for awaiting an event from a test. */
export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

/** Creates a {@link Deferred}. */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Resolves once `Date.now()` has passed `time` (epoch ms): waiting for a deadline, not sleeping. */
export async function untilPast(time: number): Promise<void> {
  while (Date.now() <= time) {
    await new Promise((resolve) => setTimeout(resolve, time - Date.now() + 1));
  }
}

/**
 * Runs `fn` with a signal that aborts after `ms`, so a wait that never ends fails the test quickly
 * instead of hanging it; the test asserts `signal.aborted` is false when the wait was meant to end by itself.
 */
export async function withDeadline<T>(ms: number, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`deadline of ${ms} ms passed`)), ms);
  try {
    return await fn(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves with what `pending` settled to, or with `'pending'` if it is still pending after `ms`. */
export async function settledWithin<T>(pending: Promise<T>, ms: number): Promise<{ value: T } | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), ms)));
  try {
    return await Promise.race([pending.then((value) => ({ value })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
