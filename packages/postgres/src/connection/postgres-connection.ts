/**
 * One PostgreSQL connection set per URL, shared by an app's broker, result backend and beat store:
 * a pool for queries and, only when something waits, one listening session (see listener.ts).
 * A worker therefore holds at most `poolSize` + 1 connections.
 */
import { Pool, type PoolConfig, type QueryResultRow } from 'pg';
import { MIGRATIONS, type Migration } from '../migrations';
import { migrate } from '../migrations/migrate';
import { Listener } from './listener';
import { schemaName } from './schema-name';
import { redactUrl } from '@celeriac/core/internal';

/** Pool size unless the URL or options say otherwise: enough for a worker's fetch, settle and waits. */
const DEFAULT_POOL_SIZE = 10;

/** Options of a {@link PostgresConnection}. */
export interface PostgresConnectionOptions {
  /** Extra node-postgres pool options. */
  readonly pool?: PoolConfig;
  /** The schema steps to apply at start (all of Celeriac's unless given: tests pass their own). */
  readonly migrations?: readonly Migration[];
}

/** The PostgreSQL clients of one app for one URL, in the schema named from the app's prefix. */
export class PostgresConnection {
  /** The query pool. */
  readonly pool: Pool;
  /** The schema Celeriac's tables live in (plain: safe to put in SQL unquoted). */
  readonly schema: string;
  /** The URL connected to, as messages name it (no password). */
  readonly url: string;
  private listenerInstance: Listener | undefined;
  private schemaReady: Promise<unknown> | undefined;
  private users = 0;
  private readonly migrations: readonly Migration[];
  private readonly config: PoolConfig;
  /** Why the last query failed to reach the server, until one succeeds. */
  private lastError: Error | undefined;

  /**
   * Connects (lazily) to `url`, a `postgres://` or `postgresql://` URL, keeping Celeriac's tables in
   * the schema named from `prefix` (see schema-name.ts).
   */
  constructor(url: string, prefix: string, options: PostgresConnectionOptions = {}) {
    this.schema = schemaName(prefix);
    this.url = redactUrl(url);
    this.migrations = options.migrations ?? MIGRATIONS;
    this.config = { connectionString: url, max: DEFAULT_POOL_SIZE, ...options.pool };
    this.pool = new Pool(this.config);
    // An idle client that errors is dropped by the pool; without a listener the error would crash the process.
    this.pool.on('error', (error) => (this.lastError = error));
  }

  /** Resolves once the schema is migrated (once per process; many processes at once are safe). */
  ready(): Promise<unknown> {
    this.schemaReady ??= migrate(this.pool, this.schema, this.migrations).catch((error: unknown) => {
      this.schemaReady = undefined;
      throw error;
    });
    return this.schemaReady;
  }

  /** Runs one statement on the pool, after the schema is ready. */
  async query<Row extends QueryResultRow>(text: string, values?: readonly unknown[]): Promise<Row[]> {
    await this.ready();
    try {
      const result = await this.pool.query<Row>(text, values as unknown[]);
      this.lastError = undefined;
      return result.rows;
    } catch (error) {
      if (isConnectionError(error)) this.lastError = error as Error;
      throw error;
    }
  }

  /** The listening session, made on first use. */
  get listener(): Listener {
    this.listenerInstance ??= new Listener({ connectionString: this.config.connectionString, ...this.config });
    return this.listenerInstance;
  }

  /** Why the server cannot be reached now, or undefined while it can (or it is not known). */
  unreachable(): string | undefined {
    const error = this.lastError ?? this.listenerInstance?.lastError;
    return error?.message;
  }

  /** Counts one more user (broker, backend, beat store) of this connection set. */
  retain(): this {
    this.users += 1;
    return this;
  }

  /** One user is done; the last one closes the pool and the listening session. */
  async release(): Promise<void> {
    this.users -= 1;
    if (this.users > 0) return;
    await Promise.allSettled([this.listenerInstance?.close(), this.pool.end()]);
  }
}

/** A connection failure (refused, reset, timed out, the server shutting down), not a failed statement. */
function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: string }).code ?? '';
  return /^(ECONN|ETIMEDOUT|ENOTFOUND|EPIPE|57P0|08)/.test(code);
}
