/**
 * Collects the envelopes published in one tick and hands them to the broker in one call, so that
 * `delay()` calls made together share a round trip.
 */
import type { Broker, PublishOutcome } from '../broker';
import type { CeleriacEvent } from '../events/event-types';
import type { Envelope } from '../message';

/** One publish: a single envelope with its own promise, or a batch that shares one (a workflow's start). */
type Pending =
  | {
      envelope: Envelope;
      /** Its `task-sent` event, when events are on. */
      event: CeleriacEvent | undefined;
      resolve(outcome: PublishOutcome): void;
      reject(error: unknown): void;
    }
  | {
      envelopes: readonly Envelope[];
      events: readonly CeleriacEvent[];
      resolve(outcomes: PublishOutcome[]): void;
      reject(error: unknown): void;
    };

/** Batches publishes per tick. */
export class Publisher {
  private pending: Pending[] = [];
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly broker: () => Broker,
    /** Appends a batch's events; called just before the publish, in the same tick, so both leave together. */
    private readonly emit: (events: CeleriacEvent[]) => void = () => undefined,
  ) {}

  /** Queues one envelope (and its event) for the next flush; resolves with the broker's outcome. */
  publish(envelope: Envelope, event?: CeleriacEvent): Promise<PublishOutcome> {
    return new Promise((resolve, reject) => this.queue({ envelope, event, resolve, reject }));
  }

  /**
   * Queues many envelopes (and their events) for the next flush as one entry, with one promise for
   * all of them (a group of 100,000 makes no promise per member); resolves with their outcomes.
   */
  publishMany(envelopes: readonly Envelope[], events: readonly CeleriacEvent[] = []): Promise<PublishOutcome[]> {
    return new Promise((resolve, reject) => this.queue({ envelopes, events, resolve, reject }));
  }

  /**
   * Resolves once everything published so far has been settled by the broker, also what a settled
   * publish sent in turn (a debounced send's replacement).
   */
  async drain(): Promise<void> {
    while (this.pending.length > 0 || this.inFlight.size > 0) {
      if (this.pending.length > 0) this.flush();
      await Promise.allSettled([...this.inFlight]);
    }
  }

  private queue(item: Pending): void {
    if (this.pending.length === 0) queueMicrotask(() => this.flush());
    this.pending.push(item);
  }

  private flush(): void {
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    const sending = this.send(batch);
    this.inFlight.add(sending);
    void sending.finally(() => this.inFlight.delete(sending));
  }

  private async send(batch: Pending[]): Promise<void> {
    try {
      const envelopes: Envelope[] = [];
      const events: CeleriacEvent[] = [];
      for (const item of batch) {
        if ('envelope' in item) {
          envelopes.push(item.envelope);
          if (item.event) events.push(item.event);
        } else {
          // A loop, not push(...): a spread of 100,000 arguments overflows the stack.
          for (const envelope of item.envelopes) envelopes.push(envelope);
          for (const event of item.events) events.push(event);
        }
      }
      // The events are written first: on a shared connection Redis runs the XADD before the publish,
      // so no worker's event for a task can precede its task-sent (a publish that then fails leaves
      // a task-sent behind; its caller's `sent` rejects). Issued in the same tick, the two leave in
      // one write (the Redis event log holds its write open until the tick ends).
      if (events.length > 0) this.emit(events);
      const outcomes = await this.broker().publish(envelopes);
      let offset = 0;
      for (const item of batch) {
        if ('envelope' in item) item.resolve(outcomes[offset++] ?? 'published');
        else {
          const end = offset + item.envelopes.length;
          item.resolve(Array.from({ length: item.envelopes.length }, (_, k) => outcomes[offset + k] ?? 'published'));
          offset = end;
        }
      }
    } catch (error) {
      for (const item of batch) item.reject(error);
    }
  }
}
