/**
 * Waits for many tasks at once (a group's members): one object for all of them, holding their
 * records in an array and each task's position in a map, so 100,000 awaited members cost two map
 * entries each and no promise or wait object.
 */
import { isReadyState } from '@celeriac/core/internal';
import type { TaskRecord } from '@celeriac/core';
import { WaitsById } from './waits-by-id';

/** One pending `waitForMany`. */
export class ManyWait {
  /** The records so far, in the order of the ids. */
  readonly records: Array<TaskRecord | undefined>;
  /** The position of each task still awaited. */
  readonly positions = new Map<string, number>();
  done = false;
  resolve!: (records: Array<TaskRecord | undefined>) => void;
  reject!: (error: unknown) => void;
  /** Ends the wait when `signal` aborts; set only when there is a signal. */
  onAbort: (() => void) | undefined;
  readonly promise: Promise<Array<TaskRecord | undefined>>;

  constructor(
    ids: readonly string[],
    /** When this client sent the tasks (epoch ms). */
    readonly sentAt: number | undefined,
    readonly signal: AbortSignal | undefined,
    /** Ends the wait early at a record for which it is true. */
    readonly stopOn: ((record: TaskRecord) => boolean) | undefined,
  ) {
    this.records = new Array<TaskRecord | undefined>(ids.length);
    ids.forEach((id, index) => this.positions.set(id, index));
    this.promise = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  /** The ids still awaited. */
  missing(): string[] {
    return [...this.positions.keys()];
  }
}

/** The pending many-task waits, by task id. */
export class ManyWaits {
  private readonly byId = new WaitsById<ManyWait>();

  /** Adds a wait; each task leaves it as its ready record arrives. */
  add(wait: ManyWait): void {
    for (const id of wait.positions.keys()) this.byId.add(id, wait);
    if (wait.positions.size === 0) this.settle(wait);
    const { signal } = wait;
    if (signal) {
      wait.onAbort = () => this.fail(wait, signal.reason);
      signal.addEventListener('abort', wait.onAbort, { once: true });
    }
  }

  /** True when some wait awaits `id`. */
  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** True while some wait is pending. */
  any(): boolean {
    return this.byId.size > 0;
  }

  /** The ids awaited. */
  ids(): string[] {
    return this.byId.ids();
  }

  /** Gives a record to every wait for its task (a record not in a ready state is ignored). */
  offer(record: TaskRecord): void {
    if (!isReadyState(record.state) || !this.byId.has(record.id)) return;
    for (const wait of this.byId.get(record.id)) this.take(wait, record);
  }

  /** Rejects one wait. */
  fail(wait: ManyWait, error: unknown): void {
    if (this.remove(wait)) wait.reject(error);
  }

  /** Rejects every wait. */
  failAll(error: unknown): void {
    for (const wait of this.byId.all()) this.fail(wait, error);
  }

  private take(wait: ManyWait, record: TaskRecord): void {
    const position = wait.positions.get(record.id);
    if (position === undefined || wait.done) return;
    wait.records[position] = record;
    wait.positions.delete(record.id);
    this.byId.delete(record.id, wait);
    if (wait.positions.size === 0 || wait.stopOn?.(record) === true) this.settle(wait);
  }

  private settle(wait: ManyWait): void {
    if (this.remove(wait)) wait.resolve(wait.records);
  }

  /** Takes a wait out; false when it had settled already. */
  private remove(wait: ManyWait): boolean {
    if (wait.done) return false;
    wait.done = true;
    if (wait.onAbort) wait.signal?.removeEventListener('abort', wait.onAbort);
    for (const id of wait.positions.keys()) this.byId.delete(id, wait);
    wait.positions.clear();
    return true;
  }
}
