/**
 * The worker's fetch loop: reserves up to the free slots plus `prefetch` per round trip, and blocks
 * in the broker's wait when nothing is ready (no polling). A control change (queues, slots) ends the
 * current wait early; a failed reservation is retried with a growing pause.
 */
import type { Broker, Delivery } from '@celeriac/core';
import { toRemoteError } from '@celeriac/core/internal';
import type { Logger } from './logger';
import { nextTurn } from './next-turn';
import type { WorkerSlots } from './worker-slots';

/** What the fetch loop works with. */
export interface FetchLoopOptions {
  broker: Broker;
  /** Deliveries reserved ahead of the free slots. */
  prefetch: number;
  logger: Logger;
  slots: WorkerSlots;
  /** The queues consumed now (control changes them). */
  queues: () => string[];
  /** Takes a reserved delivery in (it is held until a slot runs it). */
  hold: (delivery: Delivery) => void;
}

/** The fetch loop of one worker. */
export class FetchLoop {
  private readonly stopLoop = new AbortController();
  private loop: Promise<void> | undefined;
  /** Ends the current wait early (a control command changed queues or slots). */
  private waitAbort: AbortController | undefined;
  /** Raised by each control change, so a wait begun after it was read goes round again instead. */
  private changes = 0;

  constructor(private readonly options: FetchLoopOptions) {}

  /** Starts reserving. */
  start(): void {
    this.loop = this.run();
  }

  /** Stops reserving; resolves once the loop ended (what it reserved meanwhile went back to the queue). */
  async stop(): Promise<void> {
    this.stopLoop.abort();
    this.options.slots.wakeFetch();
    await this.loop;
  }

  /** Ends the fetch loop's current wait, so it picks up changed queues or slots. */
  wake(): void {
    this.changes += 1;
    this.options.slots.wakeFetch();
    this.waitAbort?.abort();
  }

  private async run(): Promise<void> {
    const { broker, prefetch, slots } = this.options;
    const signal = this.stopLoop.signal;
    let failures = 0;
    let drained = false;
    while (!signal.aborted) {
      const queues = this.options.queues();
      const changes = this.changes;
      // Reserve ahead (up to `prefetch` waiting here) so the next batch is on hand when slots free up.
      const room = slots.room(prefetch);
      if (room <= 0) {
        await slots.untilFreed();
        continue;
      }
      try {
        // After a short batch from a single queue, that queue is empty: wait for work right away
        // (the wait reserves the moment it ends) instead of asking again first.
        const skipAsking: boolean =
          (drained || broker.drained?.(queues) === true) && queues.length === 1 && broker.waitAndReserve !== undefined;
        let deliveries: Delivery[] = skipAsking || queues.length === 0 ? [] : await broker.reserve(queues, room);
        if (deliveries.length === 0) {
          // Let tasks that end in this tick settle first: their writes are on a caller's critical path.
          await nextTurn();
          // Ends on stop, or early when a control command changed the queues or slots.
          const waitAbort = new AbortController();
          const stop = () => waitAbort.abort();
          signal.addEventListener('abort', stop, { once: true });
          if (signal.aborted) stop();
          this.waitAbort = waitAbort;
          const wait = waitAbort.signal;
          try {
            if (changes !== this.changes) deliveries = [];
            else if (queues.length === 0) await aborted(wait);
            else if (broker.waitAndReserve) deliveries = await broker.waitAndReserve(queues, room, wait);
            else await broker.waitForWork(queues, wait);
          } finally {
            signal.removeEventListener('abort', stop);
            this.waitAbort = undefined;
          }
        }
        // Skip asking next time only after a short but non-empty batch: an empty wake-up (a due
        // time passed, a spurious wake) must be followed by a real reservation, or it could spin.
        drained = deliveries.length > 0 && deliveries.length < room;
        failures = 0;
        if (signal.aborted) {
          await Promise.all(deliveries.map((delivery) => broker.requeue(delivery)));
          break;
        }
        for (const delivery of deliveries) this.options.hold(delivery);
        slots.pump();
      } catch (error) {
        failures += 1;
        const delay = Math.min(5_000, 100 * 2 ** Math.min(failures, 6));
        this.options.logger.error({ error: toRemoteError(error), retryIn: delay }, 'Reserving tasks failed');
        await sleep(delay, signal);
      }
    }
  }
}

/** Resolves once `signal` has aborted (at once when it has). */
function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
