/**
 * One Redis connection set per URL, shared by the broker and the backend of an app: a command
 * client, and, only when needed, blocking connections for idle workers (one per waiting worker) and a subscriber for
 * notifications. Batching is explicit (the publisher and the worker's settler gather a tick's work
 * into one script call or pipeline): ioredis's auto-pipelining would add a tick to every round trip.
 */
import { Redis, type RedisOptions } from 'ioredis';
import { BlockingClient } from './blocking-client';
import { closeClient } from './close-client';
import { defineScripts } from './scripts';
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

/** Options of a {@link RedisConnection}. */
export interface RedisConnectionOptions {
  /** Extra ioredis options. */
  redis?: RedisOptions;
}

/** The Redis clients of one app for one URL. */
export class RedisConnection {
  /** The command client. */
  readonly client: Redis;
  private readonly allBlocking = new Set<BlockingClient>();
  private readonly idleBlocking: BlockingClient[] = [];
  private subscriberInstance: Subscriber | undefined;
  private users = 0;
  /** Why the last connection attempt failed (ECONNREFUSED, ...), until the next one succeeds. */
  lastError: Error | undefined;

  /**
   * @param url `redis://`, `rediss://`, or `redis+sentinel://` (see sentinel-url.ts).
   * @throws CeleriacError `CELERIAC_INVALID_OPTION` for a Sentinel URL that cannot be used.
   */
  constructor(
    readonly url: string,
    options: RedisConnectionOptions = {},
  ) {
    const settings: RedisOptions = {
      enableAutoPipelining: false,
      maxRetriesPerRequest: RETRIES_PER_COMMAND,
      retryStrategy: (times) => Math.min(times * 100, RETRY_DELAY_CAP),
      lazyConnect: false,
      ...options.redis,
    };
    // The blocking and subscriber connections are duplicates of this client: they follow the same master.
    this.client = isSentinelUrl(url) ? new Redis({ ...sentinelOptions(url), ...settings }) : new Redis(url, settings);
    // Reported through the failing commands, which name the last one (ioredis's own error does not).
    this.client.on('error', (error: Error) => (this.lastError = error));
    this.client.on('ready', () => (this.lastError = undefined));
    defineScripts(this.client);
  }

  /** A blocking connection for one wait; give it back with {@link RedisConnection.releaseBlocking}. */
  acquireBlocking(): BlockingClient {
    const idle = this.idleBlocking.pop();
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
    await closeClient(this.client);
  }
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
export function corkableStream(client: Redis): CorkableStream | undefined {
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
export function corked<T>(client: Redis, send: () => T): T {
  return withCorkedSocket(client, send, (stream) => stream.uncork());
}

/**
 * Like {@link corked}, but the socket stays corked until the current synchronous work is done (a
 * microtask): commands issued right after `send` returns join the same write. For writes that lead
 * another one, such as a sender's `task-sent` events, which go just before its publish: one system
 * call for both instead of two, and Redis still runs them in the order they were issued.
 */
export function corkedThroughTick<T>(client: Redis, send: () => T): T {
  return withCorkedSocket(client, send, (stream) => queueMicrotask(() => stream.uncork()));
}

/** Runs `send` with the client's socket corked, then hands the socket to `uncork`. */
function withCorkedSocket<T>(client: Redis, send: () => T, uncork: (stream: CorkableStream) => void): T {
  const stream = corkableStream(client);
  if (client.status !== 'ready' || !stream?.writable) return send();
  stream.cork();
  try {
    return send();
  } finally {
    uncork(stream);
  }
}
