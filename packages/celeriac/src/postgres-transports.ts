/**
 * Maps `postgres://` and `postgresql://` URLs to the PostgreSQL transport: the broker, the result
 * backend and the beat store. One app shares one connection set (a pool and one listening session)
 * per URL and prefix between them, as Redis shares its connections.
 */
import type { BackendSettings, BeatStore, Broker, BrokerSettings, Codec, ResultBackend } from '@celeriac/core';
import { transportUrlText } from '@celeriac/core/internal';
import { PostgresBackend, PostgresBeatStore, PostgresBroker, PostgresConnection } from '@celeriac/postgres';

/** Creates PostgreSQL brokers, backends and beat stores, sharing connections by URL. */
export class PostgresTransports {
  private readonly connections = new Map<string, PostgresConnection>();

  /** A broker for a postgres URL, its tables in the schema named from `settings.prefix`. */
  broker(url: URL, settings: BrokerSettings): Broker {
    return new PostgresBroker(this.connection(url, settings.prefix), settings);
  }

  /** A result backend for a postgres URL. */
  backend(url: URL, settings: BackendSettings, codec: Codec): ResultBackend {
    return new PostgresBackend(this.connection(url, settings.prefix), settings, codec);
  }

  /** The beat store (scheduler lease, last slots, runtime entries) for a postgres URL. */
  beatStore(url: URL, prefix: string): BeatStore {
    return new PostgresBeatStore(this.connection(url, prefix));
  }

  /** The connection set for `url`, the tables in the schema named from `prefix`; made on first use. */
  connection(url: URL, prefix: string): PostgresConnection {
    const text = transportUrlText(url);
    const key = `${prefix}\n${text}`;
    let connection = this.connections.get(key);
    if (!connection) {
      connection = new PostgresConnection(text, prefix);
      this.connections.set(key, connection);
    }
    return connection;
  }
}
