/**
 * `@celeriac/amqp`: Celeriac's messages on RabbitMQ (see docs/rabbitmq.md). The transport holds the
 * messages only; an app pairs it with a store (Redis) for the shared state.
 */
export { AmqpTransport } from './amqp-transport';
export { AMQP_CAPABILITIES, amqpCapabilities } from './capabilities';
export { AMQP_DEFAULTS, type AmqpQueueType, type AmqpTransportOptions } from './options';
export { CELERIAC_WIRE, type AmqpMessage, type AmqpWire, type WireMessage, type WireReading } from './wire';
export { AmqpFanout, DEFAULT_EXCHANGE, type ExchangeShape, type FanoutMessage } from './fanout';

/** The URL schemes of RabbitMQ. */
export const AMQP_SCHEMES: readonly string[] = ['amqp:', 'amqps:'];
