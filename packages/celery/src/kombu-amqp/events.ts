/**
 * Celery events on RabbitMQ: published on the `celeryev` topic exchange (durable, as kombu declares
 * Celery's `Exchange('celeryev', type='topic')`), the event's type with a dot as routing key
 * (`task.succeeded`), transient, as a Celery worker sends them. Receivers (`celery events`, Flower)
 * bind a queue of their own. Sent as best effort: an event RabbitMQ does not take now is dropped,
 * and never fails the write of the record it came with.
 */
import type { AmqpFanout, ExchangeShape } from '@celeriac/amqp';
import { EVENT_EXCHANGE, type CeleryEventSender } from '../protocol/events';

/** Celery's event exchange on RabbitMQ. */
export const CELERYEV: ExchangeShape = { name: EVENT_EXCHANGE, type: 'topic', durable: true };

/** The sender of Celery events through `exchange` (an {@link AmqpFanout} on {@link CELERYEV}). */
export function amqpEventSender(exchange: AmqpFanout): CeleryEventSender {
  return (celery) =>
    exchange
      .publish(
        { content: Buffer.from(JSON.stringify(celery.body)), headers: { hostname: celery.body.hostname } },
        CELERYEV,
        celery.routingKey,
      )
      .catch(() => undefined);
}
