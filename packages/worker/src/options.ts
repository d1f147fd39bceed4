/** Options of a worker, with their defaults in one place. */
import { isIP } from 'node:net';
import { availableParallelism, hostname } from 'node:os';
import { CeleriacError, type Duration } from '@celeriac/core';
import {
  isQueueName,
  optionalMilliseconds,
  parseAllowedHosts,
  QUEUE_NAME_RULE,
  toMilliseconds,
  type AllowedHosts,
} from '@celeriac/core/internal';
import { resolveAutoscale, type AutoscaleOptions, type ResolvedAutoscale } from './autoscale-options';
import type { Logger } from './logger';
import { quietLogger } from './logger';

/**
 * How tasks are run: `inline` as async functions inside the worker process; `prefork` in long-lived
 * child processes; `fork` in a fresh child process per task.
 */
export type PoolKind = 'inline' | 'prefork' | 'fork';

/** Options of `app.worker(...)`. */
export interface WorkerOptions {
  /**
   * Queues to consume, in priority order: earlier queues drain first.
   * @defaultValue `[app.options.defaultQueue]`
   */
  queues?: readonly string[];
  /**
   * How many tasks run at once. Not with `autoscale`, which moves the size between its bounds.
   * @defaultValue the number of CPUs
   */
  concurrency?: number;
  /**
   * Grows the `prefork` or `fork` pool while tasks wait (up to `max`) and shrinks it after `idle`
   * without use (down to `min`); see docs/workers.md. The `inline` pool refuses it.
   * @defaultValue a fixed `concurrency`
   */
  autoscale?: AutoscaleOptions;
  /**
   * How tasks are run.
   * @defaultValue `'inline'`
   */
  pool?: PoolKind;
  /** The app module the pool children load (required for `prefork` and `fork`): the file that creates the app. */
  appModule?: string;
  /** Replace a prefork child after this many tasks. */
  maxTasksPerChild?: number;
  /** Replace a prefork child whose memory passed this many megabytes after a task. */
  maxMemoryPerChild?: number;
  /** Hard time limit for tasks that set none (process pools kill the child). */
  timeLimit?: Duration;
  /** Soft time limit for tasks that set none. */
  softTimeLimit?: Duration;
  /**
   * How many tasks the worker reserves ahead of its free slots, so the next ones are on hand when a
   * task ends. Use 0 for long tasks, so that waiting tasks stay free for other workers.
   * @defaultValue `concurrency`; with `autoscale`, the pool's current size
   */
  prefetch?: number;
  /**
   * On close, how long running tasks may take to finish before they are handed back to the queue.
   * @defaultValue `'30s'`
   */
  shutdownTimeout?: Duration;
  /**
   * Names this worker in logs, records and `inspect`.
   * @defaultValue `'<host>:<pid>'`
   */
  hostname?: string;
  /**
   * Where the worker logs.
   * @defaultValue warnings and errors to stderr
   */
  logger?: Logger;
  /**
   * Serves this worker's Prometheus metrics over HTTP at `/metrics` (see docs/observability.md).
   * Needs `prom-client`, which is loaded only then.
   * @defaultValue no metrics endpoint
   */
  metrics?: MetricsEndpointOptions;
  /**
   * Emits task and worker events from this worker, whatever the app's `events` says (Celery's
   * `worker -E`); `false` keeps it quiet. `app.control.enableEvents()` and `disableEvents()` (and
   * `celeriac control enable-events | disable-events`) switch it while the worker runs.
   * @defaultValue the app's `events` setting
   */
  events?: boolean;
}

/** Where a worker serves its metrics. */
export interface MetricsEndpointOptions {
  /** The TCP port; 0 picks a free one (the worker logs it, and `worker.metricsUrl` says it). */
  port: number;
  /**
   * The address to listen on.
   * @defaultValue `'127.0.0.1'`
   */
  host?: string;
  /**
   * Host names a scrape may name in its `Host` header, besides loopback names, IP addresses and
   * `host` itself: `name`, `name:port`, or `.example.com` for a domain and its subdomains. Any other
   * `Host` is answered 403, so that a web page cannot read the metrics by DNS rebinding.
   * @defaultValue `[]`
   */
  allowedHosts?: readonly string[];
}

/** Where a worker serves its metrics, checked. */
export interface ResolvedMetricsEndpoint {
  readonly port: number;
  readonly host: string;
  /** The hosts of `allowedHosts` (with `host`), parsed. */
  readonly allowedHosts: AllowedHosts;
}

/** Worker options after defaults. */
export interface ResolvedWorkerOptions {
  queues: readonly string[];
  concurrency: number;
  pool: PoolKind;
  appModule: string | undefined;
  maxTasksPerChild: number | undefined;
  maxMemoryPerChild: number | undefined;
  timeLimit: number | undefined;
  softTimeLimit: number | undefined;
  /** With `autoscale`, the starting value when not given (it then follows the pool size). */
  prefetch: number;
  /** Whether `prefetch` was given: if not, it follows the pool size under `autoscale`. */
  prefetchGiven: boolean;
  autoscale: ResolvedAutoscale | undefined;
  shutdownTimeout: number;
  hostname: string;
  logger: Logger;
  metrics: ResolvedMetricsEndpoint | undefined;
  events: boolean | undefined;
}

/** Fills in defaults and validates; throws `CELERIAC_INVALID_OPTION` naming the bad option. */
export function resolveWorkerOptions(options: WorkerOptions, defaultQueue: string): ResolvedWorkerOptions {
  const pool = options.pool ?? 'inline';
  if (!['inline', 'prefork', 'fork'].includes(pool)) throw invalid('pool', pool, "'inline', 'prefork' or 'fork'");
  const autoscale = resolveAutoscale(options.autoscale, pool, options.concurrency);
  const concurrency = autoscale?.min ?? options.concurrency ?? availableParallelism();
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw invalid('concurrency', concurrency, 'an integer of at least 1');
  const prefetch = options.prefetch ?? concurrency;
  if (!Number.isInteger(prefetch) || prefetch < 0) throw invalid('prefetch', prefetch, 'an integer of at least 0');
  const queues = options.queues ?? [defaultQueue];
  if (queues.length === 0) throw invalid('queues', queues, 'at least one queue name');
  const badQueue = queues.find((queue) => !isQueueName(queue));
  if (badQueue !== undefined) throw invalid('queues', badQueue, `queue names of ${QUEUE_NAME_RULE}`);
  if (pool !== 'inline' && !options.appModule)
    throw invalid('appModule', options.appModule, `the path of the app module, which ${pool} pool children load`);
  for (const [name, value] of [
    ['maxTasksPerChild', options.maxTasksPerChild],
    ['maxMemoryPerChild', options.maxMemoryPerChild],
  ] as const) {
    if (value !== undefined && (!Number.isInteger(value) || value < 1))
      throw invalid(name, value, 'a positive integer');
  }
  return {
    metrics: resolveMetrics(options.metrics),
    queues: [...queues],
    concurrency,
    pool,
    appModule: options.appModule,
    maxTasksPerChild: options.maxTasksPerChild,
    maxMemoryPerChild: options.maxMemoryPerChild,
    timeLimit: optionalMilliseconds(options.timeLimit, 'timeLimit'),
    softTimeLimit: optionalMilliseconds(options.softTimeLimit, 'softTimeLimit'),
    prefetch,
    prefetchGiven: options.prefetch !== undefined,
    autoscale,
    shutdownTimeout: toMilliseconds(options.shutdownTimeout ?? '30s', 'shutdownTimeout'),
    hostname: options.hostname ?? `${hostname()}:${process.pid}`,
    logger: options.logger ?? quietLogger,
    events: options.events,
  };
}

function resolveMetrics(metrics: MetricsEndpointOptions | undefined): ResolvedMetricsEndpoint | undefined {
  if (metrics === undefined) return undefined;
  const { port, host = '127.0.0.1', allowedHosts = [] } = metrics;
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw invalid('metrics.port', port, 'an integer from 0 to 65535');
  if (typeof host !== 'string' || host.length === 0) throw invalid('metrics.host', host, 'a host name or address');
  if (!Array.isArray(allowedHosts)) throw invalid('metrics.allowedHosts', allowedHosts, 'an array of host names');
  const listed: readonly string[] = isIP(host) === 0 ? [...(allowedHosts as readonly string[]), host] : allowedHosts;
  return { port, host, allowedHosts: parseAllowedHosts(listed, 'Worker option metrics.allowedHosts') };
}

function invalid(option: string, value: unknown, expected: string): CeleriacError {
  return new CeleriacError(
    'CELERIAC_INVALID_OPTION',
    `Invalid worker option ${option}: ${JSON.stringify(value)}; expected ${expected}.`,
  );
}
