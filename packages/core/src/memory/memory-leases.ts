/**
 * How a lease on the memory broker ends other than by an ack: renewed, handed back (a retry, or a
 * lost run that counts), dead-lettered, or lapsed (its worker died or hung) and recovered.
 */
import type { BrokerSettings, DeadLetter, Delivery, RecoveryReport } from '../broker';
import type { MemoryQueues } from './memory-queues';

/** The leases of one memory broker's queues. */
export class MemoryLeases {
  constructor(
    private readonly settings: BrokerSettings,
    private readonly queues: MemoryQueues,
  ) {}

  /** Puts a delivery back (after `delay`, with a new `body` if given) without counting it as lost. */
  requeue(delivery: Delivery, options: { delay?: number; body?: string }): void {
    const entry = this.queues.activeEntry(delivery);
    if (!entry) return;
    const delay = options.delay ?? 0;
    if (options.body !== undefined) entry.body = options.body;
    // A requeue is not a lost delivery: undo the count this delivery added.
    entry.deliveries -= 1;
    this.queues.releaseSlot(entry);
    entry.place = delay > 0 ? 'delayed' : 'ready';
    entry.at = Date.now() + delay;
    entry.seq = this.queues.nextSeq();
    this.queues.changed();
  }

  /** Puts back a delivery whose run was lost (it counts), or dead-letters it at `maxDeliveries`. */
  requeueLost(delivery: Delivery, reason: string): 'requeued' | 'dead' {
    const entry = this.queues.activeEntry(delivery);
    if (!entry) return 'requeued';
    if (entry.deliveries >= this.settings.maxDeliveries) {
      this.queues.bury(
        entry,
        `${reason} (delivered ${entry.deliveries} times, maxDeliveries ${this.settings.maxDeliveries})`,
      );
      return 'dead';
    }
    this.queues.releaseSlot(entry);
    entry.place = 'ready';
    entry.seq = this.queues.nextSeq();
    this.queues.changed();
    return 'requeued';
  }

  /** Moves a leased delivery to its queue's dead letters, with `reason`. */
  deadLetter(delivery: Delivery, reason: string): void {
    const entry = this.queues.activeEntry(delivery);
    if (entry) this.queues.bury(entry, reason);
  }

  /** Renews the leases of `deliveries` for another visibility timeout from now. */
  extend(deliveries: readonly Delivery[]): void {
    const deadline = Date.now() + this.settings.visibilityTimeout;
    for (const delivery of deliveries) {
      const entry = this.queues.activeEntry(delivery);
      if (entry) entry.at = deadline;
    }
  }

  /** Brings back the messages of `queues` whose leases lapsed, and dead-letters those delivered too often. */
  recoverLapsed(queues: readonly string[]): RecoveryReport {
    const now = Date.now();
    const requeued: string[] = [];
    const dead: DeadLetter[] = [];
    for (const name of queues) {
      for (const entry of this.queues.get(name).entries.values()) {
        if (entry.place !== 'active' || entry.at > now) continue;
        if (entry.deliveries >= this.settings.maxDeliveries) {
          dead.push(
            this.queues.bury(
              entry,
              `lease lapsed ${entry.deliveries} times (maxDeliveries ${this.settings.maxDeliveries}); its workers ` +
                `died or hung`,
            ),
          );
        } else {
          this.queues.releaseSlot(entry);
          entry.place = 'ready';
          entry.seq = this.queues.nextSeq();
          requeued.push(entry.id);
        }
      }
    }
    if (requeued.length > 0) this.queues.changed();
    return { requeued, dead };
  }
}
