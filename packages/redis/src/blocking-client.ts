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
  private idKnown: Promise<void>;
  /** True once disconnected (it must not be reused). */
  broken = false;

  constructor(parent: Redis) {
    this.client = parent.duplicate({ enableAutoPipelining: false, maxRetriesPerRequest: null });
    this.client.on('error', () => undefined);
    defineScripts(this.client);
    // Learn the connection's id on every (re)connect, for CLIENT UNBLOCK.
    this.idKnown = this.learnId();
    this.client.on('ready', () => {
      if (this.id !== undefined) this.idKnown = this.learnId();
    });
  }

  /** Resolves once the connection's id is known, so a wait started now can be ended early. */
  ready(): Promise<void> {
    return this.idKnown;
  }

  private learnId(): Promise<void> {
    this.id = undefined;
    return this.client.client('ID').then(
      (id) => void (this.id = Number(id)),
      () => undefined,
    );
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
