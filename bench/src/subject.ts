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
  /**
   * Starts a worker at concurrency 1 for round trips: in this process (`here`), or in a process of
   * its own (`apart`, as a web app and its workers run). The driver then sends one job at a time
   * with the returned `once` (it resolves with that job's round trip in ms: send, then await the
   * result), alternating between libraries so that each sees the same machine.
   */
  startRoundTrips(where: Placement): Promise<RoundTripper>;
  /** Removes the library's keys and closes its connections. */
  close(): Promise<void>;
}

/** Where the worker of a round trip runs: in the sender's process, or in a process of its own. */
export type Placement = 'here' | 'apart';

/** Sends jobs one at a time through a running worker; see {@link Subject.startRoundTrips}. */
export interface RoundTripper {
  /** Sends one job and awaits its result; resolves with the round trip in ms. */
  once(): Promise<number>;
  /** Stops the worker. */
  stop(): Promise<void>;
  /** The worker's process id when it runs apart. */
  workerPid?: number | undefined;
}

/** Times one round trip: `run` sends a job and resolves once its result arrived. */
export async function timed(run: () => PromiseLike<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - start) / 1e6;
}
