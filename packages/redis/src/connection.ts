/**
 * One Redis connection set per URL, shared by the broker and the backend of an app: a command
 * client, and, only when needed, a blocking client for idle workers and a subscriber for
 * notifications. Batching is explicit (the publisher and the worker's settler gather a tick's work
 * into one script call or pipeline): ioredis's auto-pipelining would add a tick to every round trip.
 */
import { Redis, type RedisOptions } from 'ioredis';
import { closeClient } from './close-client';
import { defineScripts } from './scripts';
import { Subscriber } from './subscriber';

/** How long a command may wait for a lost connection before failing (bounded publish retries). */
const RETRIES_PER_COMMAND = 5;

/** Options of a {@link RedisConnection}. */
export interface RedisConnectionOptions {
  /** Extra ioredis options. */
  redis?: RedisOptions;
}

/** The Redis clients of one app for one URL. */
export class RedisConnection {
  /** The command client. */
  readonly client: Redis;
  private blockingClient: Redis | undefined;
  private blockingId: number | undefined;
  private subscriberInstance: Subscriber | undefined;
  private users = 0;

  constructor(
    readonly url: string,
    options: RedisConnectionOptions = {},
  ) {
    this.client = new Redis(url, {
      enableAutoPipelining: false,
      maxRetriesPerRequest: RETRIES_PER_COMMAND,
      retryStrategy: (times) => Math.min(times * 100, 1_000),
      lazyConnect: false,
      ...options.redis,
    });
    this.client.on('error', () => undefined); // reported through the failing commands
    defineScripts(this.client);
  }

  /** A client for blocking commands; `resetBlocking()` drops it. */
  blocking(): Redis {
    if (!this.blockingClient) {
      const client = this.client.duplicate({ enableAutoPipelining: false, maxRetriesPerRequest: null });
      client.on('error', () => undefined);
      defineScripts(client);
      // Learn the connection's id on every (re)connect, so a blocked call can be ended by CLIENT UNBLOCK.
      client.on('ready', () => {
        this.blockingId = undefined;
        client.client('ID').then((id) => (this.blockingId = Number(id)), () => undefined);
      });
      this.blockingClient = client;
    }
    return this.blockingClient;
  }

  /**
   * Ends a call blocked on the blocking client as if it timed out. Redis checks blocking timeouts
   * only ~10 times a second, so precise wake-ups use a local timer and this instead.
   */
  async unblock(): Promise<void> {
    if (this.blockingId === undefined) return this.resetBlocking();
    await this.client.client('UNBLOCK', this.blockingId).catch(() => this.resetBlocking());
  }

  /** Disconnects the blocking client now, ending any blocked call; the next `blocking()` makes a new one. */
  resetBlocking(): void {
    this.blockingClient?.disconnect();
    this.blockingClient = undefined;
    this.blockingId = undefined;
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
    this.resetBlocking();
    await this.subscriberInstance?.close();
    await closeClient(this.client);
  }
}
