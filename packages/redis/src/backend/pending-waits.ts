/**
 * The results this client awaits, by task id. A sender may hold 100,000 of them at once, so a wait is
 * one small object with its promise's two functions (no closures, no Set per task), and the waits
 * begun in one tick are checked together (one subscription check, one multi-key read) by the backend.
 */
import type { TaskRecord } from '@celeriac/core';
import { WaitsById } from './waits-by-id';

/** One pending `waitFor`. */
export class PendingWait {
  /** True once it was counted as a wait for a task sent elsewhere (see RedisBackend). */
  counted = false;
  /** True once resolved or rejected. */
  done = false;
  resolve!: (record: TaskRecord) => void;
  reject!: (error: unknown) => void;
  /** Ends the wait when `signal` aborts; set only when there is a signal. */
  onAbort: (() => void) | undefined;
  readonly promise: Promise<TaskRecord>;

  constructor(
    readonly id: string,
    /** Not sent by this client: its notice comes on the shared done channel, as an id to read. */
    readonly foreign: boolean,
    readonly sentAt: number | undefined,
    readonly signal: AbortSignal | undefined,
  ) {
    this.promise = new Promise<TaskRecord>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }
}

/** The pending waits by task id (usually one per task). */
export class PendingWaits {
  private readonly byId = new WaitsById<PendingWait>();

  /** Adds a wait; it leaves again when it settles. */
  add(wait: PendingWait): void {
    this.byId.add(wait.id, wait);
    if (wait.signal) {
      wait.onAbort = () => this.fail(wait, wait.signal?.reason);
      wait.signal.addEventListener('abort', wait.onAbort, { once: true });
    }
  }

  /** True when some wait for `id` is pending. */
  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** True while some wait is pending. */
  any(): boolean {
    return this.byId.size > 0;
  }

  /** The ids with a pending wait. */
  ids(): string[] {
    return this.byId.ids();
  }

  /** Resolves every wait for the record's task. */
  resolveAll(record: TaskRecord): void {
    for (const wait of this.byId.get(record.id)) this.resolve(wait, record);
  }

  /** Resolves one wait. */
  resolve(wait: PendingWait, record: TaskRecord): void {
    if (this.remove(wait)) wait.resolve(record);
  }

  /** Rejects one wait. */
  fail(wait: PendingWait, error: unknown): void {
    if (this.remove(wait)) wait.reject(error);
  }

  /** Rejects every wait. */
  failAll(error: unknown): void {
    for (const wait of this.byId.all()) this.fail(wait, error);
  }

  /** Takes a wait out; false when it had settled already. */
  private remove(wait: PendingWait): boolean {
    if (wait.done) return false;
    wait.done = true;
    if (wait.onAbort) wait.signal?.removeEventListener('abort', wait.onAbort);
    this.byId.delete(wait.id, wait);
    return true;
  }
}
