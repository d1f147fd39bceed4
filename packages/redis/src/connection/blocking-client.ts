/**
 * A connection for blocking commands (BZPOPMIN, BLPOP, XREAD BLOCK). Each waiting worker holds its own,
 * so waits never queue behind each other; one can be ended early with CLIENT UNBLOCK (sent on another
 * connection). On a cluster it is a cluster client of its own, and a wait blocks the connection to
 * the master of its key's slot: that is the one CLIENT ID and CLIENT UNBLOCK name.
 *
 * No wait depends on ioredis settling a command once the connection is dropped: ioredis 5 never
 * settles the commands of a client disconnected while it was reconnecting, so every wait here races
 * its command against the drop ({@link BlockingClient.settle}), and a dropped client is never reused.
 */
import type { Redis } from 'ioredis';
import { closeClient } from './close-client';
import { isCluster, masterFor, type RedisClient } from './redis-client';
import { defineScripts } from '../scripting/scripts';
import { isUnrefWhenIdle, unrefWhenIdle } from './idle-unref';

/**
 * How long a call that CLIENT UNBLOCK did not find may take to settle by itself before its connection
 * is dropped (ms): a reply already on its way arrives well within it.
 */
const UNBLOCK_MISS_GRACE_MS = 2_000;

/** Thrown by a blocking call whose connection was dropped before it settled: to end it, or past its bound. */
export class BlockingCallDropped extends Error {
  constructor() {
    super('the blocking connection was dropped before its command settled');
  }
}

/** How one blocking call runs (see {@link BlockingClient.call}). */
export interface BlockingCallOptions {
  /** The client that sends CLIENT UNBLOCK (the app's command client). */
  via: RedisClient;
  /** Ends the call early, as if it had timed out. */
  signal?: AbortSignal;
  /** On a cluster: the key the call blocks on (every key of one call shares its slot). */
  key?: string;
  /**
   * Drops the connection when the call has not settled within this many ms: longer than the
   * command's own timeout, so that only a call that can no longer end by itself meets it.
   */
  bound: number;
}

/** One blocking connection. */
export class BlockingClient {
  /** The ioredis client; run blocking commands on it. */
  readonly client: RedisClient;
  private id: number | undefined;
  /** Counts CLIENT ID lookups, so that a late answer to an earlier one is ignored. */
  private lookups = 0;
  private idKnown: Promise<void>;
  /** On a cluster: the key the next wait blocks on, which tells the node to unblock. */
  private key: string | undefined;
  /** True once disconnected (it must not be reused). */
  broken = false;
  /** Rejects once the connection is dropped. */
  private readonly dropped: Promise<never>;
  private markDropped!: (error: BlockingCallDropped) => void;

  constructor(parent: RedisClient) {
    this.dropped = new Promise<never>((_, reject) => (this.markDropped = reject));
    this.dropped.catch(() => undefined);
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
    // Only the latest lookup counts: one for an earlier wait, on another master of a cluster, may
    // answer after it, and its id would name a connection of that master.
    const lookup = ++this.lookups;
    this.id = undefined;
    return node.client('ID').then(
      (id) => void (lookup === this.lookups && (this.id = Number(id))),
      () => undefined,
    );
  }

  /**
   * Runs one blocking command so that it always ends: early when `signal` aborts (before the command
   * is sent, it is not; once it waits, CLIENT UNBLOCK ends it, or the connection is dropped when
   * nothing could be unblocked and the call does not settle soon after), by dropping the connection
   * past `bound`, and at once when the connection is dropped, whatever ioredis does with the command
   * it was given.
   * @throws BlockingCallDropped when the connection was dropped first, or the signal aborted before
   * the command was sent; the command's own error otherwise.
   */
  async call<T>(options: BlockingCallOptions, command: (client: RedisClient) => Promise<T>): Promise<T> {
    const { via, signal, key, bound } = options;
    let settled = false;
    let unblockedLate: NodeJS.Timeout | undefined;
    const end = () =>
      void this.unblock(via).then((unblocked) => {
        // No such call on the (slot's) master: most often it has just ended by itself and its reply
        // (with whatever was queued behind it) is on its way, so dropping the connection now would
        // lose that reply. Only a call still unsettled a while later waits on a master that failed over.
        if (!unblocked && !settled) {
          unblockedLate = setTimeout(() => {
            if (!settled) this.disconnect();
          }, UNBLOCK_MISS_GRACE_MS);
        }
      });
    const guard = setTimeout(() => {
      if (!settled) this.disconnect();
    }, bound);
    try {
      // Ended while the connection is made ready: the command is not sent, the connection stays usable.
      await this.settle(untilAborted(this.ready(key), signal));
      if (signal?.aborted) throw new BlockingCallDropped();
      signal?.addEventListener('abort', end, { once: true });
      return await this.settle(command(this.client));
    } finally {
      settled = true;
      clearTimeout(guard);
      clearTimeout(unblockedLate);
      signal?.removeEventListener('abort', end);
    }
  }

  /** Settles with `command`, or rejects with BlockingCallDropped as soon as the connection is dropped. */
  settle<T>(command: Promise<T>): Promise<T> {
    if (this.broken) {
      command.catch(() => undefined);
      return Promise.reject(new BlockingCallDropped());
    }
    return Promise.race([command, this.dropped]);
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

  /** Drops the connection now, ending any blocked call (see {@link BlockingClient.settle}). */
  disconnect(): void {
    this.drop();
    this.client.disconnect();
  }

  /** Closes the connection. */
  close(): Promise<void> {
    this.drop();
    return closeClient(this.client);
  }

  private drop(): void {
    if (this.broken) return;
    this.broken = true;
    this.markDropped(new BlockingCallDropped());
  }
}

/** A new client like `parent` for blocking calls or subscriptions: no retry limit (a wait outlives an outage). */
export function duplicateFor(parent: RedisClient): RedisClient {
  if (!isCluster(parent)) {
    const client = parent.duplicate({ enableAutoPipelining: false, maxRetriesPerRequest: null });
    if (isUnrefWhenIdle(parent)) unrefWhenIdle(client);
    return client;
  }
  return parent.duplicate(undefined, {
    enableAutoPipelining: false,
    redisOptions: { ...parent.options.redisOptions, maxRetriesPerRequest: null },
  });
}

/** Resolves with `ready`, or earlier when `signal` aborts. */
function untilAborted(ready: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return ready;
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = () => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    ready.then(done, (error: unknown) => {
      signal.removeEventListener('abort', done);
      reject(error);
    });
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
