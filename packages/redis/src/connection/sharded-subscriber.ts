/**
 * Sharded pub/sub on a Redis Cluster (SSUBSCRIBE, Redis 7): a notice published with SPUBLISH stays on
 * the shard that owns its channel's slot instead of being forwarded to every node. Each channel is
 * subscribed on the master owning its slot, over one connection of our own per master
 * ({@link ShardLink}); ioredis's own sharded subscribers refused subscriptions after a failover.
 *
 * A channel is `placed` once its master confirmed it. When a link breaks (its node died or failed
 * over, a slot moved away), its channels are `displaced`: the listeners hear `lost` at once (notices
 * may be missed from then on), each channel is placed again on its slot's owner as the cluster now
 * knows it (retrying, slots refreshed, while the cluster settles), and once none is displaced any more
 * the listeners hear `back` and re-read what they wait for. They hear `back` too when the cluster drops
 * a node (unless channels are still displaced: they hear it once those are back).
 */
import type { Cluster } from 'ioredis';
import { isNoPermission } from './no-permission';
import { masterFor } from './redis-client';
import { ShardLink, ShardLinkBroken } from './shard-link';

/** What the owner of a {@link ShardedSubscriber} hears. */
export interface ShardedEvents {
  message(channel: string, message: string): void;
  /** Some channel's subscription dropped: notices on it may be missed until `back`. */
  lost(): void;
  /** Every dropped subscription is back. */
  back(): void;
}

/** Longest pause between two attempts to place a channel while the cluster settles (ms). */
const maxRetryDelay = 1_000;

/** Subscribes channels on the masters that own their slots. */
export class ShardedSubscriber {
  private readonly links = new Map<string, ShardLink>();
  private readonly wanted = new Set<string>();
  /** Pauses between attempts, ended early on close. */
  private readonly pauses = new Map<NodeJS.Timeout, () => void>();
  private displaced = 0;
  private closed = false;
  /** A node that left (a failed master) may have taken notices published to it. */
  private readonly nodeLeft = () => {
    if (this.displaced === 0) this.events.back();
  };

  constructor(
    private readonly cluster: Cluster,
    private readonly events: ShardedEvents,
  ) {
    cluster.on('-node', this.nodeLeft);
  }

  /**
   * Subscribes to `channel` on its slot's master; resolves once that master confirmed.
   * @throws Redis's error when it refused the subscription (an ACL without the channel, a Redis
   * without sharded pub/sub).
   */
  subscribe(channel: string): Promise<void> {
    this.wanted.add(channel);
    return this.place(channel, true);
  }

  /** Unsubscribes from `channel`. */
  async unsubscribe(channel: string): Promise<void> {
    this.wanted.delete(channel);
    for (const link of this.links.values()) if (link.channels.has(channel)) await link.unsubscribe(channel);
  }

  /** Breaks every link: their channels are placed again over new ones. */
  reconnect(): void {
    for (const link of [...this.links.values()]) link.break();
  }

  /** Closes every link. */
  close(): void {
    this.closed = true;
    this.cluster.off('-node', this.nodeLeft);
    this.wanted.clear();
    for (const [timer, resolve] of this.pauses) {
      clearTimeout(timer);
      resolve();
    }
    this.pauses.clear();
    for (const link of this.links.values()) link.close();
    this.links.clear();
  }

  /**
   * Subscribes `channel` on the master of its slot, trying again while the cluster settles (a node
   * down, slots moving). A first subscription fails on a refusal from Redis; a displaced one retries.
   */
  private async place(channel: string, first: boolean): Promise<void> {
    for (let attempt = 0; !this.closed && this.wanted.has(channel); attempt += 1) {
      const link = await this.linkFor(channel);
      try {
        if (link) return await this.confirm(link, channel);
      } catch (error) {
        if (first && !(error instanceof ShardLinkBroken) && isRefusal(error)) throw error;
      }
      await this.refreshSlots();
      await this.pause(Math.min(maxRetryDelay, 50 * 2 ** attempt));
    }
    if (first && this.closed) throw new Error('The subscriber closed before Redis confirmed the subscription.');
  }

  /** Waits `ms`, or less when closed meanwhile. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pauses.delete(timer);
        resolve();
      }, ms);
      this.pauses.set(timer, resolve);
    });
  }

  /** Subscribes on `link`; drops the subscription if the channel is no longer wanted meanwhile. */
  private async confirm(link: ShardLink, channel: string): Promise<void> {
    await link.subscribe(channel);
    if (!this.wanted.has(channel)) await link.unsubscribe(channel);
  }

  /** The link to the master owning `channel`'s slot, once the cluster knows it. */
  private async linkFor(channel: string): Promise<ShardLink | undefined> {
    if (this.cluster.status !== 'ready') await this.cluster.ping().catch(() => undefined);
    const node = this.cluster.status === 'ready' ? masterFor(this.cluster, channel) : undefined;
    if (!node || this.closed) return undefined;
    const nodeKey = `${node.options.host}:${node.options.port}`;
    const known = this.links.get(nodeKey);
    if (known?.usable) return known;
    const link = new ShardLink(
      node.options,
      (name, message) => this.events.message(name, message),
      (channels) => this.onBreak(link, channels),
    );
    this.links.set(nodeKey, link);
    return link;
  }

  private onBreak(link: ShardLink, channels: string[]): void {
    if (this.links.get(link.nodeKey) === link) this.links.delete(link.nodeKey);
    if (this.closed || channels.length === 0) return;
    this.events.lost();
    this.displaced += channels.length;
    for (const channel of channels) {
      void this.place(channel, false).finally(() => {
        this.displaced -= 1;
        if (this.displaced === 0 && !this.closed) this.events.back();
      });
    }
  }

  /** Asks the cluster for its slots again (a failover or a moved slot changed an owner). */
  private refreshSlots(): Promise<void> {
    return new Promise((resolve) => this.cluster.refreshSlotsCache(() => resolve()));
  }
}

/** Redis's refusals that trying again will not change (others pass once the cluster settles). */
function isRefusal(error: unknown): boolean {
  return isNoPermission(error) || (error instanceof Error && error.message.startsWith('ERR '));
}
