/**
 * Runs every subject through the same scenarios on the same Redis, one library at a time (round
 * trips alternate between them), and prints a Markdown table. Usage: `npm run bench` (REDIS_URL overrides the Redis address;
 * BENCH_SCALE=0.2 runs a quick, smaller pass).
 */
import Redis from 'ioredis';
import { deleteKeys, totalCommands } from './redis-stats';
import { timed, type Subject } from './subject';
import { beeQueueSubject } from './subjects/bee-queue';
import { bullmqSubject } from './subjects/bullmq';
import { celeriacSubject } from './subjects/celeriac';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const scale = Number(process.env.BENCH_SCALE ?? 1);
const size = (n: number) => Math.max(100, Math.round(n * scale));

type Row = Record<string, string>;

async function measure(run: () => Promise<void>, jobs: number): Promise<string> {
  const start = process.hrtime.bigint();
  await run();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return Math.round(jobs / seconds).toLocaleString('en-US');
}

async function benchSubject(make: (prefix: string) => Subject, admin: Redis): Promise<Row> {
  const prefix = `bench-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const subject = make(prefix);
  const row: Row = { library: subject.name };
  try {
    const serial = size(3_000);
    row['enqueue, one by one'] = await measure(() => subject.enqueueSerial(serial), serial);
    const concurrent = size(20_000);
    row['enqueue, concurrent'] = await measure(() => subject.enqueueConcurrent(concurrent), concurrent);
    const bulk = size(50_000);
    row['enqueue, bulk'] = await measure(() => subject.enqueueBulk(bulk), bulk);
    // Drain what the enqueue scenarios left, so each processing run starts from an empty queue.
    await subject.processAll(serial + concurrent + bulk, 100);
    for (const concurrency of [1, 10, 100]) {
      const jobs = size(concurrency === 1 ? 5_000 : 30_000);
      await subject.enqueueBulk(jobs);
      row[`process, c=${concurrency}`] = await measure(() => subject.processAll(jobs, concurrency), jobs);
    }
    const jobs = size(30_000);
    const before = await totalCommands(admin);
    await subject.enqueueBulk(jobs);
    await subject.processAll(jobs, 100);
    const after = await totalCommands(admin);
    row['Redis cmds/job'] = ((after - before) / jobs).toFixed(2);
  } finally {
    await subject.close();
    await deleteKeys(admin, `${prefix}*`);
  }
  return row;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
}

function table(rows: Row[]): string {
  const columns = Object.keys(rows[0] ?? {});
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(columns), line(columns.map(() => '---')), ...rows.map((row) => line(columns.map((column) => row[column] ?? '')))].join('\n');
}

async function main(): Promise<void> {
  const admin = new Redis(url);
  const only = process.env.BENCH_ONLY?.split(',');
  const subjects: Array<[string, (prefix: string) => Subject]> = [
    ['celeriac', (prefix) => celeriacSubject(url, prefix)],
    ['bullmq', (prefix) => bullmqSubject(url, prefix)],
    ['bee-queue', (prefix) => beeQueueSubject(url, prefix)],
  ];
  const rows: Row[] = [];
  for (const [name, make] of subjects) {
    if (only && !only.includes(name)) continue;
    process.stderr.write(`benchmarking ${name}...\n`);
    rows.push(await benchSubject(make, admin));
  }
  const chosen = subjects.filter(([name]) => !only || only.includes(name));
  const latencies = await interleavedRoundTrips(chosen, admin);
  await admin.quit();
  for (const row of rows) Object.assign(row, latencies.get(row.library ?? ''));
  console.log(`Jobs per second (higher is better), no-op jobs, one Node process, Redis at ${url}, scale ${scale}.\n`);
  console.log(table(rows));
  const ping = latencies.get(PING);
  console.log(`\nA bare PING on one ioredis connection, timed alongside: p50 ${ping?.['round trip p50 ms']} ms, p99 ${ping?.['round trip p99 ms']} ms.`);
}

const PING = 'PING';

/**
 * Round trips (send one job, await its result) of every library, in blocks taken in turn, so that
 * a machine whose speed drifts during the run (this one does, by up to 2x) treats them alike. A bare
 * PING on the admin connection is timed in the same rotation: no job can come back faster.
 */
async function interleavedRoundTrips(subjects: Array<[string, (prefix: string) => Subject]>, admin: Redis): Promise<Map<string, Row>> {
  const samples = size(2_000);
  const block = 100;
  const prefixes = subjects.map(() => `bench-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  const started = subjects.map(([, make], index) => make(prefixes[index] as string));
  const lanes: Array<{ name: string; once(): Promise<number>; times: number[] }> = [{ name: PING, once: () => timed(() => admin.ping()), times: [] }];
  const stops: Array<() => Promise<void>> = [];
  try {
    for (const subject of started) {
      process.stderr.write(`round trips: starting ${subject.name}...\n`);
      const tripper = await subject.startRoundTrips();
      lanes.push({ name: subject.name, once: tripper.once, times: [] });
      stops.push(tripper.stop);
    }
    for (const lane of lanes) for (let i = 0; i < block; i++) await lane.once(); // warm-up, not counted
    for (let done = 0; done < samples; done += block) {
      for (const lane of lanes) for (let i = 0; i < block; i++) lane.times.push(await lane.once());
    }
  } finally {
    for (const stop of stops.splice(0)) await stop();
    for (const subject of started) await subject.close();
    for (const prefix of prefixes) await deleteKeys(admin, `${prefix}*`);
  }
  return new Map(
    lanes.map((lane) => {
      const sorted = lane.times.sort((a, b) => a - b);
      return [lane.name, { 'round trip p50 ms': percentile(sorted, 0.5).toFixed(3), 'round trip p99 ms': percentile(sorted, 0.99).toFixed(3) }];
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
