/**
 * What the event log costs a worker: two apps in this process, one with events off and one on, work
 * off blocks of no-op tasks at c=100 in turn (in-process inline workers), and the CPU time of this
 * process and of Redis is read around each block. Taking turns block by block cancels most of the
 * machine's drift; the median of the per-block ratios is the figure.
 * Usage: `npm run bench:events` (EVENTS_BLOCKS=30 blocks of EVENTS_BLOCK=2000 tasks each; REDIS_URL).
 */
import { loadavg } from 'node:os';
import Redis from 'ioredis';
import { Celeriac } from 'celeriac';
import { processCpuMicros, redisCpuMicros } from './process-cpu';
import { deleteKeys } from './redis-stats';
import { median, percentile } from './stats';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const block = Number(process.env.EVENTS_BLOCK ?? 2_000);
const blocks = Number(process.env.EVENTS_BLOCKS ?? 30);

/** One app under test, and what each of its blocks cost per task. */
interface Lane {
  events: boolean;
  prefix: string;
  app: Celeriac;
  send(n: number): Promise<void>;
  done(n: number): Promise<void>;
  cpu: number[];
  redis: number[];
  jobsPerSecond: number[];
}

function lane(events: boolean): Lane {
  const prefix = `bench-events-${events ? 'on' : 'off'}-${process.pid}`;
  const app = new Celeriac({ broker: url, prefix, events });
  let left = 0;
  let finished: () => void = () => undefined;
  const noop = app.task('bench.noop', (i: number) => i, { onSuccess: () => (--left === 0 ? finished() : undefined) });
  return {
    events,
    prefix,
    app,
    async send(n) {
      await Promise.all(noop.delayMany(Array.from({ length: n }, (_, i) => [i] as [number])).map((r) => r.sent));
    },
    done(n) {
      left = n;
      return new Promise((resolve) => (finished = resolve));
    },
    cpu: [],
    redis: [],
    jobsPerSecond: [],
  };
}

/** Enqueues a block (untimed), then times a worker working it off. */
async function runBlock(subject: Lane, admin: Redis, record: boolean): Promise<void> {
  await subject.send(block);
  const done = subject.done(block);
  const cpu0 = processCpuMicros(process.pid) ?? Number.NaN;
  const redis0 = await redisCpuMicros(admin);
  const start = performance.now();
  const worker = subject.app.worker({ concurrency: 100 });
  await worker.start();
  await done;
  const ms = performance.now() - start;
  const cpu1 = processCpuMicros(process.pid) ?? Number.NaN;
  const redis1 = await redisCpuMicros(admin);
  await worker.close();
  if (!record) return;
  subject.cpu.push((cpu1 - cpu0) / block);
  subject.redis.push((redis1 - redis0) / block);
  subject.jobsPerSecond.push(block / (ms / 1_000));
}

async function main(): Promise<void> {
  const admin = new Redis(url);
  const lanes = [lane(false), lane(true)];
  const [off, on] = lanes as [Lane, Lane];
  const load0 = loadavg()[0] ?? 0;
  try {
    for (const subject of lanes) await runBlock(subject, admin, false); // warm-up
    for (let i = 0; i < blocks; i += 1) {
      for (const subject of i % 2 === 0 ? lanes : [...lanes].reverse()) await runBlock(subject, admin, true);
    }
  } finally {
    for (const subject of lanes) {
      await subject.app.close();
      await deleteKeys(admin, `${subject.prefix}:*`);
    }
    await admin.quit();
  }
  const ratios = on.cpu.map((cpu, i) => cpu / (off.cpu[i] ?? Number.NaN));
  const fixed = (n: number) => n.toFixed(1);
  console.log(`${blocks} blocks of ${block} no-op tasks at c=100 each, events off and on in turn.`);
  console.log('| events | process CPU µs/task | Redis CPU µs/task | jobs/s |');
  console.log('| --- | --- | --- | --- |');
  for (const subject of lanes) {
    const cells = [fixed(median(subject.cpu)), fixed(median(subject.redis)), Math.round(median(subject.jobsPerSecond))];
    console.log(`| ${subject.events ? 'on' : 'off'} | ${cells.join(' | ')} |`);
  }
  console.log(
    `on/off, median of the per-block ratios: process CPU ${median(ratios).toFixed(3)}; ` +
      `quartiles ${quartiles(ratios)}.`,
  );
  console.log(`Load average (1 min) ${load0.toFixed(2)} at the start, ${(loadavg()[0] ?? 0).toFixed(2)} at the end.`);
}

function quartiles(values: readonly number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `${percentile(sorted, 0.25).toFixed(3)}–${percentile(sorted, 0.75).toFixed(3)}`;
}

void main();
