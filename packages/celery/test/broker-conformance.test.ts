/**
 * The broker conformance suite on the Celery broker (kombu's Redis layout), under the capabilities it
 * declares. Its bodies are Celeriac task messages (the broker turns each into a Celery message and
 * back), whose one argument is the cases' text; a dead letter's body is the Celery message itself.
 */
import { Codec, type BrokerSettings, type Envelope } from '@celeriac/core';
import { decodeMessage } from '@celeriac/core/internal';
import { runBrokerConformance, type BodyFormat } from '@celeriac/core/testing';
import { taskBody } from './support/task-body';
import { CELERY_BROKER_CAPABILITIES, CeleryBroker } from '@celeriac/celery';
import { CeleryWorkflow } from '@celeriac/celery/internal';
import { RedisConnection } from '@celeriac/redis';
import { brokerPair, CELERY_REDIS_URL } from '@celeriac/test-support';
import { fromCeleryPayload } from '../src/protocol/message';
import type { CeleryPayload } from '../src/protocol/payload';

const codec = new Codec();

/** The cases' text as the one argument of a Celeriac task message, and back. */
const CELERY_BODIES: BodyFormat = {
  encode: (envelope: Envelope) => taskBody(codec, envelope),
  decode: (body: string) => {
    const parsed = JSON.parse(body) as Partial<CeleryPayload>;
    // A dead letter keeps the Celery message as it was taken; everything else is a Celeriac message.
    const message =
      parsed.properties === undefined
        ? decodeMessage(codec, body)
        : fromCeleryPayload(codec, parsed as CeleryPayload, parsed.properties.delivery_info.routing_key);
    return String(message.args[0]);
  },
};

/** A Celery broker of its own connection; kombu's keys under the test's prefix too. */
function celeryBroker(settings: BrokerSettings): CeleryBroker {
  const options = { keyPrefix: `${settings.prefix}:kombu:`, visibilityTimeout: settings.visibilityTimeout };
  return new CeleryBroker(new RedisConnection(CELERY_REDIS_URL), settings, options, codec, new CeleryWorkflow(codec));
}

runBrokerConformance('celery on redis', CELERY_BROKER_CAPABILITIES, brokerPair(celeryBroker, CELERY_REDIS_URL), {
  bodies: CELERY_BODIES,
});
