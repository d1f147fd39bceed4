/**
 * Batches the writes that end task runs: records to the backend, then acks to the broker. Everything
 * settled in one tick goes out together. The acks follow once the records are stored, so a crash
 * in between re-runs the task rather than losing its result; and they leave in a write of their own,
 * after the event loop's next turn, so that the store that wakes the caller is all Redis has to do
 * first (Redis answers a write only once it has run all of it; bench/README.md has the figures). A
 * task that failed for good is written to the failed-task registry before its FAILURE record, so a
 * caller who sees the failure can retry it from there at once. A STARTED record waits a few
 * milliseconds: a task that ends sooner never needs it, which halves the writes of short tasks.
 */
import {
  brokerSupports,
  RecordsRefusedError,
  type Broker,
  type CeleriacEvent,
  type Delivery,
  type Failure,
  type ResultBackend,
  type StoreEntry,
} from '@celeriac/core';
import { isReadyState } from '@celeriac/core/internal';
import { nextTurn } from './next-turn';

/** How long a STARTED record waits for the task's next state before it is written. */
const STARTED_GRACE_MS = 20;

/** The writes of one tick, and the promise every caller of that tick waits on (one, not one each). */
interface Batch {
  promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

/** Collects stores and acks, and flushes them once per tick. */
export class Settler {
  private stores: StoreEntry[] = [];
  private acks: Delivery[] = [];
  /** Tasks among `acks` that failed for good: acked into the failed-task registry. */
  private failures = new Map<string, Failure>();
  /** Events that leave with the next batch's records. */
  private events: CeleriacEvent[] = [];
  private batch: Batch | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  /** STARTED records not written yet, built only if written: most tasks end sooner. */
  private readonly pendingStarted = new Map<string, () => StoreEntry>();
  private startedTimer: NodeJS.Timeout | undefined;
  private eventTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly backend: ResultBackend,
    private readonly broker: Broker,
  ) {}

  /** Stores a record in the next batch. */
  store(entry: StoreEntry): Promise<void> {
    // A STARTED still waiting goes first, so listeners see every state in order; a final record
    // makes it moot (as in finish()), which spares short workflow steps a write.
    const started = this.pendingStarted.get(entry.record.id);
    if (started) {
      this.pendingStarted.delete(entry.record.id);
      if (!isReadyState(entry.record.state)) this.stores.push(started());
    }
    this.stores.push(entry);
    return this.wait(entry.record.id);
  }

  /** Stores a STARTED record, unless the task ends within {@link STARTED_GRACE_MS}. */
  started(id: string, entry: () => StoreEntry): void {
    this.pendingStarted.set(id, entry);
    this.startedTimer ??= setTimeout(() => {
      this.startedTimer = undefined;
      const due = [...this.pendingStarted.values()];
      this.pendingStarted.clear();
      for (const started of due) this.stores.push(started());
      if (due.length > 0) void this.wait().catch(() => undefined);
    }, STARTED_GRACE_MS);
  }

  /** Drops a STARTED record still waiting (the run was handed back or lost). */
  dropStarted(id: string): void {
    this.pendingStarted.delete(id);
  }

  /**
   * Stores a final record (if any) and acks the delivery, in that order, in the next batch; with
   * `failure`, the ack keeps the task in the failed-task registry.
   */
  finish(delivery: Delivery, entry?: StoreEntry, failure?: Failure): Promise<void> {
    this.pendingStarted.delete(delivery.id);
    if (entry) this.stores.push(entry);
    this.acks.push(delivery);
    if (failure) this.failures.set(delivery.id, failure);
    return this.wait(delivery.id);
  }

  /**
   * Adds an event to the next batch. Events alone do not start a write at once: they wait up to
   * {@link STARTED_GRACE_MS} for the records they would otherwise cost a write of their own beside.
   */
  event(event: CeleriacEvent): void {
    this.events.push(event);
    if (this.batch) return;
    this.eventTimer ??= setTimeout(() => {
      this.eventTimer = undefined;
      if (this.events.length > 0) void this.wait().catch(() => undefined);
    }, STARTED_GRACE_MS);
  }

  /** Resolves once every batch handed over so far is written. */
  async drain(): Promise<void> {
    clearTimeout(this.startedTimer);
    this.startedTimer = undefined;
    this.pendingStarted.clear();
    clearTimeout(this.eventTimer);
    this.eventTimer = undefined;
    if (this.events.length > 0 && !this.batch) void this.wait().catch(() => undefined);
    while (this.batch || this.inFlight.size > 0) {
      if (this.batch && this.inFlight.size === 0) this.flush();
      await Promise.allSettled([...this.inFlight]);
    }
  }

  /** Resolves once the batch is written; rejects when it failed as a whole or `id`'s records were refused. */
  private wait(id?: string): Promise<void> {
    // Flushed on the next microtask: what settles in the same tick shares a batch. (Holding batches
    // back while one is in flight delays acks and results more than it saves.)
    if (!this.batch) {
      let resolve!: () => void;
      let reject!: (error: unknown) => void;
      const promise = new Promise<void>((resolvePromise, rejectPromise) => {
        resolve = resolvePromise;
        reject = rejectPromise;
      });
      this.batch = { promise, resolve, reject };
      queueMicrotask(() => this.flush());
    }
    // Records refused by the backend fail their own tasks only (see flush()).
    return this.batch.promise.catch((error: unknown) => {
      if (!(error instanceof RecordsRefusedError)) throw error;
      const own = id === undefined ? error : error.of(id);
      if (own) throw own;
    });
  }

  private flush(): void {
    const batch = this.batch;
    if (!batch) return; // drain() flushed it already
    const stores = this.stores;
    const acks = this.acks;
    const failures = this.failures;
    const events = this.events;
    this.batch = undefined;
    this.stores = [];
    this.acks = [];
    this.failures = new Map();
    this.events = [];
    const writing = (async () => {
      try {
        let refused: RecordsRefusedError | undefined;
        let toAck = acks;
        const broker = this.broker;
        if (failures.size > 0 && brokerSupports(broker, 'failedRegistry')) {
          // Registry entries first: a caller woken by a FAILURE record finds the task there.
          await broker.keepFailed(
            acks.filter((delivery) => failures.has(delivery.id)),
            failures,
          );
        }
        if (stores.length > 0 || events.length > 0) {
          try {
            await this.backend.store(stores, events);
          } catch (error) {
            // The other records were stored: their tasks are acked; the refused ones are not.
            if (!(error instanceof RecordsRefusedError)) throw error;
            refused = error;
            toAck = acks.filter((delivery) => !error.refused.has(delivery.id));
          }
          // The stored records' notices, already on their way, are read before the acks go out.
          if (toAck.length > 0) await nextTurn();
        }
        if (toAck.length > 0) await this.broker.ack(toAck, failures.size > 0 ? failures : undefined);
        if (refused) batch.reject(refused);
        else batch.resolve();
      } catch (error) {
        batch.reject(error);
      }
    })();
    this.inFlight.add(writing);
    void writing.finally(() => this.inFlight.delete(writing));
  }
}
