/**
 * One pub/sub subscriber shared by every listener of an app, with per-channel handlers. Messages
 * published while a subscription was down are lost, so listeners hear about every reconnect and can
 * re-read what they wait for. On a single node (or Sentinel) it is one connection with SUBSCRIBE; on a
 * cluster it is sharded pub/sub (SSUBSCRIBE on the master of each channel's slot, see
 * sharded-subscriber.ts), matching how `publish` (redis-client.ts) sends there.
 */
import type { Redis } from 'ioredis';
import { duplicateFor } from './blocking-client';
import { closeClient } from './close-client';
import { isCluster, type RedisClient } from './redis-client';
import { isNoPermission, noPermission } from './no-permission';
import { ShardedSubscriber } from './sharded-subscriber';

type Handler = (message: string) => void;

/** Subscribes handlers to channels: over one dedicated connection, or one per master on a cluster. */
export class Subscriber {
  /** On a single node or Sentinel: the connection that SUBSCRIBEs. */
  private readonly client: Redis | undefined;
  /** On a cluster: the sharded subscriptions. */
  private readonly sharded: ShardedSubscriber | undefined;
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly pending = new Map<string, Promise<unknown>>();
  private readonly reconnectListeners = new Set<() => void>();
  private readonly disconnectListeners = new Set<() => void>();
  private connectedBefore = false;
  /** Rejects once closed. */
  private readonly closing: Promise<never>;
  private markClosed!: (error: Error) => void;

  constructor(parent: RedisClient) {
    this.closing = new Promise<never>((_, reject) => (this.markClosed = reject));
    this.closing.catch(() => undefined);
    const dispatch = (channel: string, message: string) => {
      for (const handler of this.handlers.get(channel) ?? []) handler(message);
    };
    const lost = () => this.disconnectListeners.forEach((listener) => listener());
    const back = () => this.reconnectListeners.forEach((listener) => listener());
    if (isCluster(parent)) {
      this.sharded = new ShardedSubscriber(parent, { message: dispatch, lost, back });
      return;
    }
    const client = duplicateFor(parent) as Redis;
    this.client = client;
    client.on('error', () => undefined);
    client.on('message', dispatch);
    client.on('close', () => {
      if (this.connectedBefore) lost();
    });
    client.on('ready', () => {
      if (!this.connectedBefore) {
        this.connectedBefore = true;
        return;
      }
      // ioredis re-subscribes on reconnect only the channels whose confirmation it had heard before the
      // connection broke: subscribe to every wanted channel again (Redis ignores a repeat), and its
      // reply tells they are all in place. A connection lost before that tries again at its next ready.
      const channels = [...this.handlers.keys()];
      (channels.length > 0 ? client.subscribe(...channels) : client.ping()).then(back, () => undefined);
    });
  }

  /** Calls `listener` each time the connection is lost: messages published until it is back are lost. */
  onDisconnect(listener: () => void): () => void {
    this.disconnectListeners.add(listener);
    return () => this.disconnectListeners.delete(listener);
  }

  /** Calls `listener` after each reconnect, once the subscriptions are back. */
  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  /**
   * Adds a handler; resolves once Redis confirmed the subscription. Returns the unsubscribe function.
   * @throws CeleriacError `CELERIAC_NO_PERMISSION` when the user's ACL has no access to the channel.
   */
  async subscribe(channel: string, handler: Handler): Promise<() => Promise<void>> {
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      this.pending.set(
        channel,
        this.subscribeOn(channel).catch((error: unknown) => this.refused(channel, error)),
      );
    }
    set.add(handler);
    // A subscription still unconfirmed when the subscriber closes would never settle.
    await Promise.race([this.pending.get(channel), this.closing]);
    return async () => {
      const current = this.handlers.get(channel);
      if (!current?.delete(handler) || current.size > 0) return;
      this.handlers.delete(channel);
      this.pending.delete(channel);
      await (this.sharded?.unsubscribe(channel) ?? this.client?.unsubscribe(channel))?.catch(() => undefined);
    };
  }

  private subscribeOn(channel: string): Promise<unknown> {
    return this.sharded ? this.sharded.subscribe(channel) : (this.client as Redis).subscribe(channel);
  }

  /** Forgets a channel Redis refused (a later call tries again) and rethrows, ACL refusals explained. */
  private refused(channel: string, error: unknown): never {
    this.handlers.delete(channel);
    this.pending.delete(channel);
    throw isNoPermission(error) ? noPermission(error, `subscribe to channel ${channel}`) : error;
  }

  /**
   * Drops the subscriber's connections so that they are made again, with every subscription (the
   * listeners hear a disconnect, then a reconnect). A connection already reconnecting is left to it.
   */
  reconnect(): void {
    this.sharded?.reconnect();
    if (this.client?.status === 'ready') this.client.disconnect(true);
  }

  /** Closes its connections (and stops listening on the parent cluster client, which may be the user's). */
  async close(): Promise<void> {
    this.markClosed(new Error('The subscriber closed before Redis confirmed the subscription.'));
    this.handlers.clear();
    this.sharded?.close();
    if (this.client) await closeClient(this.client);
  }
}
