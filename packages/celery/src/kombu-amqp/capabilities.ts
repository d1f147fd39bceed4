/**
 * What the Celery protocol on RabbitMQ (`protocol: 'celery'` with an `amqp://` broker) declares for
 * its messages: RabbitMQ's flags for the queue type the Python side uses (classic, Celery's default,
 * or quorum), named for errors. The shared state lives in the store beside it, as for Celeriac's
 * own RabbitMQ transport.
 */
import { amqpCapabilities, type AmqpQueueType } from '@celeriac/amqp';
import type { BrokerCapabilities } from '@celeriac/core';

/** How error messages name the Celery protocol on RabbitMQ. */
export const CELERY_AMQP = "the Celery protocol on RabbitMQ (protocol: 'celery', amqp://)";

/** The message flags of the Celery protocol on RabbitMQ, for queues of `queueType` (and `maxPriority`). */
export function celeryAmqpCapabilities(queueType: AmqpQueueType = 'classic', maxPriority?: number): BrokerCapabilities {
  return { ...amqpCapabilities(queueType, maxPriority), transport: CELERY_AMQP };
}
