/**
 * The caller's side (issue #26): a sender that sends many no-op tasks in bulk and awaits every
 * result, with the worker in a process of its own at c=100, as a web app and its workers run.
 *
 * - send-and-await: BULK jobs sent with each library's bulk call, then every result awaited in the
 *   sender (Celeriac: `delayMany` and `Promise.all(handles)`; BullMQ: `addBulk` and
 *   `waitUntilFinished` with QueueEvents; bee-queue: `saveAll` and its `job succeeded` events).
 * - in-process: BULK*2 tasks sent in bulk with the worker in the sender's process (see in-process.ts).
 * - fan-out: a Celeriac `group` of GROUP no-op tasks, a `chord` of GROUP with a sum callback, and
 *   BullMQ's FlowProducer with GROUP children and a summing parent (see fan-out.ts).
 * - pending handles: GROUP tasks sent while no worker runs, the sender's heap measured with every
 *   handle pending (bytes per handle), then a worker started and every handle awaited.
 *
 * Each row reports wall time, the sender's CPU time per result (steadier than wall time on a shared
 * machine), the sender's peak RSS and, for fan-out, how far Redis's memory rose. Scenarios take turns
 * round by round; medians are shown.
 *
 *   npm run bench:caller     BENCH_SCALE=0.2 for a quick pass, BENCH_ROUNDS, BENCH_GROUP=100000,
 *                            BENCH_ONLY=<part of a row name>, BENCH_SKIP=<parts of row names, comma-separated>
 */
import { Celeriac } from 'celeriac';
import BeeQueue from 'bee-queue';
import { Queue, QueueEvents } from 'bullmq';
import Redis from 'ioredis';
import { fork } from 'node:child_process';
import { loadavg, measured, settledHeap, type Sample } from './caller-measure';
import { bullmqFlow, celeriacChord, celeriacGroup } from './fan-out';
import { beeQueueInProcess, bullmqInProcess, celeriacInProcess } from './in-process';
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

const IN_PROCESS = BULK * 2;

/** A row: its label, how many results it awaits, and one run under a key prefix. */
type Scenario = [label: string, results: number, run: (prefix: string, admin: Redis) => Promise<Sample>];

const SCENARIOS: readonly Scenario[] = [
  [`send ${BULK} in bulk, await all: celeriac`, BULK, celeriacBulk],
  [`send ${BULK} in bulk, await all: bullmq`, BULK, bullmqBulk],
  [`send ${BULK} in bulk, await all: bee-queue`, BULK, beeQueueBulk],
  [`in-process ${IN_PROCESS}, every handle awaited: celeriac`, IN_PROCESS, (p) => celeriacInProcess(IN_PROCESS, p)],
  [`in-process ${IN_PROCESS}, worker events only: bullmq`, IN_PROCESS, (p) => bullmqInProcess(IN_PROCESS, p)],
  [`in-process ${IN_PROCESS}, job succeeded events: bee-queue`, IN_PROCESS, (p) => beeQueueInProcess(IN_PROCESS, p)],
  [`group of ${GROUP}, awaited: celeriac`, GROUP, (p, admin) => celeriacGroup(GROUP, p, admin)],
  [`chord of ${GROUP}, sum callback: celeriac`, GROUP, (p, admin) => celeriacChord(GROUP, p, admin)],
  [`FlowProducer, ${GROUP} children, sum parent: bullmq`, GROUP, (p, admin) => bullmqFlow(GROUP, p, admin)],
  [`${GROUP} pending handles, then awaited: celeriac`, GROUP, celeriacPending],
];

async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY;
  const skip = process.env.BENCH_SKIP?.split(',') ?? [];
  const scenarios = SCENARIOS.filter(
    ([label]) => (only === undefined || label.includes(only)) && !skip.some((part) => label.includes(part)),
  );
  const admin = new Redis(URL);
  const samples = new Map<string, Sample[]>(scenarios.map(([label]) => [label, []]));
  for (let round = 0; round < ROUNDS; round += 1) {
    for (let k = 0; k < scenarios.length; k += 1) {
      const [label] = scenarios[(round + k) % scenarios.length]!;
      console.error(`round ${round + 1}/${ROUNDS}: ${label} (loadavg ${loadavg()})`);
      const prefix = `bench-caller-${process.pid}-${round}-${k}`;
      try {
        const sample = await inChild(label, prefix);
        samples.get(label)!.push(sample);
        console.error(`  ${JSON.stringify(sample)}`); // each run, in case a long run is cut short
      } finally {
        await deleteKeys(admin, `${prefix}*`);
      }
    }
  }
  await admin.quit();
  console.log(`The caller's side, worker apart at c=${CONCURRENCY}, median of ${ROUNDS} (loadavg ${loadavg()}).\n`);
  console.log(
    '| scenario | results/s | sender CPU µs per result | sender peak RSS MB | Redis memory rise MB | heap bytes per handle |',
  );
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const [label, count] of scenarios) {
    const list = samples.get(label) ?? [];
    const at = (pick: (sample: Sample) => number) => median(list.map(pick));
    const optional = (pick: (sample: Sample) => number | undefined) =>
      list[0] === undefined || pick(list[0]) === undefined ? '' : at((s) => pick(s) ?? 0).toFixed(0);
    console.log(
      `| ${label} | ${(count / (at((s) => s.ms) / 1000)).toFixed(0)} | ${at((s) => s.cpuMicros).toFixed(1)} | ` +
        `${at((s) => s.peakRssMb).toFixed(0)} | ${optional((s) => s.redisPeakMb)} | ` +
        `${optional((s) => s.bytesPerHandle)} |`,
    );
  }
}

/**
 * Runs one scenario in a new process, so that its peak RSS is its own (a process keeps the heap an
 * earlier scenario grew) and the V8 state of one library does not carry over to the next.
 */
function inChild(label: string, prefix: string): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const child = fork(__filename, [], {
      env: { ...process.env, BENCH_CHILD: label, BENCH_CHILD_PREFIX: prefix },
      execArgv: ['--expose-gc'],
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    });
    child.once('message', (sample) => resolve(sample as Sample));
    child.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`${label} exited with ${code}`))));
  });
}

/** In a child: runs the scenario named by BENCH_CHILD once and sends its sample. */
async function child(label: string): Promise<void> {
  const scenario = SCENARIOS.find(([name]) => name === label);
  if (!scenario) throw new Error(`no scenario ${label}`);
  const admin = new Redis(URL);
  let sample: Sample;
  try {
    sample = await scenario[2](process.env.BENCH_CHILD_PREFIX ?? 'bench-caller-child', admin);
  } finally {
    await admin.quit();
  }
  // Exits once the sample is sent: a library's leftover timers must not keep the run waiting.
  process.send?.(sample, () => process.exit(0));
}

const childLabel = process.env.BENCH_CHILD;
if (childLabel === undefined) void main();
else
  child(childLabel).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
