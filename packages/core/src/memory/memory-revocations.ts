/** The memory broker's revocations: each kept `revokeTtl` ms, and announced to the listening workers. */
import type { Revocation } from '../broker';

/** The revocations of one memory broker, and the workers listening for new ones. */
export class MemoryRevocations {
  private readonly revoked = new Map<string, { revocation: Revocation; until: number }>();
  private readonly listeners = new Set<(revocation: Revocation) => void>();

  constructor(private readonly ttl: number) {}

  /** Keeps `revocation` and tells every listener. */
  add(revocation: Revocation): void {
    this.revoked.set(revocation.id, { revocation, until: Date.now() + this.ttl });
    for (const listener of this.listeners) listener(revocation);
  }

  /** The revocations not expired yet (the expired ones are dropped). */
  list(): Revocation[] {
    const now = Date.now();
    const alive: Revocation[] = [];
    for (const [id, { revocation, until }] of this.revoked) {
      if (until <= now) this.revoked.delete(id);
      else alive.push(revocation);
    }
    return alive;
  }

  /** Calls `listener` with every revocation from now on; returns the unsubscribe function. */
  listen(listener: (revocation: Revocation) => void): () => Promise<void> {
    this.listeners.add(listener);
    return async () => {
      this.listeners.delete(listener);
    };
  }

  /** Drops every listener (the broker is closing). */
  close(): void {
    this.listeners.clear();
  }
}
