/**
 * How the caller benchmarks measure a run from the sender's side: wall time, the sender's CPU time
 * per result, its peak RSS, and (given a Redis client) how far Redis's memory rose above where it
 * started, sampled while the run lasts.
 */
import type Redis from 'ioredis';
import { readFileSync } from 'node:fs';

/** One run of a scenario. */
export interface Sample {
  ms: number;
  /** The sender's CPU time (user + system) per result, µs. */
  cpuMicros: number;
  /** The sender's peak RSS during the run, MB. */
  peakRssMb: number;
  /** Heap bytes per pending handle, where measured. */
  bytesPerHandle?: number;
  /** Redis `used_memory` at its peak during the run minus before it, MB (the Redis is shared). */
  redisPeakMb?: number;
}

/** Runs `body` and measures it from the sender's side; `results` is how many results it awaits. */
export async function measured(results: number, body: () => Promise<number | void>, redis?: Redis): Promise<Sample> {
  let peak = process.memoryUsage.rss();
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  const memory = redis ? await redisMemorySampler(redis) : undefined;
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  const bytesPerHandle = await body();
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const used = process.cpuUsage(cpu);
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  const redisPeakMb = await memory?.stop();
  return {
    ms,
    cpuMicros: (used.user + used.system) / results,
    peakRssMb: peak / 2 ** 20,
    ...(bytesPerHandle === undefined ? {} : { bytesPerHandle }),
    ...(redisPeakMb === undefined ? {} : { redisPeakMb }),
  };
}

/** Samples Redis's `used_memory` every 50 ms; `stop()` gives the peak's rise over the start, MB. */
async function redisMemorySampler(redis: Redis): Promise<{ stop(): Promise<number> }> {
  const read = async () => Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1] ?? 0);
  const base = await read();
  let peak = base;
  let reading: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    reading = reading.then(async () => void (peak = Math.max(peak, await read())));
  }, 50);
  return {
    async stop() {
      clearInterval(timer);
      await reading;
      peak = Math.max(peak, await read());
      return (peak - base) / 2 ** 20;
    },
  };
}

/** Heap in use after a full collection (run node with --expose-gc; else without one). */
export function settledHeap(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}

/** The load average (1, 5, 15 min), or 'unknown' without /proc. */
export function loadavg(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'unknown';
  }
}
