/**
 * The worker's heartbeat: it records itself in the broker (hostname, pid, queues, pool, counters)
 * with a TTL, renewed on a timer, so `inspect` and the dashboard see live workers and forget dead ones.
 * With events on, it also emits `worker-online`, a `worker-heartbeat` each beat, and `worker-offline`.
 */
import { loadavg } from 'node:os';
import { brokerSupports, type Broker, type WorkerEvent, type WorkerInfo } from '@celeriac/core';
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
    /** Appends worker events (the worker's own switch decides at each call); absent: none. */
    private readonly emit?: (events: WorkerEvent[]) => Promise<void>,
  ) {}

  /** Beats now and then every few seconds. */
  start(): void {
    if (this.emit) {
      const info = this.snapshot();
      void this.emit([
        {
          type: 'worker-online',
          hostname: info.hostname,
          pid: info.pid,
          timestamp: Date.now(),
          queues: info.queues,
          pool: info.pool,
          concurrency: info.concurrency,
        },
      ]);
    }
    if (!this.broker.capabilities.workerRecords && !this.emit) return;
    void this.beat();
    this.timer = setInterval(() => void this.beat(), INTERVAL_MS);
    this.timer.unref();
  }

  /** Beats now, between the timer's beats (the pool's size changed); never rejects. */
  refresh(): Promise<void> {
    return this.timer === undefined ? Promise.resolve() : this.beat();
  }

  /** Stops beating and removes the record. */
  async stop(hostname: string): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    if (this.emit) {
      const info = this.snapshot();
      await this.emit([
        {
          type: 'worker-offline',
          hostname: info.hostname,
          pid: info.pid,
          timestamp: Date.now(),
          processed: info.processed,
        },
      ]);
    }
    if (brokerSupports(this.broker, 'workerRecords')) await this.broker.forgetWorker(hostname).catch(() => undefined);
  }

  private async beat(): Promise<void> {
    const info = this.snapshot();
    void this.emit?.([
      {
        type: 'worker-heartbeat',
        hostname: info.hostname,
        pid: info.pid,
        timestamp: info.heartbeat,
        active: info.active,
        ...(info.busy === undefined ? {} : { busy: info.busy }),
        processed: info.processed,
        load: loadavg(),
        rss: process.memoryUsage.rss(),
      },
    ]);
    try {
      if (brokerSupports(this.broker, 'workerRecords')) await this.broker.heartbeat(info, INTERVAL_MS * 3);
    } catch (error) {
      this.logger.warn({ error: toRemoteError(error) }, 'Heartbeat failed; will retry');
    }
  }
}
