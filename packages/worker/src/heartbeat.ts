/**
 * The worker's heartbeat: it records itself in the broker (hostname, pid, queues, pool, counters)
 * with a TTL, renewed on a timer, so `inspect` and the dashboard see live workers and forget dead ones.
 */
import { type Broker, type WorkerInfo } from '@celeriac/core';
import { toRemoteError } from '@celeriac/core/internal';
import type { Logger } from './logger';

/** How often the record is renewed; it expires after three missed beats. */
const INTERVAL_MS = 5_000;

/** Beats on a timer while the worker runs. */
export class Heartbeat {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly broker: Broker,
    private readonly snapshot: () => WorkerInfo,
    private readonly logger: Logger,
  ) {}

  /** Beats now and then every few seconds. */
  start(): void {
    if (!this.broker.heartbeat) return;
    void this.beat();
    this.timer = setInterval(() => void this.beat(), INTERVAL_MS);
    this.timer.unref();
  }

  /** Stops beating and removes the record. */
  async stop(hostname: string): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.broker.forgetWorker?.(hostname).catch(() => undefined);
  }

  private async beat(): Promise<void> {
    try {
      await this.broker.heartbeat?.(this.snapshot(), INTERVAL_MS * 3);
    } catch (error) {
      this.logger.warn({ error: toRemoteError(error) }, 'Heartbeat failed; will retry');
    }
  }
}
