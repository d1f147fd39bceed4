/**
 * Maps broker and backend URLs to implementations: `memory://` (from core) and `redis://` /
 * `rediss://` / `redis+cluster://` / `rediss+cluster://`. One app shares one Redis connection set
 * per URL between its broker, its backend and its beat store.
 */
import type { BackendSettings, BeatStore, BrokerSettings, Codec, ResultBackend, Broker } from '@celeriac/core';
import { isClusterUrl, RedisBackend, RedisBeatStore, RedisBroker, RedisConnection } from '@celeriac/redis';

/** Creates Redis brokers and backends, sharing connections by URL. */
export class RedisTransports {
  private readonly connections = new Map<string, RedisConnection>();

  /** A broker for a redis URL. */
  broker(url: string, settings: BrokerSettings): Broker {
    return new RedisBroker(this.connection(url), settings);
  }

  /** A result backend for a redis URL. */
  backend(url: string, settings: BackendSettings, codec: Codec): ResultBackend {
    return new RedisBackend(this.connection(url), settings, codec);
  }

  /** The beat store (scheduler lease, last slots, runtime entries) for a redis URL. */
  beatStore(url: string, prefix: string): BeatStore {
    return new RedisBeatStore(this.connection(url), prefix);
  }

  private connection(url: string): RedisConnection {
    // A cluster URL is kept as written: its host list does not survive URL parsing.
    const key = isClusterUrl(url) ? url : new URL(url).toString();
    let connection = this.connections.get(key);
    if (!connection) {
      connection = new RedisConnection(key);
      this.connections.set(key, connection);
    }
    return connection;
  }
}
