/**
 * What the dashboard's event counters (`celeriac_app_*`) cost it, in CPU per 1,000 events:
 * - the reader: a dashboard reads a log of task events as workers write them (sent, received,
 *   started, succeeded; some retried or failed), once handing them to `metricsHandler(app)` and once
 *   to a handler that counts nothing, in turn; this process's CPU is read around each read-through;
 * - the counting alone: `countEvent` over the same events, decoded, in a loop.
 * Usage: `npm run bench:dashboard-counters` (COUNTERS_ROUNDS=10 of COUNTERS_TASKS=10000 tasks; REDIS_URL).
 */
import { loadavg } from 'node:os';
import Redis from 'ioredis';
import { Celeriac, createDashboard, metricsHandler, type CeleriacEvent, type StoredEvent } from 'celeriac';
import { processCpuMicros } from './process-cpu';
import { deleteKeys } from './redis-stats';
import { median, percentile } from './stats';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const rounds = Number(process.env.COUNTERS_ROUNDS ?? 10);
const tasks = Number(process.env.COUNTERS_TASKS ?? 10_000);
const NAMES = ['orders.ship', 'orders.bill', 'mail.send', 'mail.digest', 'reports.build', 'images.resize'];
const QUEUES = ['default', 'mail', 'reports'];
/** Tasks per stream entry: a sender's batch of publishes, a worker's batch of settled tasks. */
const BATCH = 100;

/** The events of `count` tasks, in the entries a sender and a worker would write. */
function entriesOf(count: number, start: number): CeleriacEvent[][] {
  const entries: CeleriacEvent[][] = [];
  for (let first = 0; first < count; first += BATCH) {
    const sent: CeleriacEvent[] = [];
    const settled: CeleriacEvent[] = [];
    for (let i = first; i < Math.min(count, first + BATCH); i += 1) {
      const task = {
        taskId: `00000000-0000-4000-8000-${String(start + i).padStart(12, '0')}`,
        task: NAMES[i % NAMES.length] as string,
        queue: QUEUES[i % QUEUES.length] as string,
        timestamp: Date.now(),
        retries: 0,
      };
      sent.push({ type: 'task-sent', ...task });
      const worker = { ...task, hostname: 'bench-worker', pid: 1 };
      settled.push({ type: 'task-received', ...worker, delivery: 1 });
      settled.push({ type: 'task-started', ...worker, wait: i % 700 });
      if (i % 20 === 0) {
        const error = { name: 'Error', message: 'try again' };
        settled.push({ type: 'task-retried', ...worker, runtime: 3, error, delay: 1_000 });
        settled.push({ type: 'task-started', ...worker, retries: 1, wait: 40 });
      }
      if (i % 50 === 0)
        settled.push({ type: 'task-failed', ...worker, runtime: 9, error: { name: 'E', message: 'x' } });
      else settled.push({ type: 'task-succeeded', ...worker, runtime: i % 300 });
    }
    entries.push(sent, settled);
  }
  return entries;
}

/** A dashboard reads the log of a fresh prefix through; its CPU per 1,000 events read. */
async function readThrough(round: number, counting: boolean, admin: Redis, kept?: StoredEvent[]): Promise<number> {
  const prefix = `bench-counters-${process.pid}-${round}-${counting ? 'on' : 'off'}`;
  const app = new Celeriac({ broker: url, prefix, events: { maxLength: 1_000_000 } });
  // Made before the events are written: they count (the history before a handler does not).
  const real = counting ? metricsHandler(app) : undefined;
  const entries = entriesOf(tasks, round * tasks);
  const total = entries.reduce((sum, entry) => sum + entry.length, 0);
  for (const entry of entries) await app.backend.events!.append(entry);
  let seen = 0;
  let readAll: () => void = () => undefined;
  const all = new Promise<void>((resolve) => (readAll = resolve));
  const metrics = Object.assign((_req: unknown, res: { end(): void }) => res.end(), {
    countEvent(event: StoredEvent) {
      real?.countEvent(event);
      kept?.push(event);
      if (++seen === total) readAll();
    },
  });
  const dashboard = createDashboard(app, { metrics, history: '1h', sampleEvery: 60_000 });
  const cpu0 = processCpuMicros(process.pid) ?? Number.NaN;
  await dashboard.listen({ port: 0 });
  await all;
  const cpu1 = processCpuMicros(process.pid) ?? Number.NaN;
  await dashboard.close();
  await app.close();
  await deleteKeys(admin, `${prefix}:*`);
  return ((cpu1 - cpu0) / total) * 1_000;
}

/** `countEvent` alone over `events` (with ids after the handler's start); CPU µs per 1,000 events. */
function countingAlone(events: readonly StoredEvent[]): number {
  const app = new Celeriac({ broker: 'memory://', events: true });
  const { countEvent } = metricsHandler(app);
  const after = Date.now() + 60_000;
  const live = events.map((event, i) => ({ ...event, eventId: `${after}-0.${i}` }));
  const cpu0 = processCpuMicros(process.pid) ?? Number.NaN;
  for (const event of live) countEvent(event);
  const cpu1 = processCpuMicros(process.pid) ?? Number.NaN;
  void app.close();
  return ((cpu1 - cpu0) / live.length) * 1_000;
}

async function main(): Promise<void> {
  const admin = new Redis(url);
  const load0 = loadavg()[0] ?? 0;
  const on: number[] = [];
  const off: number[] = [];
  const alone: number[] = [];
  const events: StoredEvent[] = [];
  try {
    await readThrough(-1, true, admin, events); // warm-up, and the events for the loop
    await readThrough(-2, false, admin);
    for (let round = 0; round < rounds; round += 1) {
      const order = round % 2 === 0 ? [true, false] : [false, true];
      for (const counting of order) (counting ? on : off).push(await readThrough(round, counting, admin));
      alone.push(countingAlone(events));
    }
  } finally {
    await admin.quit();
  }
  const perRound = events.length;
  const fixed = (n: number) => n.toFixed(0);
  console.log(`${rounds} rounds of ${tasks} tasks (${perRound} events) read by a dashboard, in turn:`);
  console.log('| handler | dashboard CPU µs per 1,000 events read (median) | quartiles |');
  console.log('| --- | --- | --- |');
  console.log(`| metricsHandler(app), counting | ${fixed(median(on))} | ${quartiles(on)} |`);
  console.log(`| counting nothing | ${fixed(median(off))} | ${quartiles(off)} |`);
  console.log(`| countEvent alone, in a loop | ${fixed(median(alone))} | ${quartiles(alone)} |`);
  console.log(`Load average (1 min) ${load0.toFixed(2)} at the start, ${(loadavg()[0] ?? 0).toFixed(2)} at the end.`);
}

function quartiles(values: readonly number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `${percentile(sorted, 0.25).toFixed(0)}–${percentile(sorted, 0.75).toFixed(0)}`;
}

void main();
