/**
 * Queue depth gauges, read from the broker when scraped: how many tasks each queue holds ready,
 * scheduled (delayed), active (leased), dead and failed, and whether it is paused. Both a worker's
 * endpoint (its own queues) and the app-level handler (every queue) export them.
 */
import type { Broker } from '@celeriac/core';
import { onePerScrape } from './one-per-scrape';
import { METRIC_PREFIX, type Prom } from './prom';
import type { Gauge, Registry } from 'prom-client';

/** One queue's counts, as the gauges export them. */
export interface QueueDepth {
  name: string;
  ready: number;
  scheduled: number;
  active: number;
  dead: number;
  /** Absent when the broker keeps no failed-task registry. */
  failed?: number;
  paused?: boolean;
}

/** The gauges of `read`'s queues, registered in `registry`; read on each scrape. */
export function registerQueueGauges(prom: Prom, registry: Registry, read: () => Promise<QueueDepth[]>): void {
  const readOnce = onePerScrape(read);
  const depth: Gauge<'queue' | 'state'> = new prom.Gauge({
    name: `${METRIC_PREFIX}queue_tasks`,
    help: 'Tasks a queue holds, by where they are (ready, scheduled, active, dead, failed)',
    labelNames: ['queue', 'state'],
    registers: [registry],
    async collect() {
      const queues = await readOnce();
      depth.reset();
      for (const queue of queues) {
        for (const state of ['ready', 'scheduled', 'active', 'dead', 'failed'] as const) {
          const value = queue[state];
          if (value !== undefined) depth.set({ queue: queue.name, state }, value);
        }
      }
    },
  });
  const paused: Gauge<'queue'> = new prom.Gauge({
    name: `${METRIC_PREFIX}queue_paused`,
    help: '1 when the queue is paused (workers reserve nothing from it), else 0',
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      const queues = await readOnce();
      paused.reset();
      for (const queue of queues)
        if (queue.paused !== undefined) paused.set({ queue: queue.name }, queue.paused ? 1 : 0);
    },
  });
}

/** The depth of each of `queues` in `broker` (paused: whether `pausedQueues` lists it). */
export async function readQueueDepths(
  broker: Broker,
  queues: readonly string[],
  pausedQueues?: readonly string[],
): Promise<QueueDepth[]> {
  return Promise.all(
    queues.map(async (name) => {
      const [stats, failed] = await Promise.all([broker.stats(name), broker.countFailed?.(name)]);
      const depth: QueueDepth = {
        name,
        ready: stats.ready,
        scheduled: stats.delayed,
        active: stats.active,
        dead: stats.dead,
      };
      if (failed !== undefined) depth.failed = failed;
      if (pausedQueues !== undefined) depth.paused = pausedQueues.includes(name);
      return depth;
    }),
  );
}
