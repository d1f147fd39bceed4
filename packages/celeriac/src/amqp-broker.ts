/**
 * `amqp://` and `amqps://` brokers: RabbitMQ for the messages, joined to a Redis broker that keeps
 * the shared state (revocations, worker records, the control channel) on the app's backend. The URL
 * may list a cluster's nodes (`amqp://u:p@mq1:5672,mq2:5672/vhost`, tried in turn) and carry the
 * transport's options as query parameters: `queueType` (`quorum` or `classic`), `maxPriority`,
 * `prefetch`, `consumerTimeout` (the server's, in ms).
 */
import { CeleriacError, type Broker, type BrokerCapabilities, type BrokerSettings } from '@celeriac/core';
import { createSplitBroker, redactUrl, splitCapabilities, transportHosts } from '@celeriac/core/internal';
import {
  AMQP_SCHEMES,
  AmqpFanout,
  AmqpTransport,
  amqpCapabilities,
  type AmqpTransportOptions,
  type AmqpWire,
  type ExchangeShape,
} from '@celeriac/amqp';
import { celeryAmqpCapabilities } from '@celeriac/celery';
import { PIDBOX, withCeleryRemoteControl } from '@celeriac/celery/internal';
import { REDIS_BROKER_CAPABILITIES } from '@celeriac/redis';

/** The query parameters the transport reads (the rest go to amqplib). */
const OWN_PARAMETERS = ['queueType', 'maxPriority', 'prefetch', 'consumerTimeout'] as const;

/** True for an `amqp://` or `amqps://` URL. */
export function isAmqpUrl(target: URL | object): boolean {
  return target instanceof URL && AMQP_SCHEMES.includes(target.protocol);
}

/**
 * What an amqp:// app's broker can do (RabbitMQ's flags, the store's control channel and worker
 * records); with `celery`, for the Celery protocol, whose queues are classic unless the URL says quorum.
 */
export function amqpBrokerCapabilities(url: URL, celery = false): BrokerCapabilities {
  const { queueType, maxPriority } = transportOptions(url);
  const messages = celery
    ? celeryAmqpCapabilities(queueType, maxPriority)
    : amqpCapabilities(queueType ?? 'quorum', maxPriority);
  return splitCapabilities(messages, REDIS_BROKER_CAPABILITIES);
}

/**
 * The broker of an amqp:// URL, its shared state kept by `store` (a Redis broker on the backend);
 * `wire`: another message format than Celeriac's (the Celery protocol's, on classic queues unless
 * the URL says quorum).
 */
export function createAmqpBroker(url: URL, settings: BrokerSettings, store: Broker, wire?: AmqpWire): Broker {
  const options = transportOptions(url);
  const nodes = nodeUrls(url);
  const where = nodes.map(redactUrl).join(', ');
  // A message with an eta comes back to a queue Python workers share when due, not early: a
  // Python worker runs what it takes within a few ms of its eta at once.
  const shape = wire ? { queueType: 'classic' as const, delayLead: 0, ...options, wire } : options;
  const broker = createSplitBroker(new AmqpTransport(nodes, settings, { ...shape, where }), store);
  // Celery's remote control (`celery inspect`, revoke from Python) lives on RabbitMQ's pidbox exchange.
  return wire ? withCeleryRemoteControl(broker, new AmqpFanout(nodes, where, PIDBOX)) : broker;
}

/** A fanout (or topic) exchange `exchange` on the RabbitMQ of `url`, on a connection of its own. */
export function amqpExchange(url: URL, exchange: ExchangeShape): AmqpFanout {
  const nodes = nodeUrls(url);
  return new AmqpFanout(nodes, nodes.map(redactUrl).join(', '), exchange);
}

/** The error for an amqp:// broker without a Redis backend to keep the shared state. */
export function amqpNeedsStore(given: string): CeleriacError {
  return new CeleriacError(
    'CELERIAC_INVALID_OPTION',
    `An amqp:// broker holds the messages only; results, revocations, worker records and the control ` +
      `channel need a store beside it, and the backend is ${given}. Add backend: 'redis://host:6379/0' ` +
      `(a redis://, rediss://, redis+sentinel:// or redis+cluster:// URL, or an ioredis client).`,
  );
}

/** The transport's options from the URL's query. */
function transportOptions(url: URL): AmqpTransportOptions {
  const params = url.searchParams;
  const queueType = params.get('queueType') ?? undefined;
  if (queueType !== undefined && queueType !== 'quorum' && queueType !== 'classic') {
    throw new CeleriacError(
      'CELERIAC_INVALID_OPTION',
      `The broker URL's queueType is ${queueType}; use quorum (the default) or classic.`,
    );
  }
  const maxPriority = numberParameter(url, 'maxPriority', 1, 255);
  const prefetch = numberParameter(url, 'prefetch', 1, 65_535);
  const consumerTimeout = numberParameter(url, 'consumerTimeout', 1_000, 2 ** 31 - 1);
  return {
    ...(consumerTimeout === undefined ? {} : { consumerTimeout }),
    ...(queueType === undefined ? {} : { queueType }),
    ...(maxPriority === undefined ? {} : { maxPriority }),
    ...(prefetch === undefined ? {} : { prefetch }),
  };
}

function numberParameter(url: URL, name: string, min: number, max: number): number | undefined {
  const text = url.searchParams.get(name);
  if (text === null) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new CeleriacError(
      'CELERIAC_INVALID_OPTION',
      `The broker URL's ${name} is ${text}; use a whole number from ${min} to ${max}.`,
    );
  }
  return value;
}

/** One URL a node, without the transport's own parameters. */
function nodeUrls(url: URL): string[] {
  const hosts = transportHosts(url);
  const query = new URLSearchParams(url.searchParams);
  for (const name of OWN_PARAMETERS) query.delete(name);
  const search = query.size > 0 ? `?${query.toString()}` : '';
  const userInfo = url.username || url.password ? `${url.username}${url.password ? `:${url.password}` : ''}@` : '';
  return (hosts.length > 0 ? hosts : [url.host]).map(
    (host) => `${url.protocol}//${userInfo}${host}${url.pathname}${search}`,
  );
}
