/**
 * The limits a task message carries, computed where the message is built (key functions run there),
 * so a broker enforces them without running user code or decoding the message.
 */

/** A rate budget: `limit` starts per `per` ms, up to `burst` at once, shared by every call of `key`. */
export interface RateBudget {
  limit: number;
  /** Window in ms. */
  per: number;
  burst: number;
  /** The budget's scope: the task name, or the task name, `:` and the call's key. */
  key: string;
}

/** A concurrency budget: at most `limit` runs at once of every call with this `key`. */
export interface ConcurrencyBudget {
  limit: number;
  /** The slots' scope: the task name, or the task name, `:` and the call's key. */
  key: string;
}

/**
 * A unique task's lock: its key (task name, `:`, then the key or a hash of the arguments), mode and
 * life. `'window'` is a throttle: the lock holds for its ttl, whatever became of its task.
 */
export interface UniqueLock {
  key: string;
  while: 'queued' | 'running' | 'queued-or-running' | 'window';
  /** The lock's longest life, in ms. */
  ttl: number;
}

/**
 * A debounced send: its key (task name, or task name, `:` and the key) and window. While a task of
 * the key waits out its window, a send of the key replaces that task's message and moves its start.
 */
export interface DebounceWindow {
  key: string;
  /** The window, in ms. */
  window: number;
}

/** The flow-control limits of one message. */
export interface MessageLimits {
  /** The task name, under which a rate limit changed at run time is found. */
  task: string;
  rate?: RateBudget;
  concurrency?: ConcurrencyBudget;
  unique?: UniqueLock;
  debounce?: DebounceWindow;
}

/** A rate without its scope: what `app.control.rateLimit` sets for every scope of a task. */
export type RateSetting = Omit<RateBudget, 'key'>;
