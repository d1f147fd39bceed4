/**
 * `prom-client`, loaded on first use: a worker without a metrics endpoint, and every pool child,
 * never load it.
 */
import type * as PromClient from 'prom-client';

/** The `prom-client` module. */
export type Prom = typeof PromClient;

/** Metric names start with this. */
export const METRIC_PREFIX = 'celeriac_';

/** Buckets (seconds) of the run time and queue wait histograms: 5 ms to 10 min. */
export const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 600];

/** Loads `prom-client`. */
export function loadProm(): Prom {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('prom-client') as Prom;
}
