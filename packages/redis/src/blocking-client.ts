/**
 * A connection for blocking commands (BZPOPMIN). Each waiting worker holds its own, so waits never
 * queue behind each other; one can be ended early with CLIENT UNBLOCK (sent on another connection).
 */
import type { Redis } from 'ioredis';
import { closeClient } from './close-client';
import { defineScripts } from './scripts';

/** One blocking connection. */
export class BlockingClient {
  /** The ioredis client; run blocking commands on it. */
  readonly client: Redis;
  private id: number | undefined;
  /** True once disconnected (it must not be reused). */
  broken = false;

  constructor(parent: Redis) {
    this.client = parent.duplicate({ enableAutoPipelining: false, maxRetriesPerRequest: null });
    this.client.on('error', () => undefined);
    defineScripts(this.client);
    // Learn the connection's id on every (re)connect, for CLIENT UNBLOCK.
    this.client.on('ready', () => {
      this.id = undefined;
      this.client.client('ID').then(
        (id) => (this.id = Number(id)),
        () => undefined,
      );
    });
  }

  /**
   * Ends a blocked call as if it timed out, through `via`. Redis checks blocking timeouts only about
   * ten times a second, so precise wake-ups use a local timer and this instead.
   */
  async unblock(via: Redis): Promise<void> {
    if (this.id === undefined) return this.disconnect();
    await via.client('UNBLOCK', this.id).catch(() => this.disconnect());
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
