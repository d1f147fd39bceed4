/**
 * A connection for blocking commands (BZPOPMIN, BLPOP, XREAD BLOCK). Each waiting worker holds its own,
 * so waits never queue behind each other; one can be ended early with CLIENT UNBLOCK (sent on another
 * connection). On a cluster it is a cluster client of its own, and a wait blocks the connection to
 * the master of its key's slot: that is the one CLIENT ID and CLIENT UNBLOCK name.
 */
import type { Redis } from 'ioredis';
import { closeClient } from './close-client';
import { isCluster, masterFor, type RedisClient } from './redis-client';
import { defineScripts } from './scripts';

/** One blocking connection. */
export class BlockingClient {
  /** The ioredis client; run blocking commands on it. */
  readonly client: RedisClient;
  private id: number | undefined;
  private idKnown: Promise<void>;
  /** On a cluster: the key the next wait blocks on, which tells the node to unblock. */
  private key: string | undefined;
  /** True once disconnected (it must not be reused). */
  broken = false;

  constructor(parent: RedisClient) {
    this.client = duplicateFor(parent);
    this.client.on('error', () => undefined);
    defineScripts(this.client);
    // Learn the connection's id on every (re)connect, for CLIENT UNBLOCK.
    this.idKnown = isCluster(this.client) ? Promise.resolve() : this.learnId(this.client);
    this.client.on('ready', () => {
      if (this.id !== undefined && !isCluster(this.client)) this.idKnown = this.learnId(this.client);
    });
  }

  /**
   * Resolves once a wait started now can be ended early. On a cluster, `key` is the key the wait
   * blocks on (every key of one wait shares its slot).
   */
  ready(key?: string): Promise<void> {
    if (!isCluster(this.client) || key === undefined) return this.idKnown;
    this.key = key;
    const cluster = this.client;
    this.idKnown = whenReady(cluster).then(() => {
      const node = masterFor(cluster, key);
      return node ? this.learnId(node) : void (this.id = undefined);
    });
    return this.idKnown;
  }

  private learnId(node: Redis): Promise<void> {
    this.id = undefined;
    return node.client('ID').then(
      (id) => void (this.id = Number(id)),
      () => undefined,
    );
  }

  /**
   * Ends a blocked call as if it timed out, through `via`. Redis checks blocking timeouts only about
   * ten times a second, so precise wake-ups use a local timer and this instead. When the connection
   * cannot be named, it is dropped instead. Resolves false when Redis knew no such blocked call: it
   * had ended already, or (a cluster after a failover) it waits on a master that is gone; a caller
   * still waiting then calls {@link BlockingClient.disconnect}.
   */
  async unblock(via: RedisClient): Promise<boolean> {
    const node = isCluster(via) ? (this.key === undefined ? undefined : masterFor(via, this.key)) : via;
    if (this.id === undefined || node === undefined) {
      this.disconnect();
      return true;
    }
    const unblocked = await node.client('UNBLOCK', this.id).catch(() => {
      this.disconnect();
      return 1;
    });
    return Number(unblocked) === 1;
  }

  /** Drops the connection now, ending any blocked call. */
  disconnect(): void {
    this.broken = true;
    this.client.disconnect();
  }

  /** Closes the connection. */
  close(): Promise<void> {
    this.broken = true;
    return closeClient(this.client);
  }
}

/** A new client like `parent` for blocking calls or subscriptions: no retry limit (a wait outlives an outage). */
export function duplicateFor(parent: RedisClient): RedisClient {
  if (!isCluster(parent)) return parent.duplicate({ enableAutoPipelining: false, maxRetriesPerRequest: null });
  return parent.duplicate(undefined, {
    enableAutoPipelining: false,
    redisOptions: { ...parent.options.redisOptions, maxRetriesPerRequest: null },
  });
}

/** Resolves once the cluster knows its slots (at once when it does). */
function whenReady(cluster: RedisClient): Promise<void> {
  if (cluster.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      cluster.off('ready', done);
      cluster.off('end', done);
      resolve();
    };
    cluster.on('ready', done);
    cluster.on('end', done);
  });
}
