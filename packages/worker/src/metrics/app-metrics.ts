/**
 * The metrics of a whole app, for a process that runs no worker (the dashboard, or the user's own
 * server): gauges read from the broker and the workers' heartbeats on each scrape. Counters and
 * histograms of task runs are kept by each worker and served from its own endpoint
 * (`metrics` worker option, `celeriac worker --metrics-port`); see docs/observability.md.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CeleriacCore } from '@celeriac/core';
import type { Gauge, Registry } from 'prom-client';
import { answerScrape } from './metrics-server';
import { onePerScrape } from './one-per-scrape';
import { loadProm, METRIC_PREFIX, type Prom } from './prom';
import { registerQueueGauges } from './queue-gauges';

/** Options of {@link metricsHandler} and {@link collectMetrics}. */
export interface AppMetricsOptions {
  /**
   * Also export the Node.js process metrics of this process (`process_*`, `nodejs_*`).
   * @defaultValue `false`
   */
  processMetrics?: boolean;
}

const registries = new WeakMap<CeleriacCore, Map<boolean, Registry>>();

/**
 * A Node request handler that answers every request with the app's metrics in the Prometheus text
 * format: queue depths and paused queues, and the workers online with their slots. Mount it where
 * Prometheus scrapes (`/metrics`); it does not look at the path.
 */
export function metricsHandler(
  app: CeleriacCore,
  options: AppMetricsOptions = {},
): (request: IncomingMessage, response: ServerResponse) => void {
  const registry = appRegistry(app, options);
  return (request, response) => answerScrape(registry, request, response);
}

/** The app's metrics (as {@link metricsHandler} serves them), in the Prometheus text format. */
export function collectMetrics(app: CeleriacCore, options: AppMetricsOptions = {}): Promise<string> {
  return appRegistry(app, options).metrics();
}

/** The registry of an app's metrics, made once per app (and per `processMetrics`). */
function appRegistry(app: CeleriacCore, options: AppMetricsOptions): Registry {
  const withProcess = options.processMetrics === true;
  const byOption = registries.get(app) ?? new Map<boolean, Registry>();
  registries.set(app, byOption);
  let registry = byOption.get(withProcess);
  if (registry === undefined) {
    const prom = loadProm();
    registry = new prom.Registry();
    if (withProcess) prom.collectDefaultMetrics({ register: registry });
    registerAppGauges(prom, registry, app);
    byOption.set(withProcess, registry);
  }
  return registry;
}

function registerAppGauges(prom: Prom, registry: Registry, app: CeleriacCore): void {
  registerQueueGauges(prom, registry, () => app.queues.list());
  const workers = onePerScrape(() => app.broker.listWorkers?.() ?? Promise.resolve([]));
  for (const [name, help, sum] of [
    ['workers_online', 'Workers whose heartbeat is live', () => 1],
    ['workers_concurrency', 'Slots of the workers online (tasks they run at once)', (w) => w.concurrency],
    ['workers_busy_slots', 'Tasks running now on the workers online (busy slots)', (w) => w.busy ?? 0],
    ['workers_held_tasks', 'Tasks the workers online hold (running or prefetched)', (w) => w.active],
  ] as const satisfies ReadonlyArray<readonly [string, string, (worker: WorkerInfoLike) => number]>) {
    const gauge: Gauge = new prom.Gauge({
      name: `${METRIC_PREFIX}${name}`,
      help: `${help} (from the heartbeats, renewed every 5 s)`,
      registers: [registry],
      async collect() {
        gauge.set((await workers()).reduce((total, worker) => total + sum(worker), 0));
      },
    });
  }
}

type WorkerInfoLike = { concurrency: number; busy?: number; active: number };
