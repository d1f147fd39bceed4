/**
 * One Redis connection set per URL, shared by the broker and the backend of an app: a command
 * client, and, only when needed, blocking connections for idle workers (one per waiting worker) and a subscriber for
 * notifications. Batching is explicit (the publisher and the worker's settler gather a tick's work
 * into one script call or pipeline): ioredis's auto-pipelining would add a tick to every round trip.
 * A `redis+cluster://` URL (or a Cluster client passed in) makes every client a cluster client; with
 * a `redis+sentinel://` URL every client asks the Sentinels for the master.
 */
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { BlockingClient } from './blocking-client';
import { closeClient } from './close-client';
import { isClusterUrl, parseClusterUrl } from './cluster-url';
import { checkGivenClient, isCluster, type RedisClient } from './redis-client';
import { unrefWhenIdle } from './idle-unref';
import { defineScripts } from '../scripting/scripts';
import { isSentinelUrl, sentinelOptions } from './sentinel-url';
import { Subscriber } from './subscriber';

/**
 * How long a command waits for a lost connection before failing. ioredis fails the commands
 * waiting for a connection at every (RETRIES_PER_COMMAND + 1)th failed attempt, counted over the
 * whole outage, so a command waits for at most that many attempts: with RETRY_DELAY_CAP, about
 * 6 × 250 ms = 1.5 s while connections are refused (an unreachable host adds ioredis's connect
 * timeout to each attempt). A higher cap would stretch that bound in long outages.
 */
const RETRIES_PER_COMMAND = 5;
/** Reconnect delays: 100 ms, 200 ms, then every 250 ms (a reconnect attempt is cheap). */
const RETRY_DELAY_CAP = 250;
/**
 * On a cluster, a command whose master went away is retried this many times, FAILOVER_RETRY_MS apart,
 * while a replica is promoted: about 8 s, longer than a failover with the default node timeout takes.
 */
const FAILOVER_RETRIES = 32;
const FAILOVER_RETRY_MS = 250;

/** Options of a {@link RedisConnection}. */
export interface RedisConnectionOptions {
  /** Extra ioredis options (on a cluster: of the connection to each node). */
  redis?: RedisOptions;
  /** Extra ioredis Cluster options, for a `redis+cluster://` URL. */
  cluster?: ClusterOptions;
}

/** The Redis clients of one app for one URL. */
export class RedisConnection {
  /** The command client. */
  readonly client: RedisClient;
  /** The URL connected to (for a client passed in, a description of it), as messages name it. */
  readonly url: string;
  /** False for a client passed in: its owner closes it. */
  private readonly ownsClient: boolean;
  private readonly allBlocking = new Set<BlockingClient>();
  private readonly idleBlocking: BlockingClient[] = [];
  private subscriberInstance: Subscriber | undefined;
  private users = 0;
  /** Why the last connection attempt failed (ECONNREFUSED, ...), until the next one succeeds. */
  lastError: Error | undefined;

  private readonly onError = (error: Error) => (this.lastError = error);
  private readonly onReady = () => (this.lastError = undefined);

  /**
   * Connects to `target`: a `redis://`, `redis+sentinel://` (see sentinel-url.ts) or `redis+cluster://`
   * URL (each also `rediss...`), or an ioredis client (Redis or Cluster) made by the caller. A client
   * passed in stays the caller's: {@link RedisConnection.release} closes only the connections made from
   * it (blocking and subscriber duplicates, with its options), never the client itself.
   * @throws CeleriacError `CELERIAC_INVALID_OPTION` for a Sentinel or Cluster URL that cannot be used, or
   * a client passed in with a `keyPrefix`.
   */
  constructor(target: string | RedisClient, options: RedisConnectionOptions = {}) {
    this.ownsClient = typeof target === 'string';
    if (typeof target !== 'string') checkGivenClient(target);
    this.url = typeof target === 'string' ? target : describeClient(target);
    this.client = typeof target === 'string' ? createClient(target, options) : target;
    // Only the clients made here: one passed in is its owner's to reference or not.
    if (this.ownsClient) unrefWhenIdle(this.client);
    // Reported through the failing commands, which name the last one (ioredis's own error does not).
    this.client.on('error', this.onError);
    this.client.on('ready', this.onReady);
    defineScripts(this.client);
  }

  /** A blocking connection for one wait; give it back with {@link RedisConnection.releaseBlocking}. */
  acquireBlocking(): BlockingClient {
    let idle = this.idleBlocking.pop();
    // One dropped after it was given back (a late unblock) is not reused.
    while (idle?.broken) idle = this.idleBlocking.pop();
    if (idle) return idle;
    const blocking = new BlockingClient(this.client);
    this.allBlocking.add(blocking);
    return blocking;
  }

  /** Returns a blocking connection for reuse (a broken one is dropped). */
  releaseBlocking(blocking: BlockingClient): void {
    if (blocking.broken || this.users <= 0) {
      this.allBlocking.delete(blocking);
      void blocking.close();
    } else {
      this.idleBlocking.push(blocking);
    }
  }

  /** Ends every blocked wait now (closing). */
  disconnectBlocking(): void {
    for (const blocking of this.allBlocking) blocking.disconnect();
    this.allBlocking.clear();
    this.idleBlocking.length = 0;
  }

  /**
   * Ends every blocked wait now and makes the subscriptions again over new connections: for a wait
   * found stuck (see Broker.reconnect). The waits go on over new connections.
   */
  reconnectWaits(): void {
    this.disconnectBlocking();
    this.subscriberInstance?.reconnect();
  }

  /** The shared pub/sub subscriber, connected on first use. */
  get subscriber(): Subscriber {
    this.subscriberInstance ??= new Subscriber(this.client);
    return this.subscriberInstance;
  }

  /** Counts a user (broker or backend); `release()` closes the clients when the last one leaves. */
  retain(): this {
    this.users += 1;
    return this;
  }

  /** Releases one user; closes everything when none is left. */
  async release(): Promise<void> {
    this.users -= 1;
    if (this.users > 0) return;
    this.disconnectBlocking();
    await this.subscriberInstance?.close();
    if (this.ownsClient) return closeClient(this.client);
    this.client.off('error', this.onError);
    this.client.off('ready', this.onReady);
  }
}

/** The command client for a URL. */
function createClient(url: string, options: RedisConnectionOptions): RedisClient {
  const retryStrategy = (times: number) => Math.min(times * 100, RETRY_DELAY_CAP);
  const redisOptions: RedisOptions = {
    enableAutoPipelining: false,
    maxRetriesPerRequest: RETRIES_PER_COMMAND,
    retryStrategy,
    lazyConnect: false,
  };
  // The blocking and subscriber connections are duplicates of this client: they follow the same master.
  if (isSentinelUrl(url)) return new Redis({ ...sentinelOptions(url), ...redisOptions, ...options.redis });
  if (!isClusterUrl(url)) return new Redis(url, { ...redisOptions, ...options.redis });
  const target = parseClusterUrl(url);
  return new Cluster(target.nodes, {
    enableAutoPipelining: false,
    clusterRetryStrategy: retryStrategy,
    maxRedirections: FAILOVER_RETRIES,
    retryDelayOnFailover: FAILOVER_RETRY_MS,
    retryDelayOnClusterDown: FAILOVER_RETRY_MS,
    retryDelayOnTryAgain: FAILOVER_RETRY_MS,
    ...options.cluster,
    redisOptions: { ...redisOptions, ...target.redisOptions, ...options.cluster?.redisOptions, ...options.redis },
  });
}

/** Names a client passed in, for messages. */
function describeClient(client: RedisClient): string {
  if (isCluster(client)) return 'the Redis Cluster client passed in';
  return `redis://${client.options.host ?? '127.0.0.1'}:${client.options.port ?? 6379}`;
}

/** The part of a socket that {@link corked} uses. */
interface CorkableStream {
  writable?: boolean;
  cork(): void;
  uncork(): void;
}

/**
 * The client's socket, if it can be corked. ioredis keeps it in `stream`, which is not part of its
 * public API: where a version has no such field (or it cannot cork), commands are written as
 * ioredis writes them, one write each, and nothing else changes.
 */
export function corkableStream(client: RedisClient): CorkableStream | undefined {
  const stream = (client as unknown as { stream?: Partial<CorkableStream> }).stream;
  return typeof stream?.cork === 'function' && typeof stream.uncork === 'function'
    ? (stream as CorkableStream)
    : undefined;
}

/**
 * Runs `send` with the client's socket corked, so the commands it issues synchronously leave in one
 * write (each write is a system call). The socket is uncorked as soon as `send` returns: waiting
 * for the next tick would hold the write back behind every microtask queued meanwhile, and these
 * writes (a settled task's result, a worker's wait) are on someone's critical path. Nested calls
 * share the outermost write. Without a socket to cork ({@link corkableStream}) it just runs `send`;
 * `bench/src/corked.ts` measures what corking saves.
 */
export function corked<T>(client: RedisClient, send: () => T): T {
  return withCorkedSocket(client, send, (stream) => stream.uncork());
}

/**
 * Like {@link corked}, but the socket stays corked until the current synchronous work is done (a
 * microtask): commands issued right after `send` returns join the same write. For writes that lead
 * another one, such as a sender's `task-sent` events, which go just before its publish: one system
 * call for both instead of two, and Redis still runs them in the order they were issued.
 */
export function corkedThroughTick<T>(client: RedisClient, send: () => T): T {
  return withCorkedSocket(client, send, (stream) => queueMicrotask(() => stream.uncork()));
}

/** Runs `send` with the client's socket corked, then hands the socket to `uncork`. */
function withCorkedSocket<T>(client: RedisClient, send: () => T, uncork: (stream: CorkableStream) => void): T {
  const stream = corkableStream(client);
  if (client.status !== 'ready' || !stream?.writable) return send();
  stream.cork();
  try {
    return send();
  } finally {
    uncork(stream);
  }
}
