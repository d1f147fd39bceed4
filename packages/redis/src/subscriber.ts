/**
 * One pub/sub connection shared by every listener of an app, with per-channel handlers. Messages
 * published while the connection was down are lost, so listeners hear about every reconnect and
 * can re-read what they wait for. On a cluster it is a cluster client, subscribed on one node: Redis
 * Cluster forwards every PUBLISH to all nodes (see docs/redis.md for why not sharded pub/sub yet).
 */
import type { Cluster, Redis } from 'ioredis';
import { duplicateFor } from './blocking-client';
import { closeClient } from './close-client';
import { isCluster, type RedisClient } from './redis-client';
import { isNoPermission, noPermission } from './no-permission';

type Handler = (message: string) => void;

/** Subscribes handlers to channels over one dedicated connection. */
export class Subscriber {
  private readonly client: RedisClient;
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly pending = new Map<string, Promise<unknown>>();
  private readonly reconnectListeners = new Set<() => void>();
  private readonly disconnectListeners = new Set<() => void>();
  private connectedBefore = false;
  /** Stops listening on the parent client (which may be the user's, outliving this subscriber). */
  private readonly detach: () => void;
  /** On a cluster: the node connection the subscriptions are on now, once known. */
  private clusterNode: Redis | undefined;

  constructor(parent: RedisClient) {
    this.client = duplicateFor(parent);
    // On a cluster, a node that left (a failed master) may have taken notices published through it.
    const nodeLeft = () => this.reconnectListeners.forEach((listener) => listener());
    if (isCluster(parent)) parent.on('-node', nodeLeft);
    this.detach = () => void parent.off('-node', nodeLeft);
    this.client.on('error', () => undefined);
    this.client.on('message', (channel: string, message: string) => {
      for (const handler of this.handlers.get(channel) ?? []) handler(message);
    });
    this.client.on('close', () => {
      if (this.connectedBefore) this.disconnectListeners.forEach((listener) => listener());
    });
    this.client.on('ready', () => {
      if (!this.connectedBefore) {
        this.connectedBefore = true;
        return;
      }
      // ioredis re-subscribes on reconnect; a PING answered after those SUBSCRIBEs tells they are done.
      this.client.ping().then(
        () => this.reconnectListeners.forEach((listener) => listener()),
        () => undefined,
      );
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
        this.client.subscribe(channel).catch((error: unknown) => this.refused(channel, error)),
      );
    }
    set.add(handler);
    await this.pending.get(channel);
    if (isCluster(this.client)) this.followClusterNode(this.client);
    return async () => {
      const current = this.handlers.get(channel);
      if (!current?.delete(handler) || current.size > 0) return;
      this.handlers.delete(channel);
      this.pending.delete(channel);
      await this.client.unsubscribe(channel).catch(() => undefined);
    };
  }

  /**
   * ioredis's cluster client subscribes through one node connection of its own (its `subscriber`, not
   * public API) and, when that connection ends (killed, or its node gone), subscribes again through a
   * new one without an event: notices published meanwhile are lost unheard. This watches the node
   * connection and tells the reconnect listeners once a new one has its subscriptions back. Where the
   * field is missing, only the cluster's `-node` events tell them.
   */
  private followClusterNode(cluster: Cluster): void {
    const holder = (cluster as unknown as { subscriber?: { getInstance?: () => Redis | null } }).subscriber;
    const node = typeof holder?.getInstance === 'function' ? holder.getInstance() : null;
    if (!node || node === this.clusterNode) return;
    const replacing = this.clusterNode !== undefined;
    this.clusterNode = node;
    // ioredis picks the next node in its own 'end' handler, registered before this one.
    node.once('end', () => {
      this.disconnectListeners.forEach((listener) => listener());
      this.followClusterNode(cluster);
    });
    if (!replacing) return;
    // Its SUBSCRIBEs went out when it connected: a PING answered after them tells they are done.
    node.once('ready', () => {
      node.ping().then(
        () => this.reconnectListeners.forEach((listener) => listener()),
        () => undefined,
      );
    });
  }

  /** Forgets a channel Redis refused (a later call tries again) and rethrows, ACL refusals explained. */
  private refused(channel: string, error: unknown): never {
    this.handlers.delete(channel);
    this.pending.delete(channel);
    throw isNoPermission(error) ? noPermission(error, `subscribe to channel ${channel}`) : error;
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    this.detach();
    this.handlers.clear();
    await closeClient(this.client);
  }
}
