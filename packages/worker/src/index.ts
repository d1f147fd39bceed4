/**
 * @celeriac/worker: runs tasks. The in-process (`inline`) worker lives here; process pools and the
 * `celeriac worker` command build on it.
 */
export { backoffDelay, decideRetry, type RetryDecision, type RetryInput } from './retry-policy';
export { execute, type ExecuteInput, type ExecutionResult } from './execute';
export { quietLogger, type Logger } from './logger';
export {
  resolveWorkerOptions,
  type MetricsEndpointOptions,
  type PoolKind,
  type ResolvedWorkerOptions,
  type WorkerOptions,
} from './options';
export { collectMetrics, metricsHandler, type AppMetricsOptions } from './metrics/app-metrics';
export { Worker, type WorkerState } from './worker';
export { loadAppModule, type LoadedApp } from './load-app';
export type { TaskRunner } from './runner';
export type { TaskJob, TaskOutcome } from './run-task';
export type { WorkerApp } from './worker-app';
