/**
 * @celeriac/celery: Celery protocol v2, so Celeriac and Python Celery share queues, results, events
 * and remote control. `new Celeriac({ broker, protocol: 'celery' })` uses it; import this package
 * directly only to build the broker and backend by hand. The broker-neutral protocol is in
 * `src/protocol/`, kombu's Redis layout in `src/kombu-redis/`, kombu's AMQP layout (the wire of
 * `@celeriac/amqp`'s transport) in `src/kombu-amqp/`; what Celeriac's own packages share
 * beyond this is in `@celeriac/celery/internal`.
 */
export { CeleryBackend, type CeleryBackendOptions } from './kombu-redis/backend';
export { CeleryBroker, type CeleryBrokerOptions } from './kombu-redis/broker';
export { CELERY_BACKEND_CAPABILITIES, CELERY_BROKER_CAPABILITIES } from './kombu-redis/capabilities';
export { celeryAmqpCapabilities } from './kombu-amqp/capabilities';
export { CeleryAmqpWire } from './kombu-amqp/wire';
export { kwargs, type CeleryKwargs } from './protocol/kwargs';
