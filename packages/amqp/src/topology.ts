/**
 * Declares what a queue needs, once per connection: the delay exchanges (shared by the prefix),
 * the ready queue with its arguments exactly as configured, its dead-letter queue, and its delay
 * level queues with their bindings (see delay-routing.ts). A queue that exists with other
 * arguments fails with `CELERIAC_QUEUE_MISMATCH` naming the queue and the argument.
 */
import type { Channel } from 'amqplib';
import { isPreconditionFailed, queueMismatch } from './amqp-errors';
import { ChannelSlot } from './channel-slot';
import type { AmqpConnection } from './connection';
import { deliveryPattern, levelQueuePattern, passOnPattern } from './delay-routing';
import { DELAY_LEVELS, delayExchange, deliveryExchange, queueNames, type QueueNames } from './names';
import type { AmqpQueueType } from './options';
import type { AmqpWire } from './wire';

/** How the ready queues are declared. */
export interface QueueShape {
  readonly queueType: AmqpQueueType;
  readonly maxPriority?: number | undefined;
}

/** The arguments a ready queue is declared with. */
export function readyArguments(shape: QueueShape): Record<string, unknown> {
  if (shape.queueType === 'quorum') return { 'x-queue-type': 'quorum' };
  return shape.maxPriority === undefined ? {} : { 'x-max-priority': shape.maxPriority };
}

/**
 * The arguments of the queues every call needs beside the ready queues (dead letters, the queue
 * registry): of the ready queues' type, so that on a cluster they are replicated as those are (a
 * classic one is lost with its node, and declaring it fails while its node is down).
 */
export function companionArguments(queueType: AmqpQueueType): Record<string, unknown> {
  return queueType === 'quorum' ? { 'x-queue-type': 'quorum' } : {};
}

/** Channels the delay levels are declared over at once (RabbitMQ creates queues of different channels in parallel). */
const DECLARING_CHANNELS = 4;

/**
 * Declares queues and their delay topology on demand, remembering what this connection declared.
 * A queue's delay levels are declared as delays first need them (a delay needs the levels of its
 * set bits), or all at once for `stats` and `purge`, which read every level.
 */
export class Topology {
  private readonly slots: ChannelSlot[];
  private exchanges: Promise<void> | undefined;
  private readonly queues = new Map<string, Promise<QueueNames>>();
  private readonly levels = new Map<string, Promise<void>>();
  private readonly done = new Set<string>();

  constructor(
    connection: AmqpConnection,
    private readonly prefix: string,
    private readonly shape: QueueShape,
    private readonly wire: AmqpWire,
  ) {
    this.slots = Array.from({ length: DECLARING_CHANNELS }, () => new ChannelSlot(connection, 'plain'));
    // A new connection may be to a node (or a broker restarted) without them: declare again.
    connection.onLost(() => {
      this.exchanges = undefined;
      this.queues.clear();
      this.levels.clear();
      this.done.clear();
    });
  }

  /** The names of `queue`, once its ready and dead-letter queues are declared. */
  ensure(queue: string): Promise<QueueNames> {
    return remembered(this.queues, queue, () => this.declare(queue));
  }

  /** The names of `queue`, once it and the delay levels `levels` (all when left out) are declared. */
  async ensureLevels(queue: string, levels?: readonly number[]): Promise<QueueNames> {
    const names = await this.ensure(queue);
    const wanted = levels ?? names.delays.map((_, level) => level);
    await Promise.all(
      wanted.map((level) =>
        remembered(this.levels, `${level} ${queue}`, async () => {
          await this.declareLevel(names, level);
          this.done.add(`${level} ${queue}`);
        }),
      ),
    );
    return names;
  }

  /** True when this connection declared the delay levels `levels` of `queue` (and they are done). */
  declared(queue: string, levels: readonly number[]): boolean {
    return levels.every((level) => this.done.has(`${level} ${queue}`));
  }

  /** The delay levels of `queue` this connection declared, highest first. */
  declaredLevels(queue: string): number[] {
    const levels: number[] = [];
    for (let level = DELAY_LEVELS - 1; level >= 0; level -= 1)
      if (this.done.has(`${level} ${queue}`)) levels.push(level);
    return levels;
  }

  /** Closes the declaring channels. */
  async close(): Promise<void> {
    await Promise.all(this.slots.map((slot) => slot.close()));
  }

  private async declare(queue: string): Promise<QueueNames> {
    const names = queueNames(this.prefix, queue, this.wire.readyQueue(this.prefix, queue));
    this.exchanges ??= this.declareExchanges().catch((error: unknown) => {
      this.exchanges = undefined;
      throw error;
    });
    await this.exchanges;
    const channel = await this.slot(0).get();
    await declareQueue(channel, names.ready, readyArguments(this.shape));
    await declareQueue(channel, names.dead, companionArguments(this.shape.queueType));
    await channel.bindQueue(names.ready, deliveryExchange(this.prefix), deliveryPattern(names.ready));
    return names;
  }

  private async declareLevel(names: QueueNames, level: number): Promise<void> {
    const channel = await this.slot(level).get();
    const name = names.delays[level] as string;
    await declareQueue(channel, name, {
      'x-message-ttl': 2 ** level,
      'x-dead-letter-exchange': level === 0 ? deliveryExchange(this.prefix) : delayExchange(this.prefix, level - 1),
    });
    await channel.bindQueue(name, delayExchange(this.prefix, level), levelQueuePattern(level, names.ready));
  }

  private async declareExchanges(): Promise<void> {
    const levels = Array.from({ length: DELAY_LEVELS }, (_, level) => level);
    const first = await this.slot(0).get();
    await first.assertExchange(deliveryExchange(this.prefix), 'topic', { durable: true });
    await Promise.all(
      levels.map(async (level) => {
        await (
          await this.slot(level).get()
        ).assertExchange(delayExchange(this.prefix, level), 'topic', { durable: true });
      }),
    );
    await Promise.all(
      levels.map(async (level) => {
        const next = level === 0 ? deliveryExchange(this.prefix) : delayExchange(this.prefix, level - 1);
        await (
          await this.slot(level).get()
        ).bindExchange(next, delayExchange(this.prefix, level), passOnPattern(level));
      }),
    );
  }

  private slot(index: number): ChannelSlot {
    return this.slots[index % this.slots.length] as ChannelSlot;
  }
}

/** The promise kept under `key`, made by `make` when there is none (and dropped if it fails). */
function remembered<T>(cache: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  let made = cache.get(key);
  if (!made) {
    made = make();
    cache.set(key, made);
    made.catch(() => cache.delete(key));
  }
  return made;
}

/** Declares a durable queue with exactly `args`; one that exists with others is `CELERIAC_QUEUE_MISMATCH`. */
export async function declareQueue(channel: Channel, name: string, args: Record<string, unknown>): Promise<void> {
  try {
    await channel.assertQueue(name, { durable: true, arguments: args });
  } catch (error) {
    throw isPreconditionFailed(error) ? queueMismatch(name, error) : error;
  }
}
