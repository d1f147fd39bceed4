/**
 * Options of `new Celeriac(...)`: core's, where the broker and the backend may also be an ioredis
 * client that the caller made (and keeps owning).
 */
import type { Broker, CeleriacOptions as CoreOptions, ResultBackend } from '@celeriac/core';
import type { RedisClient } from '@celeriac/redis';

/** Options of `new Celeriac(...)`. */
export interface CeleriacOptions extends Omit<CoreOptions, 'broker' | 'backend'> {
  /**
   * Where messages go: `'redis://host:port/db'`, `'redis+sentinel://...'`, `'redis+cluster://...'`,
   * `'memory://'` (one process), a Broker object, or an ioredis `Redis` or `Cluster` client for what a
   * URL cannot say (TLS files, NAT maps, `scaleReads`, ...). A client stays yours: the app runs its
   * commands on it and duplicates it for blocking waits and pub/sub; `app.close()` closes the
   * duplicates but never quits the client, so close it yourself after the app. It must have no
   * `keyPrefix` (use `prefix`). Beat keeps its state on the broker's client too.
   * @defaultValue `'memory://'`
   */
  broker?: string | Broker | RedisClient;
  /**
   * Where results go: a URL, a ResultBackend object, or an ioredis client (owned by you, as for `broker`).
   * @defaultValue the broker's URL or client
   */
  backend?: string | ResultBackend | RedisClient;
}
