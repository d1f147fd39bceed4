/**
 * How many jobs a prefork child may hold at once (the one it runs, and those queued behind it).
 * Queueing hides the round trip between two tasks, and for tiny tasks it is what makes them fast:
 * every pipe write, reservation and settling write is then shared by a batch (at depth 128, no-op
 * tasks ran 1.7x as fast as at 16). But a job queued behind a long task waits, so the depth follows
 * how long the child's tasks take.
 */

/** Tasks shorter than this on average (ms) may queue deep. */
export const SHORT_TASK_MS = 5;
/** How much work (ms, at the average task time) may queue behind the running task of short tasks. */
export const QUEUED_WORK_MS = 10;
/** A task running this long (ms) holds nothing behind it: what waits there is taken back. */
export const WITHDRAW_AFTER_MS = 100;

/** What the depth depends on. */
export interface DepthInputs {
  /** The child's moving average of task times (ms). */
  averageMs: number;
  /** How long its current task has run (ms; 0 when idle). */
  runningMs: number;
  /** The most jobs a child may hold (1 when prefetching is off). */
  maxDepth: number;
}

/**
 * The depth: about {@link QUEUED_WORK_MS} of work for short tasks (1 ms tasks: 10, no-ops: up to
 * `maxDepth`), one ahead for longer ones, and none ahead while the current task runs long.
 */
export function queueDepth({ averageMs, runningMs, maxDepth }: DepthInputs): number {
  if (runningMs >= WITHDRAW_AFTER_MS) return 1;
  const oneAhead = Math.min(maxDepth, 2);
  if (averageMs > SHORT_TASK_MS || runningMs > SHORT_TASK_MS) return oneAhead;
  return Math.max(oneAhead, Math.min(maxDepth, Math.floor(QUEUED_WORK_MS / Math.max(averageMs, 0.01))));
}
