/**
 * The metrics of a whole app, for a process that runs no worker (the dashboard, or the user's own
 * server): gauges read from the broker and the workers' heartbeats on each scrape, and, when a
 * reader of the event log feeds the handler (the dashboard does), counters and histograms of every
 * task run (`celeriac_app_*`, see event-metrics.ts). Each worker also keeps its own, served from its
 * own endpoint (`metrics` worker option, `celeriac worker --metrics-port`); see docs/observability.md.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { brokerSupports, type CeleriacCore, type StoredEvent, type WorkerInfo } from '@celeriac/core';
import { eventIdBefore, runtimeOf } from '@celeriac/core/internal';
import type { Gauge, Registry } from 'prom-client';
import { createEventMetrics } from './event-metrics';
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

/** The request handler of {@link metricsHandler}, which also counts the events a reader hands it. */
export interface AppMetricsHandler {
  (request: IncomingMessage, response: ServerResponse): void;
  /**
   * Counts one event of the app's event log into the `celeriac_app_*` counters and histograms.
   * The dashboard hands it every event it reads, oldest first. Only events written after the app's
   * metrics were made (by the first `metricsHandler` or `collectMetrics` of the app) are counted; the
   * older ones, read back for the dashboard's history, only teach it which task names are real. An
   * event is counted once, however many readers hand it.
   */
  countEvent(event: StoredEvent): void;
}

/** An app's metrics, made once per app (and per `processMetrics`). */
interface AppRegistry {
  readonly registry: Registry;
  readonly countEvent: (event: StoredEvent) => void;
}

const registries = new WeakMap<CeleriacCore, Map<boolean, AppRegistry>>();

/**
 * A Node request handler that answers every request with the app's metrics in the Prometheus text
 * format: queue depths and paused queues, and the workers online with their slots; and counters of
 * the tasks run since it was made, when a reader of the event log feeds its `countEvent` (the
 * dashboard does when it mounts the handler). Mount it where Prometheus scrapes (`/metrics`); it
 * does not look at the path.
 */
export function metricsHandler(app: CeleriacCore, options: AppMetricsOptions = {}): AppMetricsHandler {
  const { registry, countEvent } = appRegistry(app, options);
  const handler = (request: IncomingMessage, response: ServerResponse) => answerScrape(registry, request, response);
  return Object.assign(handler, { countEvent });
}

/** The app's metrics (as {@link metricsHandler} serves them), in the Prometheus text format. */
export function collectMetrics(app: CeleriacCore, options: AppMetricsOptions = {}): Promise<string> {
  return appRegistry(app, options).registry.metrics();
}

function appRegistry(app: CeleriacCore, options: AppMetricsOptions): AppRegistry {
  const withProcess = options.processMetrics === true;
  const byOption = registries.get(app) ?? new Map<boolean, AppRegistry>();
  registries.set(app, byOption);
  let made = byOption.get(withProcess);
  if (made === undefined) {
    const prom = loadProm();
    const registry = new prom.Registry();
    if (withProcess) prom.collectDefaultMetrics({ register: registry });
    registerAppGauges(prom, registry, app);
    made = { registry, countEvent: eventCounter(prom, registry, app) };
    byOption.set(withProcess, made);
  }
  return made;
}

/**
 * What counts events into `registry`: the counters are registered with the first event, so an
 * endpoint that no reader feeds shows none (rather than zeros that would look like an idle app).
 */
function eventCounter(prom: Prom, registry: Registry, app: CeleriacCore): (event: StoredEvent) => void {
  const since = eventIdBefore(Date.now());
  const tasks = runtimeOf(app).registry;
  let count: ((event: StoredEvent) => void) | undefined;
  return (event) => {
    count ??= createEventMetrics(prom, registry, { since, isTask: (name) => tasks.get(name) !== undefined });
    count(event);
  };
}

function registerAppGauges(prom: Prom, registry: Registry, app: CeleriacCore): void {
  new prom.Gauge({
    name: `${METRIC_PREFIX}events_enabled`,
    help:
      'Whether this app writes task events (1) or not (0, the default): the celeriac_app_* counters ' +
      'are counted from them by the dashboard; turn them on with `events: true` on the app',
    registers: [registry],
  }).set(app.options.events.enabled ? 1 : 0);
  registerQueueGauges(prom, registry, () => app.queues.list());
  const workers = onePerScrape(() =>
    brokerSupports(app.broker, 'workerRecords') ? app.broker.listWorkers() : Promise.resolve([]),
  );
  for (const [name, help, sum] of [
    ['workers_online', 'Workers whose heartbeat is live', () => 1],
    ['workers_concurrency', 'Slots of the workers online (tasks they run at once)', (w) => w.concurrency],
    [
      'workers_concurrency_max',
      'Slots the workers online may grow to (autoscale max, or their concurrency)',
      (w) => w.autoscale?.max ?? w.concurrency,
    ],
    ['workers_busy_slots', 'Tasks running now on the workers online (busy slots)', (w) => w.busy ?? 0],
    ['workers_held_tasks', 'Tasks the workers online hold (running or prefetched)', (w) => w.active],
    // A worker's record without `busy` cannot tell them apart: none counted reserved.
    [
      'workers_reserved_tasks',
      'Tasks the workers online hold but do not run (prefetched, waiting for a slot)',
      (w) => (w.busy === undefined ? 0 : w.active - w.busy),
    ],
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

type WorkerInfoLike = Pick<WorkerInfo, 'concurrency' | 'busy' | 'active' | 'autoscale'>;
