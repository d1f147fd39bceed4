/** One pub/sub connection shared by every listener of an app, with per-channel handlers. */
import type { Redis } from 'ioredis';

type Handler = (message: string) => void;

/** Subscribes handlers to channels over one dedicated connection. */
export class Subscriber {
  private readonly client: Redis;
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly pending = new Map<string, Promise<unknown>>();

  constructor(parent: Redis) {
    this.client = parent.duplicate({ enableAutoPipelining: false, maxRetriesPerRequest: null });
    this.client.on('error', () => undefined);
    this.client.on('message', (channel: string, message: string) => {
      for (const handler of this.handlers.get(channel) ?? []) handler(message);
    });
  }

  /** Adds a handler; resolves once Redis confirmed the subscription. Returns the unsubscribe function. */
  async subscribe(channel: string, handler: Handler): Promise<() => Promise<void>> {
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      this.pending.set(channel, this.client.subscribe(channel));
    }
    set.add(handler);
    await this.pending.get(channel);
    return async () => {
      const current = this.handlers.get(channel);
      if (!current?.delete(handler) || current.size > 0) return;
      this.handlers.delete(channel);
      this.pending.delete(channel);
      await this.client.unsubscribe(channel).catch(() => undefined);
    };
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    this.handlers.clear();
    await this.client.quit().catch(() => this.client.disconnect());
  }
}
