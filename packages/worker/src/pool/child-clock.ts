/**
 * A pool child's clock. Not `performance.now()`: the first use of `performance` loads Node's
 * perf_hooks, ~0.6 ms (measured) that a `fork` child would pay for every task.
 */

/** Milliseconds on a monotonic clock (for durations only). */
export function monotonicMs(): number {
  const [seconds, nanoseconds] = process.hrtime();
  return seconds * 1e3 + nanoseconds / 1e6;
}
