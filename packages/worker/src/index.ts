/**
 * @celeriac/worker: runs tasks. The in-process (`inline`) worker lives here; process pools and the
 * `celeriac worker` command build on it. What the CLI needs beyond this is in `@celeriac/worker/internal`.
 */
export type { AutoscaleOptions } from './autoscale-options';
export { quietLogger, type Logger } from './logger';
export type { MetricsEndpointOptions, PoolKind, ResolvedWorkerOptions, WorkerOptions } from './options';
export { collectMetrics, metricsHandler, type AppMetricsHandler, type AppMetricsOptions } from './metrics/app-metrics';
export { Worker, type WorkerState } from './worker';
