/**
 * Maps broker and backend URLs to implementations: `memory://` (from core) and `redis://`,
 * `redis+sentinel://` and `redis+cluster://` (each also as `rediss...`), speaking Celeriac's protocol
 * or, with `protocol: 'celery'`, Celery's. One app shares one Redis connection set per URL between
 * its broker, its backend and its beat store.
 */
import type { BackendSettings, BeatStore, BrokerSettings, Codec, ResultBackend, Broker } from '@celeriac/core';
import { transportUrlText } from '@celeriac/core/internal';
import {
  CeleryBackend,
  CeleryBroker,
  CeleryKeys,
  CeleryWorkflow,
  RedisBackend,
  RedisBeatStore,
  RedisBroker,
  RedisConnection,
  type CeleryBrokerOptions,
} from '@celeriac/redis';

/** Creates Redis brokers and backends, sharing connections by URL. */
export class RedisTransports {
  private readonly connections = new Map<string, RedisConnection>();
  private workflow: CeleryWorkflow | undefined;

  /** A broker for a redis URL. */
  broker(url: URL, settings: BrokerSettings): Broker {
    return new RedisBroker(this.connection(url), settings);
  }

  /** A result backend for a redis URL. */
  backend(url: URL, settings: BackendSettings, codec: Codec): ResultBackend {
    return new RedisBackend(this.connection(url), settings, codec);
  }

  /** A broker that speaks Celery protocol v2 on kombu's Redis transport (`protocol: 'celery'`). */
  celeryBroker(url: URL, settings: BrokerSettings, options: CeleryBrokerOptions, codec: Codec): Broker {
    return new CeleryBroker(
      this.connection(url),
      settings,
      options,
      codec,
      this.celeryWorkflow(codec, options, settings),
    );
  }

  /** A result backend in Celery's Redis result format (`protocol: 'celery'`). */
  celeryBackend(url: URL, settings: BackendSettings, options: CeleryBrokerOptions, codec: Codec): ResultBackend {
    return new CeleryBackend(this.connection(url), settings, codec, this.celeryWorkflow(codec, options, settings));
  }

  /** The one workflow tracker the app's Celery broker and backend share (the broker remembers, the backend sends). */
  private celeryWorkflow(codec: Codec, options: CeleryBrokerOptions, settings: { prefix: string }): CeleryWorkflow {
    this.workflow ??= new CeleryWorkflow(codec, new CeleryKeys(options.keyPrefix, settings.prefix));
    return this.workflow;
  }

  /** The beat store (scheduler lease, last slots, runtime entries) for a redis URL. */
  beatStore(url: URL, prefix: string): BeatStore {
    return new RedisBeatStore(this.connection(url), prefix);
  }

  private connection(url: URL): RedisConnection {
    // A host list (Sentinel, Cluster) is percent-encoded in a URL object: the connection gets it as written.
    const key = transportUrlText(url);
    let connection = this.connections.get(key);
    if (!connection) {
      connection = new RedisConnection(key);
      this.connections.set(key, connection);
    }
    return connection;
  }
}
