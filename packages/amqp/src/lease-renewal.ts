/**
 * Long tasks under RabbitMQ's `consumer_timeout`. RabbitMQ closes a channel whose delivery stays
 * unacked past it (30 minutes by default, one setting for the whole server on 3.10) and requeues
 * everything the channel held: a task running longer would start again elsewhere while it runs.
 *
 * So no message stays held that long. Before half the timeout, a leased delivery is renewed: a
 * copy goes to this process's parking queue for that queue, the copy arrives on the parking
 * channel (held, unacked, as the delivery was), and only then is the delivery acked; the lease
 * goes on with the copy, and so on every half timeout. The parking queue dead-letters into the
 * ready queue when a message's TTL passes. A copy held by a live process is not in the queue and
 * never expires; once its process is gone, RabbitMQ puts the copy back, past its TTL, and it goes
 * to the ready queue to run again, counted as a lost delivery. Messages prefetched but not yet
 * leased that wait as long go back to their queue as fresh copies.
 */
import { randomUUID } from 'node:crypto';
import type { Channel, Message } from 'amqplib';
import { ChannelSlot } from './channel-slot';
import type { AmqpConnection } from './connection';
import type { Lease, Leases } from './leases';
import type { QueueNames } from './names';
import type { AmqpQueueType } from './options';
import type { Publisher } from './publisher';
import { ackReceived, LOST_HEADER, readReceived, type Received } from './received';
import { wireParts } from './publisher';
import type { AmqpWire } from './wire';
import { declareQueue } from './topology';

/** Header naming the renewal a parked copy answers. */
export const RENEWAL_HEADER = 'x-celeriac-renewal';

/**
 * How long a copy may wait in a parking queue before it goes to the ready queue: RabbitMQ pushes it
 * to the live process's parking consumer at once, and a dead process's task is back this soon.
 */
export const PARKED_TTL_MS = 5_000;

/** A parking queue left without a consumer (its process died) is deleted after this long. */
const PARKING_EXPIRES_MS = 20 * PARKED_TTL_MS;

/** The longest gap between two looks at what is held. */
const MAX_CHECK_INTERVAL_MS = 30_000;

/** The parking queue of `ready` for the process `instance`. */
export function parkingQueue(ready: string, instance: string): string {
  return `${ready}.parked.${instance}`;
}

/** What the renewal needs of the transport. */
export interface RenewalHost {
  readonly leases: Leases;
  /** The RabbitMQ names of `queue` (declared). */
  names(queue: string): Promise<QueueNames>;
  /** Takes out the prefetched messages received before `before`. */
  takeStale(before: number): Received[];
  /** Sends fresh copies of `received` to their queues, then acks them. */
  returnToQueue(received: readonly Received[]): Promise<void>;
  /** The parking channel closed: RabbitMQ requeued the copies it held. */
  channelClosed(channel: Channel): void;
}

/** Keeps this process's held messages younger than half the server's `consumer_timeout`. */
export class LeaseRenewal {
  private readonly instance = randomUUID().slice(0, 8);
  private readonly renewAfter: number;
  private readonly slot: ChannelSlot;
  /** Parking queues consumed on the current parking channel, by Celeriac queue. */
  private readonly parking = new Map<string, Promise<string>>();
  /** Renewals waiting for their copy, by token. */
  private readonly expected = new Map<string, (copy: Received) => void>();
  private readonly timer: NodeJS.Timeout;
  private checking = false;

  constructor(
    connection: AmqpConnection,
    private readonly publisher: Publisher,
    private readonly host: RenewalHost,
    private readonly queueType: AmqpQueueType,
    consumerTimeout: number,
    private readonly wire: AmqpWire,
  ) {
    this.renewAfter = consumerTimeout / 2;
    this.slot = new ChannelSlot(connection, 'plain');
    this.slot.onClose((channel) => {
      this.parking.clear();
      host.channelClosed(channel);
    });
    this.timer = setInterval(() => void this.check(), Math.min(MAX_CHECK_INTERVAL_MS, this.renewAfter / 4));
    this.timer.unref();
  }

  /** Renews what was received before half the timeout: leases by a parked copy, prefetched messages in their queue. */
  async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      const before = Date.now() - this.renewAfter;
      const stale = this.host.takeStale(before);
      if (stale.length > 0) await this.host.returnToQueue(stale);
      for (const lease of this.host.leases.all()) if (lease.received.at <= before) await this.renew(lease);
    } catch {
      // RabbitMQ or the connection failed: the next check tries again (a lost connection requeued all anyway).
    } finally {
      this.checking = false;
    }
  }

  /** Stops the checks and closes the parking channel (RabbitMQ requeues the copies it held). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.slot.close();
  }

  /** Puts a copy of the lease's message in place of it: sent to the parking queue, taken, then the old one acked. */
  private async renew(lease: Lease): Promise<void> {
    const { delivery, message, priority } = lease.received;
    const parked = await this.parkingFor(delivery.queue);
    const token = randomUUID();
    const arrived = new Promise<Received>((resolve) => this.expected.set(token, resolve));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), PARKED_TTL_MS / 2)));
    try {
      await this.publisher.publish([
        {
          id: delivery.id,
          queue: delivery.queue,
          exchange: '',
          routingKey: parked,
          ...wireParts(this.wire.copy(message)),
          priority: priority === 0 ? undefined : priority,
          // Should it go to the ready queue (this process died), it counts the delivery it lost.
          extraHeaders: { [RENEWAL_HEADER]: token, [LOST_HEADER]: delivery.deliveries },
        },
      ]);
      const copy = await Promise.race([arrived, late]);
      if (!copy) return; // Not back in time: the next check renews again.
      if (this.host.leases.find(delivery) !== lease) {
        ackReceived(copy); // Settled meanwhile: the copy is not needed.
        return;
      }
      const replaced = lease.received;
      lease.received = { ...copy, delivery };
      ackReceived(replaced);
    } finally {
      clearTimeout(timer);
      this.expected.delete(token);
    }
  }

  /** The parking queue of `queue`, declared and consumed on the parking channel. */
  private parkingFor(queue: string): Promise<string> {
    let consuming = this.parking.get(queue);
    if (!consuming) {
      consuming = this.consumeParking(queue);
      this.parking.set(queue, consuming);
      consuming.catch(() => this.parking.delete(queue));
    }
    return consuming;
  }

  private async consumeParking(queue: string): Promise<string> {
    const names = await this.host.names(queue);
    const name = parkingQueue(names.ready, this.instance);
    const channel = await this.slot.get();
    await declareQueue(channel, name, {
      ...(this.queueType === 'quorum' ? { 'x-queue-type': 'quorum' } : {}),
      'x-message-ttl': PARKED_TTL_MS,
      'x-dead-letter-exchange': '',
      'x-dead-letter-routing-key': names.ready,
      'x-expires': PARKING_EXPIRES_MS,
    });
    // Quorum queues want a prefetch; a copy is taken as soon as it comes, so any will do.
    await channel.prefetch(1_000, false);
    await channel.consume(name, (message) => message && this.arrive(channel, message, queue), { noAck: false });
    return name;
  }

  private arrive(channel: Channel, message: Message, queue: string): void {
    const token: unknown = message.properties.headers?.[RENEWAL_HEADER];
    const copy = readReceived(channel, message, queue, this.wire);
    const expected = typeof token === 'string' ? this.expected.get(token) : undefined;
    // A copy no renewal waits for came too late: its lease goes on with the message it held.
    if (expected) expected(copy);
    else ackReceived(copy);
  }
}
