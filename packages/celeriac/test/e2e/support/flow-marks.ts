/** Reads what the flow-control fixture tasks recorded (fixtures/flow-tasks.js), and how many ran at once. */
import type { RedisClient as Redis } from '@celeriac/redis';

/** One run: its index, when it started and ended (epoch ms), and the worker process it ran in. */
export interface Run {
  i: number;
  start: number;
  end: number;
  pid: number;
}

/** The runs task `name` recorded under `prefix`, in the order they ended. */
export async function runsOf(redis: Redis, prefix: string, name: string): Promise<Run[]> {
  const entries = await redis.lrange(`${prefix}:marks:${name}`, 0, -1);
  return entries.map((entry) => JSON.parse(entry) as Run);
}

/** The most runs that were going on at the same moment. */
export function mostAtOnce(runs: readonly Run[]): number {
  const edges = runs.flatMap((run) => [
    { at: run.start, step: 1 },
    { at: run.end, step: -1 },
  ]);
  // An end and a start at the same millisecond: the end first (the slot was released before).
  edges.sort((a, b) => a.at - b.at || a.step - b.step);
  let now = 0;
  let most = 0;
  for (const edge of edges) {
    now += edge.step;
    most = Math.max(most, now);
  }
  return most;
}

/** The most starts within any `window` ms. */
export function mostStartsWithin(runs: readonly Run[], window: number): number {
  const starts = runs.map((run) => run.start).sort((a, b) => a - b);
  let most = 0;
  let first = 0;
  for (let last = 0; last < starts.length; last += 1) {
    while ((starts[last] as number) - (starts[first] as number) >= window) first += 1;
    most = Math.max(most, last - first + 1);
  }
  return most;
}
