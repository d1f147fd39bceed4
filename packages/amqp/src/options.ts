/** The options of the RabbitMQ transport, with their defaults in one place. */

/** How Celeriac's ready queues are declared. */
export type AmqpQueueType = 'quorum' | 'classic';

/** Options of {@link AmqpTransport}. */
export interface AmqpTransportOptions {
  /**
   * The type of the ready queues: `quorum` (replicated on a cluster, exact delivery counts, no
   * priorities on RabbitMQ 3.10) or `classic` (one node, priorities with `maxPriority`).
   * @defaultValue `'quorum'`
   */
  readonly queueType?: AmqpQueueType;
  /**
   * With `queueType: 'classic'`: declares `x-max-priority` with this value (1–255), so higher
   * priorities are delivered first. Keep it small (RabbitMQ advises at most 10: each priority is a
   * sub-queue, and 255 of them take most of a second to declare). Left out: no priorities.
   * @defaultValue undefined
   */
  readonly maxPriority?: number;
  /**
   * Unacked messages one consumer (one queue of one worker) may hold. Left out: the largest count the
   * worker asked for before it started consuming (its slots and its prefetch).
   * @defaultValue undefined
   */
  readonly prefetch?: number;
  /**
   * How early a delayed message leaves the delay levels, in ms, so that it is in its queue when it
   * comes due; it waits the rest in the consumer (at most this long).
   * @defaultValue `50`
   */
  readonly delayLead?: number;
  /**
   * The server's `consumer_timeout`, in ms: how long RabbitMQ lets a delivery stay unacked before it
   * closes the channel and requeues what it held. Celeriac renews what it holds before half of it,
   * so a task may run longer (see docs/rabbitmq.md, "Long tasks"). Set it to the server's value
   * when that was changed.
   * @defaultValue `1_800_000` (RabbitMQ's default, 30 minutes)
   */
  readonly consumerTimeout?: number;
}

/** The defaults of {@link AmqpTransportOptions}. */
export const AMQP_DEFAULTS = {
  queueType: 'quorum',
  delayLead: 50,
  consumerTimeout: 1_800_000,
} as const satisfies AmqpTransportOptions;
