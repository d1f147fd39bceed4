/**
 * Maps broker and backend URLs to implementations: `memory://` (from core) and `redis://`,
 * `redis+sentinel://` and `redis+cluster://` (each also as `rediss...`), speaking Celeriac's protocol
 * or, with `protocol: 'celery'`, Celery's; or an ioredis client made by the caller. One app shares one
 * Redis connection set per URL (or client) between its broker, its backend and its beat store.
 */
import type { BackendSettings, BeatStore, BrokerSettings, Codec, ResultBackend, Broker } from '@celeriac/core';
import { transportUrlText } from '@celeriac/core/internal';
import { CeleryBackend, CeleryBroker, type CeleryBackendOptions, type CeleryBrokerOptions } from '@celeriac/celery';
import { CeleryWorkflow } from '@celeriac/celery/internal';
import { RedisBackend, RedisBeatStore, RedisBroker, RedisConnection, type RedisClient } from '@celeriac/redis';

/** A Redis URL, or an ioredis client the caller made (and closes). */
type RedisTarget = URL | RedisClient;

/** Creates Redis brokers and backends, sharing connections by URL (or by the client given). */
export class RedisTransports {
  private readonly connections = new Map<string | RedisClient, RedisConnection>();
  private workflow: CeleryWorkflow | undefined;

  /** A broker for a redis URL. */
  broker(target: RedisTarget, settings: BrokerSettings): Broker {
    return new RedisBroker(this.connection(target), settings);
  }

  /** A result backend for a redis URL. */
  backend(target: RedisTarget, settings: BackendSettings, codec: Codec): ResultBackend {
    return new RedisBackend(this.connection(target), settings, codec);
  }

  /** A broker that speaks Celery protocol v2 on kombu's Redis transport (`protocol: 'celery'`). */
  celeryBroker(target: RedisTarget, settings: BrokerSettings, options: CeleryBrokerOptions, codec: Codec): Broker {
    return new CeleryBroker(this.connection(target), settings, options, codec, this.celeryWorkflow(codec));
  }

  /**
   * A result backend in Celery's Redis result format (`protocol: 'celery'`); `elsewhere` when the
   * broker is not kombu's Redis (RabbitMQ): where a chain's next steps and Celery's events go.
   */
  celeryBackend(
    target: RedisTarget,
    settings: BackendSettings,
    options: CeleryBrokerOptions,
    codec: Codec,
    elsewhere: Pick<CeleryBackendOptions, 'sendFollowUps' | 'celeryEvents' | 'afterStore'> = {},
  ): ResultBackend {
    return new CeleryBackend(this.connection(target), settings, {
      keyPrefix: options.keyPrefix,
      resultKeyPrefix: options.resultKeyPrefix,
      codec,
      workflow: this.celeryWorkflow(codec),
      ...elsewhere,
    });
  }

  /** The one workflow tracker the app's Celery broker and backend share (the broker remembers, the backend sends). */
  celeryWorkflow(codec: Codec): CeleryWorkflow {
    this.workflow ??= new CeleryWorkflow(codec);
    return this.workflow;
  }

  /** The beat store (scheduler lease, last slots, runtime entries) for a redis URL. */
  beatStore(target: RedisTarget, prefix: string): BeatStore {
    return new RedisBeatStore(this.connection(target), prefix);
  }

  private connection(target: RedisTarget): RedisConnection {
    // A host list (Sentinel, Cluster) is percent-encoded in a URL object: the connection gets it as written.
    const key = target instanceof URL ? transportUrlText(target) : target;
    let connection = this.connections.get(key);
    if (!connection) {
      connection = new RedisConnection(key);
      this.connections.set(key, connection);
    }
    return connection;
  }
}
