/** The broker conformance suite on RabbitMQ (quorum queues), with the shared state on Redis. */
import type { BrokerSettings } from '@celeriac/core';
import { createSplitBroker, splitCapabilities } from '@celeriac/core/internal';
import { runBrokerConformance } from '@celeriac/core/testing';
import { AMQP_CAPABILITIES, amqpCapabilities, AmqpTransport, type AmqpTransportOptions } from '@celeriac/amqp';
import { REDIS_BROKER_CAPABILITIES, RedisBroker, RedisConnection } from '@celeriac/redis';
import { brokerPair, REDIS_URL, useTestVhost } from '@celeriac/test-support';

const vhost = useTestVhost('conformance');

/** RabbitMQ for the messages and Redis for the rest, as an amqp:// app joins them. */
function splitBroker(settings: BrokerSettings, options: AmqpTransportOptions = {}) {
  return createSplitBroker(
    new AmqpTransport(vhost().url, settings, options),
    new RedisBroker(new RedisConnection(REDIS_URL), settings),
  );
}

/** What an amqp:// app's broker declares: RabbitMQ's flags, with the store's control channel and worker records. */
const CAPABILITIES = splitCapabilities(AMQP_CAPABILITIES, REDIS_BROKER_CAPABILITIES);

/** The suite's fixtures on queues of `options`' type. */
function factory(options: AmqpTransportOptions = {}) {
  return brokerPair((settings) => splitBroker(settings, options));
}

runBrokerConformance('rabbitmq', CAPABILITIES, factory());

/**
 * Classic queues with priorities: higher first (above 10 counts as 10), delivery counts only as
 * "redelivered". Ten, as RabbitMQ advises: a queue of 255 priorities takes most of a second to declare.
 */
const CLASSIC = { queueType: 'classic', maxPriority: 10 } as const;
runBrokerConformance(
  'rabbitmq, classic queues',
  splitCapabilities(amqpCapabilities(CLASSIC.queueType, CLASSIC.maxPriority), REDIS_BROKER_CAPABILITIES),
  factory(CLASSIC),
);
