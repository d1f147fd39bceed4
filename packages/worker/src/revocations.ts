/**
 * The worker's view of revocations: loaded from the broker at start, kept current by its
 * notifications, so a revoke reaches workers started before and after it.
 */
import type { Broker, Revocation } from '@celeriac/core';

/** Revoked task ids, and a callback for revocations that must stop a running task. */
export class Revocations {
  private readonly ids = new Map<string, number>();
  private unsubscribe: (() => Promise<void>) | undefined;

  constructor(
    private readonly broker: Broker,
    private readonly ttl: number,
    private readonly onTerminate: (revocation: Revocation) => void,
  ) {}

  /** Subscribes first, then loads the stored list, so no revocation falls in between. */
  async start(): Promise<void> {
    this.unsubscribe = await this.broker.onRevoke((revocation) => this.add(revocation));
    for (const revocation of await this.broker.listRevoked()) this.add(revocation);
  }

  /** True when the task must not run. */
  has(id: string): boolean {
    const until = this.ids.get(id);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.ids.delete(id);
    return false;
  }

  async stop(): Promise<void> {
    await this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  private add(revocation: Revocation): void {
    this.ids.set(revocation.id, Date.now() + this.ttl);
    if (revocation.terminate) this.onTerminate(revocation);
  }
}
