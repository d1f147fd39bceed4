/** Small task bodies and probes shared by the end-to-end tests. */
import { currentTask } from 'celeriac';
import { deferred, type Deferred } from '@celeriac/core/testing';

/** A task body that blocks until released, reporting when it started: for observing running tasks. */
export interface Blocker<T> {
  /** Resolves with the task id once a run has started. */
  readonly started: Promise<string>;
  /** Lets every blocked run finish with `value`. */
  release(value: T): void;
  /** The task function. */
  readonly fn: () => Promise<T>;
}

/** Creates a {@link Blocker}. */
export function blocker<T = string>(): Blocker<T> {
  const started = deferred<string>();
  const gate: Deferred<T> = deferred<T>();
  return {
    started: started.promise,
    release: (value) => gate.resolve(value),
    fn: async () => {
      started.resolve(currentTask().id);
      return gate.promise;
    },
  };
}

/** An error with a `code` property, as libraries throw them. */
export class CodedError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'CodedError';
  }
}

/** A function that throws `error` on its first `failures` calls, then returns `value`; counts calls. */
export function flaky<T>(failures: number, value: T, error: () => unknown = () => new Error('flaky')) {
  const fn = async (): Promise<T> => {
    fn.calls += 1;
    if (fn.calls <= failures) throw error();
    return value;
  };
  fn.calls = 0;
  return fn;
}
