/**
 * The caller's side (issue #26): a sender that sends many no-op tasks in bulk and awaits every
 * result, with the worker in a process of its own at c=100, as a web app and its workers run.
 *
 * - send-and-await: BULK jobs sent with each library's bulk call, then every result awaited in the
 *   sender (Celeriac: `delayMany` and `Promise.all(handles)`; BullMQ: `addBulk` and
 *   `waitUntilFinished` with QueueEvents; bee-queue: `saveAll` and its `job succeeded` events).
 * - group: a Celeriac `group` of GROUP no-op tasks sent and awaited from one process.
 * - pending handles: GROUP tasks sent while no worker runs, the sender's heap measured with every
 *   handle pending (bytes per handle), then a worker started and every handle awaited.
 *
 * Each row reports wall time, the sender's CPU time per result (steadier than wall time on a shared
 * machine) and the sender's peak RSS. Libraries take turns round by round; medians are shown.
 *
 *   npm run bench:caller     BENCH_SCALE=0.2 for a quick pass, BENCH_ROUNDS, BENCH_GROUP=100000
 */
import { Celeriac, group } from 'celeriac';
import BeeQueue from 'bee-queue';
import { Queue, QueueEvents } from 'bullmq';
import Redis from 'ioredis';
import { readFileSync } from 'node:fs';
import { startRemoteWorker } from './remote';
import { connectionOf } from './round-trip-worker';
import { deleteKeys } from './redis-stats';
import { median } from './stats';

const URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BULK = Math.max(100, Math.round(10_000 * SCALE));
const GROUP = Number(process.env.BENCH_GROUP ?? Math.max(1_000, Math.round(100_000 * SCALE)));
const CONCURRENCY = 100;

interface Sample {
  ms: number;
  /** The sender's CPU time (user + system) per result, µs. */
  cpuMicros: number;
  /** The sender's peak RSS during the run, MB. */
  peakRssMb: number;
  /** Heap bytes per pending handle, where measured. */
  bytesPerHandle?: number;
}

/** Runs `body` and measures it from the sender's side; `results` is how many results it awaits. */
async function measured(results: number, body: () => Promise<number | void>): Promise<Sample> {
  let peak = process.memoryUsage.rss();
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  const bytesPerHandle = await body();
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const used = process.cpuUsage(cpu);
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  return {
    ms,
    cpuMicros: (used.user + used.system) / results,
    peakRssMb: peak / 2 ** 20,
    ...(bytesPerHandle === undefined ? {} : { bytesPerHandle }),
  };
}

/** Heap in use after a full collection (run node with --expose-gc; else without one). */
function settledHeap(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}

async function celeriacBulk(prefix: string): Promise<Sample> {
  const app = new Celeriac({ broker: URL, prefix });
  const noop = app.task('bench.noop', (i: number) => i);
  const worker = await startRemoteWorker('celeriac', URL, prefix, CONCURRENCY);
  try {
    return await measured(BULK, async () => {
      await Promise.all(noop.delayMany(Array.from({ length: BULK }, (_, i) => [i] as [number])));
    });
  } finally {
    await worker.stop();
    await app.close();
  }
}

async function bullmqBulk(prefix: string): Promise<Sample> {
  const queue = new Queue('bench', { connection: connectionOf(URL), prefix });
  const events = new QueueEvents('bench', { connection: connectionOf(URL), prefix });
  await events.waitUntilReady();
  const worker = await startRemoteWorker('bullmq', URL, prefix, CONCURRENCY);
  try {
    return await measured(BULK, async () => {
      const waits: Array<Promise<unknown>> = [];
      for (let start = 0; start < BULK; start += 1000) {
        const jobs = Array.from({ length: Math.min(1000, BULK - start) }, (_, k) => ({
          name: 'noop',
          data: { i: start + k },
        }));
        for (const job of await queue.addBulk(jobs)) waits.push(job.waitUntilFinished(events));
      }
      await Promise.all(waits);
    });
  } finally {
    await worker.stop();
    await events.close();
    await queue.close();
  }
}

async function beeQueueBulk(prefix: string): Promise<Sample> {
  const producer = new BeeQueue('bench', { redis: { url: URL }, prefix, isWorker: false, getEvents: true });
  await producer.ready();
  const worker = await startRemoteWorker('bee-queue', URL, prefix, CONCURRENCY);
  try {
    return await measured(BULK, async () => {
      // By job id from the queue-level event: a job's own listener may be added after its event.
      let left = BULK;
      const done = new Promise<void>((resolve) =>
        producer.on('job succeeded', () => {
          left -= 1;
          if (left === 0) resolve();
        }),
      );
      await producer.saveAll(Array.from({ length: BULK }, (_, i) => producer.createJob({ i })));
      await done;
    });
  } finally {
    producer.removeAllListeners('job succeeded');
    await worker.stop();
    await producer.close();
  }
}

async function celeriacGroup(prefix: string): Promise<Sample> {
  const app = new Celeriac({ broker: URL, prefix });
  const noop = app.task('bench.noop', (i: number) => i);
  const worker = await startRemoteWorker('celeriac', URL, prefix, CONCURRENCY);
  try {
    return await measured(GROUP, async () => {
      await group(Array.from({ length: GROUP }, (_, i) => noop.s(i))).applyAsync();
    });
  } finally {
    await worker.stop();
    await app.close();
  }
}

async function celeriacPending(prefix: string): Promise<Sample> {
  const app = new Celeriac({ broker: URL, prefix });
  const noop = app.task('bench.noop', (i: number) => i);
  let stopWorker = async () => {};
  try {
    return await measured(GROUP, async () => {
      const before = settledHeap();
      const handles = noop.delayMany(Array.from({ length: GROUP }, (_, i) => [i] as [number]));
      await Promise.all(handles.map((handle) => handle.sent));
      const waits = handles.map((handle) => handle.get());
      const perHandle = (settledHeap() - before) / GROUP;
      ({ stop: stopWorker } = await startRemoteWorker('celeriac', URL, prefix, CONCURRENCY));
      await Promise.all(waits);
      return perHandle;
    });
  } finally {
    await stopWorker();
    await app.close();
  }
}

const SCENARIOS: ReadonlyArray<[string, (prefix: string) => Promise<Sample>]> = [
  [`send ${BULK} in bulk, await all: celeriac`, celeriacBulk],
  [`send ${BULK} in bulk, await all: bullmq`, bullmqBulk],
  [`send ${BULK} in bulk, await all: bee-queue`, beeQueueBulk],
  [`group of ${GROUP}, awaited: celeriac`, celeriacGroup],
  [`${GROUP} pending handles, then awaited: celeriac`, celeriacPending],
];

async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY;
  const scenarios = SCENARIOS.filter(([label]) => only === undefined || label.includes(only));
  const admin = new Redis(URL);
  const samples = new Map<string, Sample[]>(scenarios.map(([label]) => [label, []]));
  for (let round = 0; round < ROUNDS; round += 1) {
    for (let k = 0; k < scenarios.length; k += 1) {
      const [label, run] = scenarios[(round + k) % scenarios.length]!;
      console.error(`round ${round + 1}/${ROUNDS}: ${label}`);
      const prefix = `bench-caller-${process.pid}-${round}-${k}`;
      try {
        samples.get(label)!.push(await run(prefix));
      } finally {
        await deleteKeys(admin, `${prefix}*`);
      }
    }
  }
  await admin.quit();
  console.log(`The caller's side, worker apart at c=${CONCURRENCY}, median of ${ROUNDS} (loadavg ${loadavg()}).\n`);
  console.log('| scenario | results/s | sender CPU µs per result | sender peak RSS MB | heap bytes per handle |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const [label, list] of samples) {
    const at = (pick: (sample: Sample) => number) => median(list.map(pick));
    const count = label.includes('group') || label.includes('pending') ? GROUP : BULK;
    const perHandle = list[0]?.bytesPerHandle === undefined ? '' : at((s) => s.bytesPerHandle ?? 0).toFixed(0);
    console.log(
      `| ${label} | ${(count / (at((s) => s.ms) / 1000)).toFixed(0)} | ${at((s) => s.cpuMicros).toFixed(1)} | ` +
        `${at((s) => s.peakRssMb).toFixed(0)} | ${perHandle} |`,
    );
  }
}

function loadavg(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'unknown';
  }
}

void main();
