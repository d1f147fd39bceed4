/**
 * A runner runs task jobs somewhere: in this process (`inline`), or in child processes (`prefork`,
 * `fork`). The worker's fetch loop, leases and settling do not care which.
 */
import type { TaskJob, TaskOutcome } from './run-task';

/** Runs jobs; one per call, up to the worker's concurrency at once. */
export interface TaskRunner {
  /** How many jobs it takes at once, when more than the worker's concurrency (jobs queued in children). */
  readonly capacity?: number;
  /** Starts what the runner needs (child processes). */
  start(): Promise<void>;
  /** Runs one job to its outcome; never throws. */
  run(job: TaskJob, body: string): Promise<TaskOutcome>;
  /**
   * At shutdown: takes back the jobs waiting in children that have not begun them, and resolves
   * once every child has answered for each (gave it back, or began it), or after `timeoutMs`. Each
   * job given back ends abandoned (its signal's `abandoned` is set) without running; the worker
   * hands it back to the queue. A job a child began runs and settles as usual. A job whose child
   * has not answered yet keeps its signal's `inChild` set: it is still the child's, which answers
   * later (so it never both runs and goes back to the queue).
   */
  takeBackQueued?(timeoutMs: number): Promise<void>;
  /** Changes how many jobs run at once (a prefork pool starts or retires children); absent: nothing to change. */
  resize?(size: number): Promise<void>;
  /** Stops; with `force`, kills what still runs. */
  close(options?: { force?: boolean }): Promise<void>;
}
