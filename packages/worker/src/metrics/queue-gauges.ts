/**
 * Queue depth gauges, read from the broker when scraped: how many tasks each queue holds ready,
 * scheduled (delayed), active (leased), dead and failed, and whether it is paused. Both a worker's
 * endpoint (its own queues) and the app-level handler (every queue) export them.
 */
import type { QueueInfo } from '@celeriac/core';
import { onePerScrape } from './one-per-scrape';
import { METRIC_PREFIX, type Prom } from './prom';
import type { Gauge, Registry } from 'prom-client';

/** One queue's counts, as the gauges export them (`app.queues.list()` rows; `paused` when known). */
export type QueueDepth = Omit<QueueInfo, 'paused'> & { readonly paused?: boolean };

/** The label each count is exported under: `scheduled` is the broker's `delayed`. */
const STATES = [
  ['ready', 'ready'],
  ['scheduled', 'delayed'],
  ['active', 'active'],
  ['dead', 'dead'],
  ['failed', 'failed'],
] as const;

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
        for (const [state, field] of STATES) {
          const value = queue[field];
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
