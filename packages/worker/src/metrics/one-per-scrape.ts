/** Shares one read between the gauges that a scrape collects at once. */

/**
 * Wraps `read` so that the calls made together (a scrape collects every gauge at once) share one
 * read; the next scrape reads again.
 */
export function onePerScrape<T>(read: () => Promise<T>): () => Promise<T> {
  let reading: Promise<T> | undefined;
  return () => {
    reading ??= read().finally(() => queueMicrotask(() => (reading = undefined)));
    return reading;
  };
}
