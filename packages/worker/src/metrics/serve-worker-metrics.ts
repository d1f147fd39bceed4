/** A worker's metrics endpoint: prom-client (loaded only now), its default metrics and the worker's own. */
import type { Logger } from '../logger';
import type { ResolvedMetricsEndpoint } from '../options';
import { startMetricsServer, type MetricsServer } from './metrics-server';
import { loadProm } from './prom';
import type { TaskMetrics } from './task-metrics';
import { createWorkerMetrics, type WorkerGaugeSource } from './worker-metrics';

/**
 * Starts the metrics endpoint at `endpoint` (`host:port`, answering the hosts it allows); returns the
 * hooks that feed it and the server.
 */
export async function serveWorkerMetrics(
  endpoint: ResolvedMetricsEndpoint,
  source: WorkerGaugeSource,
  logger: Logger,
): Promise<{ metrics: TaskMetrics; server: MetricsServer }> {
  const prom = loadProm();
  const registry = new prom.Registry();
  prom.collectDefaultMetrics({ register: registry });
  const metrics = createWorkerMetrics(prom, registry, source);
  const server = await startMetricsServer(registry, endpoint);
  logger.info({ metrics: server.url }, `Metrics at ${server.url}`);
  return { metrics, server };
}
