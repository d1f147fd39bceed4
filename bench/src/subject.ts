/** What every benchmarked queue library implements, so one driver measures them all alike. */

/** One library under test, bound to its own key prefix. */
export interface Subject {
  readonly name: string;
  /** Enqueues `n` no-op jobs, awaiting each before the next. */
  enqueueSerial(n: number): Promise<void>;
  /** Enqueues `n` no-op jobs concurrently (all calls started at once). */
  enqueueConcurrent(n: number): Promise<void>;
  /** Enqueues `n` no-op jobs with the library's bulk call. */
  enqueueBulk(n: number): Promise<void>;
  /** Starts a worker with `concurrency`, and resolves once `n` already enqueued jobs are done. */
  processAll(n: number, concurrency: number): Promise<void>;
  /** With a worker running, sends one job at a time and awaits its result: returns each round trip in ms. */
  roundTrips(samples: number): Promise<number[]>;
  /** Removes the library's keys and closes its connections. */
  close(): Promise<void>;
}
