/** A message as it came off a RabbitMQ queue, with what Celeriac reads from its properties. */
import type { Channel, Message } from 'amqplib';
import type { Delivery } from '@celeriac/core';
import type { AmqpWire, WireReading } from './wire';

/** Header of the epoch ms a message is due at (absent: ready now). */
export const ETA_HEADER = 'x-celeriac-eta';
/** Header of the deliveries a message lost before it was published again (absent: none). */
export const LOST_HEADER = 'x-celeriac-lost';
/** Headers of a dead letter: why, when, and the queue it died in. */
export const REASON_HEADER = 'x-celeriac-reason';
export const DEAD_AT_HEADER = 'x-celeriac-dead-at';

/** One received message and the channel it must be settled on. */
export interface Received {
  readonly channel: Channel;
  readonly message: Message;
  readonly delivery: Delivery;
  readonly priority: number;
  /** Epoch ms it is due at, when it carries one. */
  readonly eta: number | undefined;
  /** Epoch ms this process received it: RabbitMQ's `consumer_timeout` runs from then. */
  readonly at: number;
  /** Why the wire could not read it (it is dead-lettered, never run). */
  readonly unreadable?: string;
}

/**
 * Reads a message off `queue` through `wire`. Quorum queues count every earlier delivery that came
 * back in `x-delivery-count`; classic queues only say `redelivered`. A copy Celeriac published again
 * for a lost delivery carries the count so far in its own header. The eta is the transport's own
 * header when it set one (a delay it routed), else what the wire reads.
 */
export function readReceived(channel: Channel, message: Message, queue: string, wire: AmqpWire): Received {
  const { properties, fields } = message;
  const headers = (properties.headers ?? {}) as Record<string, unknown>;
  const returned = Number(headers['x-delivery-count'] ?? 0);
  const lost = Number(headers[LOST_HEADER] ?? 0);
  const before =
    (Number.isFinite(lost) ? lost : 0) +
    (Number.isFinite(returned) && returned > 0 ? returned : fields.redelivered ? 1 : 0);
  const deliveries = 1 + before;
  const own = headers[ETA_HEADER] === undefined ? undefined : Number(headers[ETA_HEADER]);
  let reading: WireReading;
  let unreadable: string | undefined;
  try {
    reading = wire.read(message, queue);
  } catch (error) {
    unreadable = (error as Error).message;
    // A message from another client may name itself by correlation id only (Celery's task id).
    const named = [properties.messageId, properties.correlationId].find((value) => typeof value === 'string');
    const id = typeof named === 'string' ? named : `amqp-${fields.deliveryTag}`;
    reading = { id, body: message.content.toString('utf8') };
  }
  const eta = own !== undefined && Number.isFinite(own) ? own : reading.eta;
  return {
    channel,
    message,
    delivery: { id: reading.id, queue, body: reading.body, deliveries },
    priority: typeof properties.priority === 'number' ? properties.priority : 0,
    eta,
    at: Date.now(),
    ...(unreadable === undefined ? {} : { unreadable }),
  };
}

/** Acks `received` on its channel; a channel that closed meanwhile has requeued it already. */
export function ackReceived(received: Received): void {
  try {
    received.channel.ack(received.message);
  } catch {
    // The channel is gone: RabbitMQ put the message back, and it runs again (at least once).
  }
}
