/**
 * The deliveries this process holds, each with a lease deadline. RabbitMQ itself holds an unacked
 * message until its channel closes and then redelivers it, so a dead worker's tasks come back
 * without any sweep. The deadline serves a live process whose run hung: `recoverLapsed` returns its
 * own lapsed deliveries to their queue, counting the delivery as RabbitMQ does for a crash.
 */
import type { Channel } from 'amqplib';
import type { Delivery } from '@celeriac/core';
import type { Received } from './received';

/** One held delivery. */
export interface Lease {
  /** The message held for it: the delivery, or the copy that renewed it (see lease-renewal.ts). */
  received: Received;
  deadline: number;
}

/** The deliveries held, by the object handed out (and by id when a copy comes back). */
export class Leases {
  private readonly held = new Map<Delivery, Lease>();

  /** Holds `received` until `deadline`. */
  add(received: Received, deadline: number): void {
    this.held.set(received.delivery, { received, deadline });
  }

  /** Takes the lease of `delivery` out, if this process still holds it. */
  take(delivery: Delivery): Lease | undefined {
    const lease = this.find(delivery);
    if (lease) this.held.delete(lease.received.delivery);
    return lease;
  }

  /** The lease of `delivery`, if held. */
  find(delivery: Delivery): Lease | undefined {
    const same = this.held.get(delivery);
    if (same) return same;
    for (const lease of this.held.values()) {
      const { id, queue, deliveries } = lease.received.delivery;
      if (id === delivery.id && queue === delivery.queue && deliveries === delivery.deliveries) return lease;
    }
    return undefined;
  }

  /** How many deliveries of `queue` are held. */
  count(queue: string): number {
    let count = 0;
    for (const lease of this.held.values()) if (lease.received.delivery.queue === queue) count += 1;
    return count;
  }

  /** Takes out the leases of `queues` whose deadline passed before `now`. */
  takeLapsed(queues: readonly string[], now: number): Lease[] {
    const lapsed = [...this.held.values()].filter(
      (lease) => lease.deadline < now && queues.includes(lease.received.delivery.queue),
    );
    for (const lease of lapsed) this.held.delete(lease.received.delivery);
    return lapsed;
  }

  /** Every lease held. */
  all(): Lease[] {
    return [...this.held.values()];
  }

  /** Forgets the leases on `channel`: it closed, and RabbitMQ requeued their messages. */
  forgetChannel(channel: Channel): void {
    for (const [delivery, lease] of this.held) if (lease.received.channel === channel) this.held.delete(delivery);
  }

  /** Forgets every lease. */
  clear(): void {
    this.held.clear();
  }
}
