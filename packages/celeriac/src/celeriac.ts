/**
 * `Celeriac`: the app users create. It adds to the core app the Redis transport (`redis://`,
 * `rediss://`, Redis Sentinel `redis+sentinel://` and Redis Cluster `redis+cluster://` (each also
 * with TLS: `rediss+...`); `memory://` comes from core), in-process workers, and periodic tasks
 * (`schedule`, `beat`).
 */
import { Beat, type ScheduleEntry } from '@celeriac/beat';
import {
  CeleriacCore,
  CeleriacError,
  MemoryBeatStore,
  type BackendCapabilities,
  type BackendSettings,
  type BeatStore,
  type Broker,
  type BrokerCapabilities,
  type BrokerSettings,
  type Codec,
  type ResultBackend,
  type CeleriacOptions as CoreOptions,
  type TransportClient,
} from '@celeriac/core';
import { parseTransportUrl, runtimeOf } from '@celeriac/core/internal';
import { POSTGRES_BACKEND_CAPABILITIES, POSTGRES_BROKER_CAPABILITIES, POSTGRES_SCHEMES } from '@celeriac/postgres';
import { AMQP_SCHEMES, DEFAULT_EXCHANGE } from '@celeriac/amqp';
import { Worker, type WorkerOptions } from '@celeriac/worker';
import { CELERY_BACKEND_CAPABILITIES, CELERY_BROKER_CAPABILITIES, CeleryAmqpWire } from '@celeriac/celery';
import { REDIS_BACKEND_CAPABILITIES, REDIS_BROKER_CAPABILITIES, type RedisClient } from '@celeriac/redis';
import { CLUSTER_SCHEMES, isRedisClient, SENTINEL_SCHEMES } from '@celeriac/redis/internal';
import { amqpEventSender, CELERYEV, type FollowUpSender } from '@celeriac/celery/internal';
import { amqpBrokerCapabilities, amqpExchange, amqpNeedsStore, createAmqpBroker, isAmqpUrl } from './amqp-broker';
import type { CeleriacOptions } from './options';
import { PostgresTransports } from './postgres-transports';
import { RedisTransports } from './transports';

/** An amqp:// URL with the transport's defaults, for naming what RabbitMQ can do. */
const AMQP_URL = new URL('amqp://localhost');

/** The Redis URL schemes. */
const REDIS_SCHEMES = ['redis:', 'rediss:', ...SENTINEL_SCHEMES, ...CLUSTER_SCHEMES];

/** The Celeriac app: declare tasks, send them, read results, run workers, schedule periodic tasks. */
export class Celeriac extends CeleriacCore {
  #redisTransports: RedisTransports | undefined;
  #postgresTransports: PostgresTransports | undefined;
  #beatInstance: Beat | undefined;
  /** With `protocol: 'celery'` on RabbitMQ: the wire, and the broker the backend sends follow-ups through. */
  #celeryAmqp: { wire: CeleryAmqpWire; broker?: Broker } | undefined;

  /**
   * An app on `options.broker`: a URL, a Broker object, or an ioredis client you made and close
   * yourself after `app.close()` (see {@link CeleriacOptions.broker}).
   * @throws CeleriacError `CELERIAC_INVALID_OPTION` or `CELERIAC_UNSUPPORTED_URL`, naming the option.
   */
  constructor(options: CeleriacOptions = {}) {
    super(coreOptions(options));
  }

  /**
   * Creates an in-process worker for this app (call `start()` on it). Closing the app closes it.
   * For process pools, run the `celeriac worker` command.
   */
  worker(options: WorkerOptions = {}): Worker {
    return new Worker(this, options);
  }

  /**
   * Schedules a task periodically: `app.schedule('cleanup', { task: cleanup, schedule:
   * crontab('0 3 * * *', { tz: 'Asia/Shanghai' }) })`. The `celeriac beat` command fires it.
   * @throws CeleriacError `CELERIAC_INVALID_SCHEDULE`, naming the entry, for a bad cron expression,
   * time zone, interval, task, argument or option, or a name already scheduled.
   */
  schedule<A extends unknown[]>(name: string, entry: ScheduleEntry<A>): void {
    this.beat.define(name, entry);
  }

  /**
   * The app's periodic entries: `add`, `remove` and `list` entries at run time (kept in the broker's
   * Redis, picked up by running schedulers at once), and `scheduler()` to fire them in this process.
   */
  get beat(): Beat {
    this.#beatInstance ??= new Beat(this, () => this.createBeatStore());
    return this.#beatInstance;
  }

  protected override createBroker(target: URL | TransportClient, settings: BrokerSettings): Broker {
    const postgres = postgresUrl(target);
    if (postgres) return this.postgres().broker(postgres, settings);
    if (target instanceof URL && isAmqpUrl(target)) {
      const store = this.redis().broker(this.store(), settings);
      if (this.options.protocol !== 'celery') return createAmqpBroker(target, settings, store);
      const celery = this.celeryAmqp();
      celery.broker = createAmqpBroker(target, settings, store, celery.wire);
      return celery.broker;
    }
    if (!this.isRedis(target)) return super.createBroker(target, settings);
    if (this.options.protocol === 'celery') {
      return this.redis().celeryBroker(target, settings, this.options.celery, runtimeOf(this).codec);
    }
    return this.redis().broker(target, settings);
  }

  protected override createBackend(
    target: URL | TransportClient,
    settings: BackendSettings,
    codec: Codec,
  ): ResultBackend {
    const postgres = postgresUrl(target);
    if (postgres) return this.postgres().backend(postgres, settings, codec);
    if (!this.isRedis(target)) return super.createBackend(target, settings, codec);
    if (this.options.protocol === 'celery') {
      const broker = typeof this.options.broker === 'string' ? parseTransportUrl(this.options.broker) : undefined;
      if (!broker || !isAmqpUrl(broker))
        return this.redis().celeryBackend(target, settings, this.options.celery, codec);
      // On RabbitMQ, a chain's next steps go through the broker, and Celery events to its celeryev exchange.
      // One connection of its own for Celery's broadcasts: events, and results to rpc:// callers.
      const broadcasts = amqpExchange(broker, CELERYEV);
      const { wire } = this.celeryAmqp();
      return this.redis().celeryBackend(target, settings, this.options.celery, codec, {
        sendFollowUps: this.celeryAmqpFollowUps(),
        celeryEvents: { send: amqpEventSender(broadcasts), close: () => broadcasts.close() },
        // Python callers on `rpc://` read results from their reply queue: sent there too.
        afterStore: async (entries) => {
          const replies = wire.rpcReplies(entries);
          await Promise.all(
            replies.map(({ routingKey, correlationId, content }) =>
              broadcasts.publish({ content, correlationId }, DEFAULT_EXCHANGE, routingKey),
            ),
          );
        },
      });
    }
    return this.redis().backend(target, settings, codec);
  }

  protected override brokerCapabilities(target: URL | TransportClient): BrokerCapabilities {
    if (postgresUrl(target)) return POSTGRES_BROKER_CAPABILITIES;
    if (target instanceof URL && isAmqpUrl(target))
      return amqpBrokerCapabilities(target, this.options.protocol === 'celery');
    if (!this.isRedis(target)) return super.brokerCapabilities(target);
    return this.options.protocol === 'celery' ? CELERY_BROKER_CAPABILITIES : REDIS_BROKER_CAPABILITIES;
  }

  protected override backendCapabilities(target: URL | TransportClient): BackendCapabilities {
    if (postgresUrl(target)) return POSTGRES_BACKEND_CAPABILITIES;
    if (target instanceof URL && isAmqpUrl(target))
      throw amqpNeedsStore(`the broker's own URL (${target.protocol}//...)`);
    if (!this.isRedis(target)) return super.backendCapabilities(target);
    return this.options.protocol === 'celery' ? CELERY_BACKEND_CAPABILITIES : REDIS_BACKEND_CAPABILITIES;
  }

  protected override knownCapabilities(): { brokers: BrokerCapabilities[]; backends: BackendCapabilities[] } {
    const { brokers, backends } = super.knownCapabilities();
    return {
      brokers: [
        REDIS_BROKER_CAPABILITIES,
        ...brokers,
        CELERY_BROKER_CAPABILITIES,
        POSTGRES_BROKER_CAPABILITIES,
        amqpBrokerCapabilities(AMQP_URL),
        amqpBrokerCapabilities(AMQP_URL, true),
      ],
      backends: [REDIS_BACKEND_CAPABILITIES, ...backends, CELERY_BACKEND_CAPABILITIES, POSTGRES_BACKEND_CAPABILITIES],
    };
  }

  protected override isTransportClient(target: object): boolean {
    return isRedisClient(target);
  }

  protected override supportedSchemes(): string[] {
    return [...super.supportedSchemes(), ...REDIS_SCHEMES, ...POSTGRES_SCHEMES, ...AMQP_SCHEMES];
  }

  /** Beat keeps its state where the broker is: in Redis, or in this process for `memory://`. */
  private createBeatStore(): BeatStore {
    const broker = this.options.broker;
    if (isRedisClient(broker)) return this.redis().beatStore(broker, this.options.prefix);
    if (typeof broker !== 'string') {
      throw new CeleriacError(
        'CELERIAC_INVALID_OPTION',
        'Periodic tasks keep their state next to the broker: give the broker as a URL (redis://... or ' +
          'memory://) or an ioredis client, not as a Broker object.',
      );
    }
    const url = parseTransportUrl(broker);
    if (postgresUrl(url)) return this.postgres().beatStore(url, this.options.prefix);
    // An amqp:// app keeps its beat state where its shared state is: in the backend's Redis.
    if (isAmqpUrl(url)) return this.redis().beatStore(this.store(), this.options.prefix);
    return REDIS_SCHEMES.includes(url.protocol)
      ? this.redis().beatStore(url, this.options.prefix)
      : new MemoryBeatStore();
  }

  /** The Redis an amqp:// broker keeps its shared state in: the backend's. */
  private store(): URL | RedisClient {
    const { backend } = this.options;
    if (isRedisClient(backend)) return backend;
    if (typeof backend === 'string') {
      const url = parseTransportUrl(backend);
      if (REDIS_SCHEMES.includes(url.protocol)) return url;
      throw amqpNeedsStore(`${url.protocol}//...`);
    }
    throw amqpNeedsStore('a ResultBackend object');
  }

  /** True for a Redis URL or an ioredis client. */
  private isRedis(target: URL | TransportClient): target is URL | (TransportClient & RedisClient) {
    return target instanceof URL ? REDIS_SCHEMES.includes(target.protocol) : isRedisClient(target);
  }

  /** The Celery wire on RabbitMQ, sharing the Celery workflow tracker with the backend. */
  private celeryAmqp(): { wire: CeleryAmqpWire; broker?: Broker } {
    const { codec } = runtimeOf(this);
    this.#celeryAmqp ??= { wire: new CeleryAmqpWire(codec, this.redis().celeryWorkflow(codec)) };
    return this.#celeryAmqp;
  }

  /** How the Celery backend sends a chain's next steps on RabbitMQ: through this app's broker. */
  private celeryAmqpFollowUps(): FollowUpSender {
    return (followUps) => {
      const celery = this.celeryAmqp();
      const broker = celery.broker ?? this.broker;
      return celery.wire.send(followUps, (envelopes) =>
        broker.publish(envelopes.map((envelope) => ({ ...envelope, idempotent: false }))),
      );
    };
  }

  private postgres(): PostgresTransports {
    this.#postgresTransports ??= new PostgresTransports();
    return this.#postgresTransports;
  }

  private redis(): RedisTransports {
    this.#redisTransports ??= new RedisTransports();
    return this.#redisTransports;
  }
}

/** `target` when it is a `postgres://` or `postgresql://` URL. */
function postgresUrl(target: unknown): URL | undefined {
  return target instanceof URL && POSTGRES_SCHEMES.includes(target.protocol) ? target : undefined;
}

/**
 * Core's options for `options`: an ioredis client as broker serves as the backend too unless one is
 * given, and passes through core as an opaque client.
 * @throws CeleriacError `CELERIAC_INVALID_OPTION` for an ioredis client from another copy of ioredis.
 */
function coreOptions(options: CeleriacOptions): CoreOptions {
  const { broker, backend } = options;
  for (const [what, target] of [
    ['broker', broker],
    ['backend', backend],
  ] as const) {
    if (looksLikeForeignClient(target)) {
      throw new CeleriacError(
        'CELERIAC_INVALID_OPTION',
        `The ${what} is an ioredis client from another copy of ioredis than celeriac's. Install one ioredis ` +
          `version (npm ls ioredis) so that both use the same.`,
      );
    }
  }
  if (typeof broker === 'string' && isAmqpUrl(parseTransportUrl(broker))) checkAmqpStore(backend);
  const defaultBackend = isRedisClient(broker) ? broker : undefined;
  return { ...options, backend: backend ?? defaultBackend } as CoreOptions;
}

/**
 * An amqp:// broker needs a Redis backend for the shared state: fails the app's construction without one.
 * @throws CeleriacError `CELERIAC_INVALID_OPTION` saying to add `backend: 'redis://...'`.
 */
function checkAmqpStore(backend: CeleriacOptions['backend']): void {
  if (isRedisClient(backend)) return;
  if (typeof backend !== 'string') throw amqpNeedsStore(backend === undefined ? 'not given' : 'a ResultBackend object');
  const { protocol } = parseTransportUrl(backend);
  if (!REDIS_SCHEMES.includes(protocol)) throw amqpNeedsStore(`${protocol}//...`);
}

/** An ioredis-like client that `isRedisClient` does not know (its class comes from another ioredis). */
function looksLikeForeignClient(target: unknown): boolean {
  if (typeof target !== 'object' || target === null || isRedisClient(target)) return false;
  const client = target as { duplicate?: unknown; defineCommand?: unknown };
  return typeof client.duplicate === 'function' && typeof client.defineCommand === 'function';
}
