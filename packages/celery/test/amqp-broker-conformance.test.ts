/**
 * The broker conformance suite on the Celery protocol on RabbitMQ (kombu's AMQP layout, the Celery
 * wire of `@celeriac/amqp`'s transport), with the shared state on Redis, under the capabilities an
 * app with `protocol: 'celery'` and an `amqp://` broker declares. Bodies are Celeriac task messages
 * whose one argument is the cases' text (the wire turns each into a Celery message and back). The
 * shared queue is the one Python names, without the app's prefix; here each test's queues get its
 * prefix, as the suite's tests reuse queue names on one vhost (the e2e tests with Python Celery check
 * the names Python uses).
 */
import { createSplitBroker, decodeMessage, splitCapabilities } from '@celeriac/core/internal';
import { Codec, type BrokerSettings, type Envelope } from '@celeriac/core';
import { runBrokerConformance, type BodyFormat } from '@celeriac/core/testing';
import { taskBody } from './support/task-body';
import { AmqpTransport } from '@celeriac/amqp';
import { celeryAmqpCapabilities, CeleryAmqpWire } from '@celeriac/celery';
import { CeleryWorkflow } from '@celeriac/celery/internal';
import { REDIS_BROKER_CAPABILITIES, RedisBroker, RedisConnection } from '@celeriac/redis';
import { brokerPair, REDIS_URL, useTestVhost } from '@celeriac/test-support';

const codec = new Codec();

/** The cases' text as the one argument of a Celeriac task message, and back. */
const BODIES: BodyFormat = {
  encode: (envelope: Envelope) => taskBody(codec, envelope),
  decode: (body: string) => String(decodeMessage(codec, body).args[0]),
};

/** The Celery wire with each test's queues under its prefix (see above). */
class PrefixedCeleryWire extends CeleryAmqpWire {
  override readyQueue(prefix: string, queue: string): string {
    return `${prefix}.${queue}`;
  }
}

const vhost = useTestVhost('celery-conformance');

/** RabbitMQ in Celery's layout for the messages and Redis for the rest, as an app with protocol 'celery' joins them. */
function splitBroker(settings: BrokerSettings) {
  const wire = new PrefixedCeleryWire(codec, new CeleryWorkflow(codec));
  return createSplitBroker(
    new AmqpTransport(vhost().url, settings, { queueType: 'classic', delayLead: 0, wire }),
    new RedisBroker(new RedisConnection(REDIS_URL), settings),
  );
}

runBrokerConformance(
  'celery on rabbitmq',
  splitCapabilities(celeryAmqpCapabilities(), REDIS_BROKER_CAPABILITIES),
  brokerPair(splitBroker),
  { bodies: BODIES },
);
