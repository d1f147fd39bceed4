/**
 * The waits and change listeners of one backend, by task id: what a notification or a read is
 * delivered to. A wait ends once (resolved with a ready record, or rejected by its signal, its
 * `until`, or the backend closing) and then leaves the registry.
 */
import type { TaskRecord } from '@celeriac/core';
import { isReadyState } from '@celeriac/core/internal';

/** One pending `waitFor`. */
interface Wait {
  readonly id: string;
  resolve(record: TaskRecord): void;
  reject(error: unknown): void;
}

/** Waits and listeners by task id. */
export class ResultWaits {
  private readonly waits = new Map<string, Set<Wait>>();
  private readonly listeners = new Map<string, Set<(record: TaskRecord) => void>>();
  /** The text of the record last told to each id's listeners: a read and a notice may bring the same one. */
  private readonly told = new Map<string, string>();

  /**
   * A wait for a ready record of `id`; `signal` and `until` end it with their reason. Returns the
   * promise and a function that tells whether it is still pending.
   */
  add(
    id: string,
    signal: AbortSignal | undefined,
    until: PromiseLike<unknown> | undefined,
  ): { promise: Promise<TaskRecord>; pending: () => boolean } {
    let done = false;
    let wait!: Wait;
    const promise = new Promise<TaskRecord>((resolve, reject) => {
      const onAbort = () => wait.reject(signal?.reason);
      const end = () => {
        done = true;
        signal?.removeEventListener('abort', onAbort);
        const set = this.waits.get(id);
        set?.delete(wait);
        if (set?.size === 0) this.waits.delete(id);
      };
      wait = {
        id,
        resolve: (record) => (done ? undefined : (end(), resolve(record))),
        reject: (error) => (done ? undefined : (end(), reject(error))),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    const set = this.waits.get(id) ?? new Set();
    set.add(wait);
    this.waits.set(id, set);
    until?.then(undefined, (error: unknown) => wait.reject(error));
    return { promise, pending: () => !done };
  }

  /** Calls `listener` with every record of `id` delivered; returns the function that stops it. */
  listen(id: string, listener: (record: TaskRecord) => void): () => void {
    // A wrapper per call, so one function listening twice needs two stops.
    const wrapper = (record: TaskRecord) => listener(record);
    const set = this.listeners.get(id) ?? new Set();
    set.add(wrapper);
    this.listeners.set(id, set);
    return () => {
      set.delete(wrapper);
      if (set.size === 0 && this.listeners.get(id) === set) {
        this.listeners.delete(id);
        this.told.delete(id);
      }
    };
  }

  /**
   * Tells the listeners of the record's task, once per record (`text` is its stored form), and ends
   * its waits when the state is ready.
   */
  deliver(record: TaskRecord, text: string): void {
    const listeners = this.listeners.get(record.id);
    if (listeners && this.told.get(record.id) !== text) {
      this.told.set(record.id, text);
      for (const listener of [...listeners]) listener(record);
    }
    if (!isReadyState(record.state)) return;
    for (const wait of [...(this.waits.get(record.id) ?? [])]) wait.resolve(record);
  }

  /** True when something here waits for or listens to `id`. */
  has(id: string): boolean {
    return this.waits.has(id) || this.listeners.has(id);
  }

  /** True when a wait (not only a listener) is pending for `id`. */
  waiting(id: string): boolean {
    return this.waits.has(id);
  }

  /** Every id waited for or listened to. */
  ids(): string[] {
    return [...new Set([...this.waits.keys(), ...this.listeners.keys()])];
  }

  /** True when nothing waits or listens. */
  empty(): boolean {
    return this.waits.size === 0 && this.listeners.size === 0;
  }

  /** Ends the waits of `ids` with `error`. */
  fail(ids: readonly string[], error: unknown): void {
    for (const id of ids) for (const wait of [...(this.waits.get(id) ?? [])]) wait.reject(error);
  }

  /** Ends every wait with `error` and drops the listeners. */
  failAll(error: unknown): void {
    this.fail([...this.waits.keys()], error);
    this.listeners.clear();
    this.told.clear();
  }
}
