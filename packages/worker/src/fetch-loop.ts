/**
 * The worker's fetch loop: reserves up to the free slots plus `prefetch` per round trip, and blocks
 * in the broker's wait when nothing is ready (no polling). A control change (queues, slots) ends the
 * current wait early; a failed reservation is retried with a growing pause. Every broker call is
 * bounded (bounded-call.ts): one that does not come back is logged, the broker's waiting connections
 * are rebuilt, and the loop goes on, so a worker never stops taking tasks for a call that hangs.
 */
import { brokerSupports, type Broker, type Delivery } from '@celeriac/core';
import { toRemoteError } from '@celeriac/core/internal';
import { boundedCall, StuckCall } from './bounded-call';
import type { Logger } from './logger';
import { nextTurn } from './next-turn';
import type { WorkerSlots } from './worker-slots';

/** What the fetch loop works with. */
export interface FetchLoopOptions {
  broker: Broker;
  /** Deliveries reserved ahead of the free slots (read each round when a function: autoscale moves it). */
  prefetch: number | (() => number);
  logger: Logger;
  slots: WorkerSlots;
  /** The queues consumed now (control changes them). */
  queues: () => string[];
  /** Takes a reserved delivery in (it is held until a slot runs it). */
  hold: (delivery: Delivery) => void;
  /**
   * Gives up on a broker call that has not come back after this many ms; a wait is ended at half of
   * it, so only a call that cannot end meets it.
   * @defaultValue 60_000
   */
  callBound?: number;
}

/** See {@link FetchLoopOptions.callBound}. */
const CALL_BOUND_MS = 60_000;
/** How long a broker call in progress may still take once the worker is stopping (ms). */
const STOP_GRACE_MS = 5_000;

/** The fetch loop of one worker. */
export class FetchLoop {
  private readonly stopLoop = new AbortController();
  private loop: Promise<void> | undefined;
  /** Ends the current wait early (a control command changed queues or slots). */
  private waitAbort: AbortController | undefined;
  /** Raised by each control change, so a wait begun after it was read goes round again instead. */
  private changes = 0;

  constructor(private readonly options: FetchLoopOptions) {}

  private get callBound(): number {
    return this.options.callBound ?? CALL_BOUND_MS;
  }

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
      const room = slots.room(typeof prefetch === 'number' ? prefetch : prefetch());
      if (room <= 0) {
        await slots.untilFreed();
        continue;
      }
      try {
        // After a short batch from a single queue, that queue is empty: wait for work right away
        // (the wait reserves the moment it ends) instead of asking again first.
        const skipAsking: boolean =
          (drained || (brokerSupports(broker, 'drainedHint') && broker.drained(queues))) &&
          queues.length === 1 &&
          broker.capabilities.waitAndReserve;
        let deliveries: Delivery[] =
          skipAsking || queues.length === 0 ? [] : await this.bounded('reserve', broker.reserve(queues, room));
        if (deliveries.length === 0) {
          // Let tasks that end in this tick settle first: their writes are on a caller's critical path.
          await nextTurn();
          // Ends on stop, or early when a control command changed the queues or slots.
          const waitAbort = new AbortController();
          const stop = () => waitAbort.abort();
          signal.addEventListener('abort', stop, { once: true });
          if (signal.aborted) stop();
          // Every wait is ended by half the call bound at the latest (a broker's wait ends on its
          // signal), so only a wait that cannot end meets the bound.
          const cap = setTimeout(stop, this.callBound / 2);
          this.waitAbort = waitAbort;
          const wait = waitAbort.signal;
          try {
            if (changes !== this.changes) deliveries = [];
            else if (queues.length === 0) await aborted(wait);
            else if (brokerSupports(broker, 'waitAndReserve')) {
              deliveries = await this.bounded('wait for work', broker.waitAndReserve(queues, room, wait));
            } else
              await this.bounded(
                'wait for work',
                broker.waitForWork(queues, wait).then(() => []),
              );
          } finally {
            clearTimeout(cap);
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
        if (error instanceof StuckCall && !signal.aborted) this.stuck(error, queues);
        else this.options.logger.error({ error: toRemoteError(error), retryIn: delay }, 'Reserving tasks failed');
        await sleep(delay, signal);
      }
    }
  }

  /** Bounds a broker call; deliveries it still makes after it was given up on go back to the queue. */
  private bounded(what: string, call: Promise<Delivery[]>): Promise<Delivery[]> {
    const { broker } = this.options;
    return boundedCall(call, {
      what,
      bound: this.callBound,
      signal: this.stopLoop.signal,
      grace: STOP_GRACE_MS,
      late: (deliveries) =>
        void Promise.all(deliveries.map((delivery) => broker.requeue(delivery))).catch(() => undefined),
    });
  }

  /** A call that did not come back: said, with what waits in the queues, and the broker's waits rebuilt. */
  private stuck(error: StuckCall, queues: readonly string[]): void {
    const { broker, logger } = this.options;
    if (brokerSupports(broker, 'reconnect')) broker.reconnect();
    const report = (ready?: number) =>
      logger.error(
        { call: error.what, elapsedMs: error.elapsed, queues, ...(ready === undefined ? {} : { ready }) },
        `The fetch loop's ${error.what} did not come back in ${Math.round(error.elapsed / 1000)} s; ` +
          `rebuilt the broker's waiting connections and went on`,
      );
    // How many tasks wait, when the broker can still tell within a second.
    const counted = Promise.all(queues.map((queue) => broker.stats(queue))).then((all) =>
      all.reduce((sum, stats) => sum + stats.ready, 0),
    );
    void boundedCall(counted, {
      what: 'stats',
      bound: 1_000,
      signal: this.stopLoop.signal,
      grace: 0,
      late: () => undefined,
    }).then(report, () => report());
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
