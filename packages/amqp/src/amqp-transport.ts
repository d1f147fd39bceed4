/**
 * `AmqpTransport`: Celeriac's messages on RabbitMQ (core's `MessageTransport`). It holds messages
 * only; revocations, worker records and the control channel live in a store beside it (see
 * `createSplitBroker` in core). A message's places:
 *
 *   publish ──► delay levels (TTL queues) ──► ready queue ──reserve──► held by this process (unacked)
 *                                                  ▲                        │ ack: gone
 *                   requeue: a new copy, then ack ─┤                        │ deadLetter: dead queue, then ack
 *   channel closed: RabbitMQ requeues ────────────┘                        ▼
 *   (requeueLost, a lapsed lease: a copy counting the lost delivery, then ack)
 */
import type { Channel, Message } from 'amqplib';
import type {
  BrokerCapabilities,
  BrokerSettings,
  DeadLetter,
  Delivery,
  Envelope,
  MessageTransport,
  PublishOutcome,
  PurgedMessage,
  QueueStats,
  RecoveryReport,
} from '@celeriac/core';
import { transportClosed } from './amqp-errors';
import { amqpCapabilities } from './capabilities';
import { AmqpConnection } from './connection';
import { deadHeaders, withDeadLetters } from './dead-letters';
import { EarlyArrivals } from './early-arrivals';
import { delayRoutingKey, entryLevel, MAX_DELAY, setLevels } from './delay-routing';
import { LeaseRenewal } from './lease-renewal';
import { Leases } from './leases';
import { delayExchange, type QueueNames } from './names';
import { AMQP_DEFAULTS, type AmqpTransportOptions } from './options';
import { Publisher, wireParts, type OutgoingMessage } from './publisher';
import { QueueConsumer } from './queue-consumer';
import { QueueRegistry } from './queue-registry';
import { ackReceived, ETA_HEADER, LOST_HEADER, readReceived, type Received } from './received';
import { Topology } from './topology';
import { CELERIAC_WIRE, type AmqpWire } from './wire';
import { redactUrl } from '@celeriac/core/internal';

/** What a message to send is made of (an envelope, or a leased message sent again). */
interface Outgoing {
  readonly id: string;
  readonly queue: string;
  readonly priority: number;
  readonly eta?: number | undefined;
  readonly body: string;
  /** Deliveries it lost so far (a copy sent again for a lost delivery). */
  readonly lost?: number;
  /** The message it was read from, when it is sent again (the wire keeps what only it carries). */
  readonly previous?: Message;
}

/** The RabbitMQ message transport. */
export class AmqpTransport implements MessageTransport {
  readonly capabilities: BrokerCapabilities;
  private readonly connection: AmqpConnection;
  private readonly topology: Topology;
  private readonly publisher: Publisher;
  private readonly registry: QueueRegistry;
  private readonly consumers = new Map<string, QueueConsumer>();
  private readonly leases = new Leases();
  private readonly renewal: LeaseRenewal;
  /** Messages that came out of the delay levels a little early, waiting for their eta. */
  private readonly early = new EarlyArrivals(() => this.wake());
  private readonly waiters = new Set<() => void>();
  private mostAsked = 1;
  /** How many channels closed under this transport (a wait started before one ends). */
  private drops = 0;
  private closed = false;
  private readonly options: AmqpTransportOptions &
    Required<Pick<AmqpTransportOptions, 'queueType' | 'delayLead' | 'consumerTimeout'>>;
  private readonly wire: AmqpWire;

  /**
   * `urls`: one `amqp://` or `amqps://` URL, or the URLs of a cluster's nodes (tried in turn);
   * `where`: how errors name the broker (without its password); `wire`: the message format and
   * queue names (Celeriac's own unless another is given: `@celeriac/celery` gives Celery's).
   */
  constructor(
    urls: string | readonly string[],
    private readonly settings: BrokerSettings,
    options: AmqpTransportOptions & { where?: string; wire?: AmqpWire } = {},
  ) {
    this.options = { ...AMQP_DEFAULTS, ...options };
    this.wire = options.wire ?? CELERIAC_WIRE;
    const list = typeof urls === 'string' ? [urls] : urls;
    this.connection = new AmqpConnection(list, options.where ?? list.map(redactUrl).join(', '));
    const capabilities = amqpCapabilities(this.options.queueType, this.options.maxPriority);
    this.capabilities = this.wire.transport ? { ...capabilities, transport: this.wire.transport } : capabilities;
    this.topology = new Topology(this.connection, settings.prefix, this.options, this.wire);
    this.publisher = new Publisher(this.connection);
    this.registry = new QueueRegistry(this.connection, this.publisher, settings.prefix, this.options.queueType);
    this.renewal = new LeaseRenewal(
      this.connection,
      this.publisher,
      {
        leases: this.leases,
        names: (queue) => this.names(queue),
        takeStale: (before) => this.takeStale(before),
        returnToQueue: (received) => this.returnToQueue(received),
        channelClosed: (channel) => this.changed(channel),
      },
      this.options.queueType,
      this.options.consumerTimeout,
      this.wire,
    );
  }

  async publish(envelopes: readonly Envelope[]): Promise<PublishOutcome[]> {
    this.open();
    await this.send(envelopes);
    return envelopes.map(() => 'published');
  }

  async reserve(queues: readonly string[], count: number): Promise<Delivery[]> {
    this.open();
    // The largest count asked (a worker's: all its slots and its prefetch) sizes the consumers; one
    // asked for more than its consumer may hold starts afresh with the larger prefetch.
    this.mostAsked = Math.max(this.mostAsked, count);
    const taken: Delivery[] = [];
    for (const queue of queues) {
      if (taken.length >= count) break;
      const consumer = await this.consumer(queue);
      await consumer.consume(this.prefetch());
      const arrived = [...this.early.takeDue(queue), ...this.fromBuffer(consumer)];
      if (arrived.length < count - taken.length) {
        // A round trip on the consumer's channel: what RabbitMQ pushed before it has arrived after it.
        await consumer.sync();
        arrived.push(...this.fromBuffer(consumer));
      }
      for (const received of arrived) {
        if (taken.length >= count) this.putBack(consumer, received);
        else if (await this.admit(consumer, received)) taken.push(received.delivery);
      }
    }
    return taken;
  }

  async waitForWork(queues: readonly string[], signal: AbortSignal): Promise<void> {
    if (signal.aborted || this.closed) return;
    if (this.hasWork(queues)) return;
    try {
      for (const queue of queues) await (await this.consumer(queue)).consume(this.prefetch());
    } catch (error) {
      if (this.closed) return;
      throw error;
    }
    const drops = this.drops;
    await new Promise<void>((resolve) => {
      const wake = () => {
        // A closed channel took its consumer along: end the wait, so the next one starts a new consumer.
        if (!signal.aborted && !this.closed && drops === this.drops && !this.hasWork(queues)) return;
        this.waiters.delete(wake);
        signal.removeEventListener('abort', wake);
        resolve();
      };
      this.waiters.add(wake);
      signal.addEventListener('abort', wake);
      wake();
    });
  }

  async ack(deliveries: readonly Delivery[]): Promise<void> {
    for (const delivery of deliveries) this.release(delivery);
  }

  async requeue(delivery: Delivery, options: { delay?: number; body?: string } = {}): Promise<void> {
    const lease = this.leases.find(delivery);
    if (!lease) return;
    const { id, queue, body } = lease.received.delivery;
    const eta = options.delay ? Date.now() + options.delay : undefined;
    const { priority, message: previous } = lease.received;
    await this.send([{ id, queue, priority, eta, body: options.body ?? body, previous }]);
    this.release(delivery);
  }

  async requeueLost(delivery: Delivery, reason: string): Promise<'requeued' | 'dead'> {
    const lease = this.leases.find(delivery);
    if (!lease) return 'requeued';
    return (await this.settleLost(lease.received, reason)) ? 'dead' : 'requeued';
  }

  async deadLetter(delivery: Delivery, reason: string): Promise<void> {
    const lease = this.leases.find(delivery);
    if (lease) await this.bury(lease.received, reason);
  }

  /** Leases are RabbitMQ's (held until the channel closes); this only moves this process's own deadlines. */
  async extendLeases(deliveries: readonly Delivery[]): Promise<void> {
    const deadline = Date.now() + this.settings.visibilityTimeout;
    for (const delivery of deliveries) {
      const lease = this.leases.find(delivery);
      if (lease) lease.deadline = deadline;
    }
  }

  /**
   * A dead process's deliveries come back when RabbitMQ sees its connection close, with no sweep.
   * What this returns is this process's own deliveries whose run outlived its lease (a hung run).
   */
  async recoverLapsed(queues: readonly string[]): Promise<RecoveryReport> {
    const requeued: string[] = [];
    const dead: DeadLetter[] = [];
    for (const lease of this.leases.takeLapsed(queues, Date.now())) {
      const { delivery } = lease.received;
      this.leases.add(lease.received, lease.deadline);
      const letter = await this.settleLost(lease.received, 'its lease lapsed too often (maxDeliveries)');
      if (letter) dead.push(letter);
      else requeued.push(delivery.id);
    }
    return { requeued, dead };
  }

  async listDead(queue: string, options: { offset?: number; limit?: number } = {}): Promise<DeadLetter[]> {
    const names = await this.names(queue);
    const offset = options.offset ?? 0;
    const letters = await withDeadLetters(this.connection, names, this.wire, async (all) =>
      all.map((read) => read.letter),
    );
    return letters.slice(offset, offset + (options.limit ?? letters.length));
  }

  async requeueDead(queue: string, ids?: readonly string[]): Promise<number> {
    if (ids?.length === 0) return 0;
    const names = await this.names(queue);
    return withDeadLetters(this.connection, names, this.wire, async (letters) => {
      const chosen = letters.filter((read) => ids === undefined || ids.includes(read.letter.id));
      await this.send(
        chosen.map(({ letter, received }) => ({
          ...letter,
          priority: received.priority,
          eta: undefined,
          previous: received.message,
        })),
      );
      for (const read of chosen) ackReceived(read.received);
      return chosen.length;
    });
  }

  async discardDead(queue: string, ids?: readonly string[]): Promise<number> {
    if (ids?.length === 0) return 0;
    const names = await this.names(queue);
    return withDeadLetters(this.connection, names, this.wire, async (letters) => {
      const chosen = letters.filter((read) => ids === undefined || ids.includes(read.letter.id));
      for (const read of chosen) ackReceived(read.received);
      return chosen.length;
    });
  }

  async stats(queue: string): Promise<QueueStats> {
    await this.topology.ensureLevels(queue);
    const consumer = await this.consumer(queue);
    const channel = await consumer.channel();
    const count = async (name: string) => (await channel.checkQueue(name)).messageCount;
    // Each place a message can be, read in the order messages move through them (delay levels
    // highest first, the ready queue, this process's buffer and holds): a message moving while they
    // are read may be seen twice, never missed. Passes repeat until two in a row agree, when
    // nothing moved during either; a message in flight between two queues shows in neither, and
    // only a later pass sees it.
    const pass = async (): Promise<StatsPass> => {
      const levels = await Promise.all([...consumer.names.delays].reverse().map((name) => count(name)));
      // The ready count before the buffer: RabbitMQ's answer comes after all it pushed the consumer.
      const ready = await consumer.flush();
      const now = Date.now();
      const buffered = consumer.buffer.length;
      const early = consumer.buffer.filter((received) => received.eta !== undefined && received.eta > now).length;
      const held = this.early.count(queue);
      const active = this.leases.count(queue);
      const dead = await count(consumer.names.dead);
      const stats = { ready: ready + buffered - early, delayed: sum(levels) + early + held, active, dead };
      return { counts: [...levels, ready, buffered, early, held, active, dead], stats };
    };
    let last = await pass();
    for (let passes = 1; passes < STATS_PASSES; passes += 1) {
      const next = await pass();
      if (next.counts.every((value, index) => value === last.counts[index])) break;
      last = next;
    }
    return last.stats;
  }

  async purge(queue: string): Promise<PurgedMessage[]> {
    await this.topology.ensureLevels(queue);
    const consumer = await this.consumer(queue);
    await consumer.flush();
    const taken = [...consumer.buffer.splice(0), ...this.early.takeAll(queue)];
    taken.push(...(await consumer.fetch(Number.MAX_SAFE_INTEGER)));
    const model = await this.connection.open();
    const channel = await model.createChannel();
    channel.on('error', () => undefined);
    try {
      for (const name of consumer.names.delays) taken.push(...(await drain(channel, name, queue, this.wire)));
      for (const received of taken) ackReceived(received);
    } finally {
      await channel.close().catch(() => undefined);
    }
    return taken.map(({ delivery }) => ({ id: delivery.id, body: delivery.body }));
  }

  /** The queues messages were sent to (or workers consumed), by any process of this prefix. */
  listQueues(): Promise<string[]> {
    this.open();
    return this.registry.list();
  }

  /** Why RabbitMQ cannot be reached now, while it cannot. */
  unreachable(): string | undefined {
    return this.connection.unreachable();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.early.stop();
    this.wake();
    this.leases.clear();
    await this.renewal.close();
    await Promise.allSettled([...this.consumers.values()].map((consumer) => consumer.close()));
    await Promise.allSettled([this.publisher.close(), this.topology.close()]);
    await this.connection.close();
  }

  private open(): void {
    if (this.closed) throw transportClosed();
  }

  /** How many unacked messages a new consumer may hold. */
  private prefetch(): number {
    return this.options.prefetch ?? this.mostAsked;
  }

  private async names(queue: string): Promise<QueueNames> {
    this.open();
    // The registry only serves listQueues: a note that fails (its queue's leader moving after a
    // node loss) is tried again by the next call, and never stops the messages.
    this.registry.note(queue).catch(() => undefined);
    return this.topology.ensure(queue);
  }

  private async consumer(queue: string): Promise<QueueConsumer> {
    const names = await this.names(queue);
    let consumer = this.consumers.get(queue);
    if (!consumer) {
      consumer = new QueueConsumer(this.connection, names, (closed) => this.changed(closed), this.wire);
      this.consumers.set(queue, consumer);
    }
    return consumer;
  }

  /** Publishes messages: ready ones to their queue, delayed ones into the delay levels. */
  private async send(messages: readonly Outgoing[]): Promise<void> {
    const outgoing = await Promise.all(
      messages.map(async (message) => {
        let names = await this.names(message.queue);
        // Declaring levels takes time, which shortens the delay left: declare until the levels it
        // needs now are there (each round declares only what is new).
        for (let held = this.heldFor(message); ; held = this.heldFor(message)) {
          if (held === 0) return this.outgoing(message, names, 0);
          const needed = setLevels(held);
          if (this.topology.declared(message.queue, needed)) return this.outgoing(message, names, held);
          names = await this.topology.ensureLevels(message.queue, needed);
        }
      }),
    );
    await this.publisher.publish(outgoing);
  }

  /**
   * How long `message` waits in the delay levels: all but the last `delayLead` ms of its delay (it
   * leaves early, so it is in its queue when due), at most one pass (a longer delay goes round again
   * when it arrives); 0 for one that goes to its queue at once.
   */
  private heldFor(message: Outgoing): number {
    const delay = message.eta === undefined ? 0 : message.eta - Date.now();
    return delay <= this.options.delayLead ? 0 : Math.min(MAX_DELAY, delay - this.options.delayLead);
  }

  private outgoing(message: Outgoing, names: QueueNames, held: number): OutgoingMessage {
    const { id, queue, priority, eta, body, lost, previous } = message;
    const extraHeaders: Record<string, string | number> = {};
    if (eta !== undefined && eta > Date.now()) extraHeaders[ETA_HEADER] = eta;
    if (lost) extraHeaders[LOST_HEADER] = lost;
    const base = {
      id,
      queue,
      ...wireParts(this.wire.encode(body, previous)),
      priority: priority === 0 ? undefined : Math.min(255, Math.max(0, priority)),
      extraHeaders,
    };
    if (held === 0) return { ...base, exchange: '', routingKey: names.ready };
    return {
      ...base,
      exchange: delayExchange(this.settings.prefix, entryLevel(held)),
      routingKey: delayRoutingKey(held, names.ready),
    };
  }

  /**
   * Decides what a message taken from a queue becomes: a lease (returned), a message waiting out
   * the last of its delay here, one sent round the delay levels again, or a dead letter past
   * `maxDeliveries` (its workers died with it each time).
   */
  private async admit(consumer: QueueConsumer, received: Received): Promise<boolean> {
    const { eta, delivery } = received;
    if (received.unreadable !== undefined) {
      this.leases.add(received, Date.now() + this.settings.visibilityTimeout);
      await this.bury(received, received.unreadable);
      return false;
    }
    const now = Date.now();
    if (eta !== undefined && eta > now) {
      if (eta - now > 4 * this.options.delayLead) {
        await this.send([{ ...delivery, priority: received.priority, eta, previous: received.message }]);
        ackReceived(received);
      } else this.early.hold(consumer.names.queue, received);
      return false;
    }
    this.leases.add(received, now + this.settings.visibilityTimeout);
    if (this.capabilities.deliveryCounts === 'exact' && delivery.deliveries > this.settings.maxDeliveries) {
      await this.bury(received, `delivered ${delivery.deliveries} times, past maxDeliveries: its workers were lost`);
      return false;
    }
    this.wire.leased?.(received.message);
    return true;
  }

  /** Returns a lost delivery to its queue (a counted delivery), or dead-letters it at `maxDeliveries`. */
  private async settleLost(received: Received, reason: string): Promise<DeadLetter | undefined> {
    const exact = this.capabilities.deliveryCounts === 'exact';
    const { delivery, priority } = received;
    if (exact && delivery.deliveries >= this.settings.maxDeliveries) return this.bury(received, reason);
    // A confirmed copy that counts the lost delivery, then the ack: unlike a nack, the copy is in the
    // queue (and counted by `stats`) once this returns, and classic queues count it too.
    await this.send([{ ...delivery, priority, lost: delivery.deliveries, previous: received.message }]);
    this.release(delivery);
    return undefined;
  }

  /** Moves a held message into its queue's dead-letter queue (confirmed), then acks it. */
  private async bury(received: Received, reason: string): Promise<DeadLetter> {
    const { id, queue, body } = received.delivery;
    const names = await this.names(queue);
    const at = Date.now();
    await this.publisher.publish([
      {
        id,
        queue,
        ...wireParts(this.wire.copy(received.message)),
        exchange: '',
        routingKey: names.dead,
        extraHeaders: deadHeaders(reason, at),
      },
    ]);
    this.release(received.delivery);
    return { id, queue, body, reason, at };
  }

  /** Takes out the prefetched messages that were received before `before` (see lease-renewal.ts). */
  private takeStale(before: number): Received[] {
    const stale: Received[] = [];
    for (const consumer of this.consumers.values()) {
      const kept = consumer.buffer.filter((received) => received.at > before);
      stale.push(...consumer.buffer.filter((received) => received.at <= before));
      consumer.buffer.splice(0, consumer.buffer.length, ...kept);
    }
    return stale;
  }

  /** Sends prefetched messages back to their queue as copies (keeping their count), then acks them. */
  private async returnToQueue(received: readonly Received[]): Promise<void> {
    await this.send(
      received.map(({ delivery, priority, eta, message }) => ({
        ...delivery,
        priority,
        eta,
        lost: delivery.deliveries - 1,
        previous: message,
      })),
    );
    for (const each of received) ackReceived(each);
  }

  /**
   * Ends the lease of `delivery` and acks the message that holds it now: a renewal may have put a
   * copy in place of the delivery while a settle was under way (acking the one it replaced again
   * would close the channel).
   */
  private release(delivery: Delivery): void {
    const lease = this.leases.take(delivery);
    if (lease) ackReceived(lease.received);
  }

  /** Takes the consumer's delivered messages, higher priority first when the queue has priorities. */
  private fromBuffer(consumer: QueueConsumer): Received[] {
    const taken = consumer.buffer.splice(0);
    if (this.capabilities.priorities === 'higher-first') taken.sort((a, b) => b.priority - a.priority);
    return taken;
  }

  private putBack(consumer: QueueConsumer, received: Received): void {
    if (received.eta !== undefined && received.eta > Date.now()) this.early.hold(consumer.names.queue, received);
    else consumer.buffer.push(received);
  }

  private hasWork(queues: readonly string[]): boolean {
    return queues.some((queue) => (this.consumers.get(queue)?.buffer.length ?? 0) > 0 || this.early.hasDue(queue));
  }

  /** A message arrived, or a channel closed (its messages went back to RabbitMQ). */
  private changed(closed?: Channel): void {
    if (closed) {
      this.drops += 1;
      this.leases.forgetChannel(closed);
      this.early.forgetChannel(closed);
    }
    this.wake();
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

/** Takes every message of `name` with basic.get on `channel`. */
async function drain(channel: Channel, name: string, queue: string, wire: AmqpWire): Promise<Received[]> {
  const taken: Received[] = [];
  for (;;) {
    const message = await channel.get(name, { noAck: false });
    if (message === false) return taken;
    taken.push(readReceived(channel, message, queue, wire));
  }
}

/** How many passes `stats` makes at most, looking for two in a row that agree. */
const STATS_PASSES = 5;

/** One read of every place a queue's messages can be: `counts`, place by place, to compare passes. */
interface StatsPass {
  readonly counts: readonly number[];
  readonly stats: QueueStats;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
