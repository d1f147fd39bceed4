/**
 * Flow-control options of a task: limits that hold across every worker of the deployment, enforced
 * by the broker when it leases a task (see docs/flow-control.md).
 */
import type { Duration } from '../duration';

/** A rate as text: `'<count>/<unit>'` (`'100/s'`, `'10/m'`, `'1000/h'`) or `'<count>/<duration>'` (`'5/10s'`). */
export type RateLimitSpec = `${number}/${string}`;

/** A function of the task's arguments that names the budget a call belongs to (a customer, an account). */
export type LimitKey = (...args: never[]) => string;

/** A rate limit with a burst and, optionally, one budget per key. */
export interface RateLimitOptions {
  /** Starts allowed per `per`. */
  limit: number;
  /**
   * The window the limit counts over.
   * @defaultValue `'1s'`
   */
  per?: Duration;
  /**
   * Starts allowed at once after a quiet spell, on top of the smoothed rate.
   * @defaultValue `1`
   */
  burst?: number;
  /** Runs on the sender with the call's arguments: each key has its own budget. */
  key?: LimitKey;
}

/** A concurrency limit, optionally one per key. */
export interface ConcurrencyOptions {
  /** Most runs of the task (of one key, with `key`) at once across every worker. */
  limit: number;
  /** Runs on the sender with the call's arguments: each key has its own slots. */
  key?: LimitKey;
}

/** While which part of a task's life a second send with the same unique key is a duplicate. */
export type UniqueWhile = 'queued' | 'running' | 'queued-or-running';

/** How a unique task is recognized, and for how long. */
export interface UniqueOptions {
  /**
   * Runs on the sender with the call's arguments and names the task: sends with the same key are one task.
   * @defaultValue the task name and its arguments, canonically encoded
   */
  key?: LimitKey;
  /**
   * `'queued'`: a duplicate while the first waits; `'running'`: while it runs; or both.
   * @defaultValue `'queued-or-running'`
   */
  while?: UniqueWhile;
  /**
   * The lock's longest life, in case a task lives longer than expected.
   * @defaultValue `'1h'`
   */
  ttl?: Duration;
}

/** The flow-control fields of {@link TaskOptions}. */
export interface FlowOptions {
  /**
   * Most starts per window across every worker: `'100/s'`, or an object with a burst and a key. A
   * task over its budget is held (not failed) and leased again when its token is due.
   */
  rateLimit?: RateLimitSpec | RateLimitOptions;
  /**
   * Most runs at once across every worker: a number, or an object with a key. A task without a
   * free slot is held aside and becomes ready when a run of its scope ends.
   */
  concurrency?: number | ConcurrencyOptions;
  /**
   * A second send with the same key while the first is queued or running (see `while`) creates no
   * task: its handle is the first's (`await r.sent`, then `r.id` is the first's and `r.deduplicated`
   * is true). `true`: the key is the task name and its arguments.
   */
  unique?: true | UniqueOptions;
  /**
   * The first send of a call runs; later sends with the same key within the window (from the first)
   * create no task and get the first's handle (`r.deduplicated`). A duration, or `{ window, key }`
   * (by default the key is the task name and its arguments, as for `unique: true`).
   */
  throttle?: Duration | ThrottleOptions;
  /**
   * Sends with the same key (by default the task name alone) within the window of each other
   * collapse into one run with the last send's arguments, `window` after the last send. Every
   * handle gets that run's result; those of the collapsed sends have `r.deduplicated` set. A
   * duration, or `{ window, key }`.
   */
  debounce?: Duration | DebounceOptions;
}

/** A throttle window, optionally keyed. */
export interface ThrottleOptions {
  /** How long after a run's send later sends of its key are dropped. */
  window: Duration;
  /** Runs on the sender with the call's arguments and names the calls that share a window. */
  key?: LimitKey;
}

/** A debounce window, optionally keyed. */
export interface DebounceOptions {
  /** How long after the last send of a key its one run starts; a send within it moves the run. */
  window: Duration;
  /**
   * Runs on the sender with the call's arguments and names the calls that collapse together.
   * @defaultValue the task name alone: every send of the task collapses into one run
   */
  key?: LimitKey;
}
