/**
 * One connection of our own to one cluster master, for sharded pub/sub (SSUBSCRIBE) on the channels
 * whose slots that master owns. It never reconnects: once it breaks (the connection ended, the node
 * answered MOVED, or ioredis lost track of its replies), its owner places its channels again, on
 * whichever master owns their slots by then.
 */
import { Redis, type RedisOptions } from 'ioredis';

/** Thrown by {@link ShardLink.subscribe} when the link broke before Redis confirmed. */
export class ShardLinkBroken extends Error {
  constructor() {
    super('the sharded pub/sub connection broke before the subscription was confirmed');
  }
}

/** A dedicated SSUBSCRIBE connection to one master. */
export class ShardLink {
  /** The channels Redis confirmed on this connection, while it holds. */
  readonly channels = new Set<string>();
  /** Resolves once, when the link breaks for good. */
  readonly broken: Promise<void>;
  private readonly redis: Redis;
  private isBroken = false;
  private markBroken!: () => void;

  /**
   * @param options - the cluster's options for the master's node (host, port, credentials, TLS).
   * @param onMessage - called for each message on a channel subscribed here.
   * @param onBreak - called once when the link breaks, with the channels it held.
   */
  constructor(
    options: RedisOptions,
    onMessage: (channel: string, message: string) => void,
    onBreak: (channels: string[]) => void,
  ) {
    this.broken = new Promise((resolve) => (this.markBroken = resolve));
    this.redis = new Redis({
      ...options,
      // The owner of a channel's slot may be another node after this one dropped: pick it again.
      retryStrategy: () => null,
      maxRetriesPerRequest: null,
      enableAutoPipelining: false,
      enableOfflineQueue: true,
      lazyConnect: false,
      readOnly: false,
    });
    // Every message, also one that arrives right after its SSUBSCRIBE is confirmed and before
    // `channels` holds it (the subscriber drops what no handler wants).
    this.redis.on('smessage', onMessage);
    void this.broken.then(() => onBreak([...this.channels]));
    this.redis.on('end', () => this.break());
    // ioredis drops an SSUBSCRIBE answered with MOVED (the slot moved) without settling it.
    this.redis.on('moved', () => this.break());
    this.redis.on('error', (error: Error) => {
      // When a slot moves away, Redis unsubscribes its channels with a `sunsubscribe` of its own;
      // ioredis takes that for the reply to a command of ours and, a reply later, reports this error.
      if (error.message.includes('Command queue state error')) this.break();
    });
  }

  /** The `host:port` the link is connected to. */
  get nodeKey(): string {
    return `${this.redis.options.host}:${this.redis.options.port}`;
  }

  /**
   * Subscribes to `channel` here; resolves once Redis confirmed.
   * @throws ShardLinkBroken when the link broke first; Redis's error when it refused.
   */
  async subscribe(channel: string): Promise<void> {
    if (this.isBroken) throw new ShardLinkBroken();
    const refused = this.broken.then(() => {
      throw new ShardLinkBroken();
    });
    await Promise.race([this.redis.ssubscribe(channel), refused]);
    if (this.isBroken) throw new ShardLinkBroken();
    this.channels.add(channel);
  }

  /** Unsubscribes from `channel`; the link closes once it holds no channel. */
  async unsubscribe(channel: string): Promise<void> {
    if (!this.channels.delete(channel) || this.isBroken) return;
    await this.redis.sunsubscribe(channel).catch(() => undefined);
  }

  /** True while the link holds and can take subscriptions. */
  get usable(): boolean {
    return !this.isBroken;
  }

  /** Drops the connection; its channels are reported to `onBreak`. */
  break(): void {
    if (this.isBroken) return;
    this.isBroken = true;
    this.markBroken();
    this.redis.disconnect();
  }

  /** Closes the connection without reporting its channels. */
  close(): void {
    this.channels.clear();
    this.break();
  }
}
