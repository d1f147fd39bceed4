/**
 * CPU time used so far by the parties of a round trip (the caller, a worker in its own process, and
 * Redis), so the benchmark can say what each costs per job, not only how long a job takes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type Redis from 'ioredis';

/**
 * CPU time (µs) process `pid` has run so far, all its threads summed (V8's helpers included), from
 * Linux's per-thread `schedstat`; undefined where there is no /proc.
 */
export function processCpuMicros(pid: number): number | undefined {
  try {
    let nanoseconds = 0;
    for (const thread of readdirSync(`/proc/${pid}/task`)) {
      nanoseconds += Number(readFileSync(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').split(' ')[0]);
    }
    return nanoseconds / 1_000;
  } catch {
    return undefined;
  }
}

/** CPU time (µs) the Redis server has used so far, user and system (INFO cpu). */
export async function redisCpuMicros(client: Redis): Promise<number> {
  const info = await client.info('cpu');
  const seconds = (field: string) => Number(new RegExp(`^${field}:([\\d.]+)`, 'm').exec(info)?.[1] ?? Number.NaN);
  return (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1e6;
}
