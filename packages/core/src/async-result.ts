/**
 * AsyncResult: the handle of a sent task. It is a promise of the task's value (`await result`) and a
 * query object (`state()`, `info()`, `revoke()`...). Waiting is a backend notification, not polling.
 */
import type { ResultBackend, TaskRecord } from './backend';
import type { TerminateSignal } from './broker';
import { toMilliseconds, type Duration } from './duration';
import { CeleriacError, TimeoutError } from './errors';
import { whileKeptAlive } from './internal/keep-alive';
import { setLongTimeout } from './internal/long-timeout';
import type { Codec } from './codec';
import { outcomeOf } from './record-outcome';
import { isReadyState, type TaskState } from './states';

/** What an AsyncResult needs from its app. */
export interface ResultSource {
  /** The result backend (created on first use). */
  readonly backend: ResultBackend;
  /** Revokes a task by id. */
  revoke(id: string, options?: RevokeOptions): Promise<void>;
  /** The app's codec: it rebuilds the errors of registered classes. */
  readonly codec: Codec;
}

/** A handle on a previous step: a task's result, or a group's (`GroupResult`). */
export interface ParentResult {
  readonly id: string;
  readonly parent: ParentResult | undefined;
  readonly sent: Promise<void>;
}

/** Options of `AsyncResult.revoke()`. */
export interface RevokeOptions {
  /**
   * Also stop the task if it is running: its `signal` aborts at once, and in the `prefork` and
   * `fork` pools the child still running it after `grace` is killed with `signal` (the pool starts
   * a new one). The inline pool can only abort the signal. The task ends REVOKED (`terminated`).
   */
  terminate?: boolean;
  /**
   * With `terminate`: the signal that kills a pool child still running the task.
   * @defaultValue `'SIGTERM'`
   */
  signal?: TerminateSignal;
  /**
   * With `terminate`: how long the task may run on after its `signal` aborted before its pool child
   * is killed (`0`: at once).
   * @defaultValue `'1s'`
   */
  grace?: Duration;
}

/** Options of `AsyncResult.get()`. */
export interface GetOptions {
  /** Give up after this long with a TimeoutError. Waits forever when absent. */
  timeout?: Duration;
  /**
   * Throw the task's failure (TaskFailedError) or revocation (TaskRevokedError); when false, return it.
   * @defaultValue `true`
   */
  propagate?: boolean;
}

/**
 * Makes `result` the handle of the unique task `id` that its send duplicated, or of the debounced
 * task `id` it collapsed into (see {@link AsyncResult.deduplicated}).
 */
export let adoptDuplicate: (result: AsyncResult<unknown>, id: string) => void;

/** The pending or finished result of one task; also a promise of the task's value. */
export class AsyncResult<T = unknown> implements PromiseLike<T> {
  static {
    adoptDuplicate = (result, id) => {
      result.#id = id;
      result.#deduplicated = true;
    };
  }

  /** Resolves once the broker accepted the message; rejects if publishing failed. */
  readonly sent: Promise<void>;
  private settled: Promise<T> | undefined;
  private readonly sentHere: boolean;
  private readonly sentAt: number;
  /** A unique or debounced task's send may turn out a duplicate: its id is known once `sent` resolves. */
  private readonly unique: boolean;
  #id: string;
  #deduplicated = false;

  constructor(
    private readonly source: ResultSource,
    /** The task id. */
    id: string,
    options: {
      sent?: Promise<void>;
      taskName?: string;
      sentHere?: boolean;
      /** When the task was sent (epoch ms), when before this handle was made. */
      sentAt?: number;
      parent?: ParentResult;
      unique?: boolean;
    } = {},
  ) {
    this.#id = id;
    this.unique = options.unique ?? false;
    this.parent = options.parent;
    this.sent = options.sent ?? Promise.resolve();
    this.sentHere = options.sentHere ?? options.sent !== undefined;
    this.sentAt = options.sentAt ?? Date.now();
    // A failed publish reaches whoever awaits `sent` or the result; it must never be unhandled.
    this.sent.catch(() => undefined);
    this.taskName = options.taskName;
  }

  /**
   * The task id. For a task with `unique` or `debounce`, the id it was sent with until `sent`
   * resolves, and then the id of the task that runs: the earlier one, when this send was a
   * duplicate or collapsed into a task waiting out its debounce window.
   */
  get id(): string {
    return this.#id;
  }

  /**
   * True once `sent` resolved, when this send of a `unique` task created no task because the same
   * key was queued or running, or this send of a `debounce` task collapsed into the task waiting out
   * its key's window (which now runs with this send's arguments): the handle is then the earlier
   * task's (its id, its result).
   */
  get deduplicated(): boolean {
    return this.#deduplicated;
  }

  /** The task name, when this handle was created by a call (unknown for `app.result(id)`). */
  readonly taskName: string | undefined;

  /** The step before this one in a chain (walk `parent` to the first step), when known. */
  readonly parent: ParentResult | undefined;

  /** Waits for the task's value. */
  then<A = T, B = never>(
    onfulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    this.settled ??= this.get();
    return this.settled.then(onfulfilled, onrejected);
  }

  /** Like `Promise.prototype.catch`. */
  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T | B> {
    return this.then(undefined, onrejected);
  }

  /** Like `Promise.prototype.finally`. */
  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.then().finally(onfinally);
  }

  /**
   * Waits for the task to finish and returns its value.
   * @throws TaskFailedError when the task failed, TaskRevokedError when it was revoked (unless
   * `propagate: false`), TimeoutError when `timeout` passed first.
   */
  get(options?: GetOptions & { propagate?: true }): Promise<T>;
  get(options: GetOptions & { propagate: false }): Promise<T | CeleriacError>;
  async get(options: GetOptions = {}): Promise<T | CeleriacError> {
    // Start listening while the publish is still in flight, so the wait costs no extra round trip;
    // a failed publish ends the wait with its error.
    let record: TaskRecord;
    try {
      record = await this.waitForRecord(options.timeout);
    } catch (error) {
      await this.sent; // a publish failure explains the failed wait best
      throw error;
    }
    const outcome = outcomeOf<T>(record, this.id, this.taskName, this.source.codec);
    if (outcome instanceof CeleriacError && options.propagate !== false) throw outcome;
    return outcome;
  }

  /** The current state: PENDING when nothing is known yet (or the result expired). */
  async state(): Promise<TaskState> {
    return (await this.source.backend.get(this.id))?.state ?? 'PENDING';
  }

  /** True once the task is SUCCESS, FAILURE or REVOKED. */
  async ready(): Promise<boolean> {
    return isReadyState(await this.state());
  }

  /** True once the task succeeded. */
  async successful(): Promise<boolean> {
    return (await this.state()) === 'SUCCESS';
  }

  /** True once the task failed. */
  async failed(): Promise<boolean> {
    return (await this.state()) === 'FAILURE';
  }

  /**
   * What the backend holds beside the state: progress metadata for custom states, the value for
   * SUCCESS, the error for FAILURE and RETRY; undefined while PENDING.
   */
  async info(): Promise<unknown> {
    const record = await this.source.backend.get(this.id);
    if (!record) return undefined;
    if (record.state === 'SUCCESS') return record.result;
    if (record.state === 'FAILURE' || record.state === 'RETRY') return record.error;
    return record.meta;
  }

  /** The full stored record, or undefined while PENDING. */
  record(): Promise<TaskRecord | undefined> {
    return this.source.backend.get(this.id);
  }

  /** Revokes the task: it will not run (or, with `terminate`, is aborted if running). */
  revoke(options?: RevokeOptions): Promise<void> {
    return this.source.revoke(this.id, options);
  }

  /** Deletes the stored result. */
  forget(): Promise<void> {
    return this.source.backend.forget([this.id]);
  }

  /** Waits for the final record, holding the process open meanwhile (see keep-alive.ts). */
  private waitForRecord(timeout: Duration | undefined): Promise<TaskRecord> {
    return whileKeptAlive(() => this.waitForRecordNow(timeout));
  }

  private async waitForRecordNow(timeout: Duration | undefined): Promise<TaskRecord> {
    // A unique task's id is settled by its publish; a duplicate's outcome is announced to the sender
    // of the task it duplicates, so this handle waits as a bystander.
    if (this.unique) await this.sent;
    // `until` lets the backend drop its waiter when the publish fails; the race makes the caller
    // hear of that failure from any backend, also one that ignores `until`.
    const hint = { sentHere: this.sentHere && !this.#deduplicated, sentAt: this.sentAt, until: this.sent };
    if (timeout === undefined) return this.orPublishFailure(this.source.backend.waitFor(this.id, undefined, hint));
    const ms = toMilliseconds(timeout, 'timeout');
    const controller = new AbortController();
    const timer = setLongTimeout(
      () => controller.abort(new TimeoutError(`Task ${this.id} did not finish within ${ms} ms.`)),
      ms,
    );
    try {
      return await this.orPublishFailure(this.source.backend.waitFor(this.id, controller.signal, hint));
    } finally {
      timer.clear();
    }
  }

  /** `waiting`, or the publish's error if that comes first. */
  private orPublishFailure(waiting: Promise<TaskRecord>): Promise<TaskRecord> {
    return Promise.race([waiting, new Promise<never>((_, reject) => void this.sent.catch(reject))]);
  }
}
