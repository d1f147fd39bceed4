/**
 * Collects the envelopes published in one tick and hands them to the broker in one call, so that
 * `delay()` calls made together share a round trip.
 */
import type { Broker, PublishOutcome } from '../broker';
import type { CeleriacEvent } from '../events/event-types';
import type { Envelope } from '../message';

interface Pending {
  envelope: Envelope;
  /** Its `task-sent` event, when events are on. */
  event: CeleriacEvent | undefined;
  resolve(outcome: PublishOutcome): void;
  reject(error: unknown): void;
}

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
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) queueMicrotask(() => this.flush());
      this.pending.push({ envelope, event, resolve, reject });
    });
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
      // The events are written first: on a shared connection Redis runs the XADD before the publish,
      // so no worker's event for a task can precede its task-sent (a publish that then fails leaves
      // a task-sent behind; its caller's `sent` rejects). Issued in the same tick, the two leave in
      // one write (the Redis event log holds its write open until the tick ends).
      const events = batch.flatMap((item) => (item.event ? [item.event] : []));
      if (events.length > 0) this.emit(events);
      const outcomes = await this.broker().publish(batch.map((item) => item.envelope));
      batch.forEach((item, index) => item.resolve(outcomes[index] ?? 'published'));
    } catch (error) {
      for (const item of batch) item.reject(error);
    }
  }
}
