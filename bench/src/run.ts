/**
 * Runs every subject through the same scenarios on the same Redis and prints a Markdown table.
 * The libraries take turns scenario by scenario, and every scenario is run `BENCH_ROUNDS` times
 * (default 3; the table shows the median), because this machine's speed drifts by up to 2x within
 * one run: libraries measured minutes apart are not comparable, libraries measured in turn are.
 * Usage: `npm run bench` (REDIS_URL overrides the Redis address; BENCH_SCALE=0.2 runs a quick,
 * smaller pass; BENCH_ONLY=celeriac,bullmq picks libraries; BENCH_PARTS=latency runs only some of
 * throughput, commands and latency).
 */
import os from 'node:os';
import Redis from 'ioredis';
import { processCpuMicros, redisCpuMicros } from './process-cpu';
import { startProtocolFloor } from './protocol-floor';
import { deleteKeys, totalCommands } from './redis-stats';
import { median, percentile } from './stats';
import { timed, type Placement, type Subject } from './subject';
import { beeQueueSubject } from './subjects/bee-queue';
import { bullmqSubject } from './subjects/bullmq';
import { celeriacSubject } from './subjects/celeriac';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const scale = Number(process.env.BENCH_SCALE ?? 1);
const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const parts = (process.env.BENCH_PARTS ?? 'throughput,commands,latency').split(',');
const size = (n: number) => Math.max(100, Math.round(n * scale));

type Row = Record<string, string>;

/** One column of the table: how many jobs it times, and what it does with them. */
interface Scenario {
  column: string;
  jobs: number;
  /** Untimed set-up (enqueueing the jobs a processing scenario then works off). */
  prepare?(subject: Subject): Promise<void>;
  run(subject: Subject): Promise<void>;
  /** Untimed clean-up (working off what an enqueue scenario left). */
  finish?(subject: Subject): Promise<void>;
}

function scenarios(): Scenario[] {
  const drain = (jobs: number) => (subject: Subject) => subject.processAll(jobs, 100);
  const serial = size(2_000);
  const concurrent = size(10_000);
  const bulk = size(30_000);
  const list: Scenario[] = [
    {
      column: 'enqueue, one by one',
      jobs: serial,
      run: (subject) => subject.enqueueSerial(serial),
      finish: drain(serial),
    },
    {
      column: 'enqueue, concurrent',
      jobs: concurrent,
      run: (subject) => subject.enqueueConcurrent(concurrent),
      finish: drain(concurrent),
    },
    { column: 'enqueue, bulk', jobs: bulk, run: (subject) => subject.enqueueBulk(bulk), finish: drain(bulk) },
  ];
  for (const concurrency of [1, 10, 100]) {
    const jobs = size(concurrency === 1 ? 3_000 : 20_000);
    list.push({
      column: `process, c=${concurrency}`,
      jobs,
      prepare: (subject) => subject.enqueueBulk(jobs),
      run: (subject) => subject.processAll(jobs, concurrency),
    });
  }
  return list;
}

/** Runs the scenarios in turn over the subjects, `rounds` times; returns jobs/s samples per subject and column. */
async function throughput(subjects: Subject[]): Promise<Map<string, Map<string, number[]>>> {
  const samples = new Map(subjects.map((subject) => [subject.name, new Map<string, number[]>()]));
  for (let round = 1; round <= rounds; round += 1) {
    for (const scenario of scenarios()) {
      for (const subject of subjects) {
        process.stderr.write(`round ${round}/${rounds}: ${scenario.column}, ${subject.name}\n`);
        await scenario.prepare?.(subject);
        const ms = await timed(() => scenario.run(subject));
        await scenario.finish?.(subject);
        const column = samples.get(subject.name) as Map<string, number[]>;
        column.set(scenario.column, [...(column.get(scenario.column) ?? []), scenario.jobs / (ms / 1000)]);
      }
    }
  }
  return samples;
}

/** Redis commands per job (INFO commandstats, which counts the commands inside Lua scripts too). */
async function commandsPerJob(subject: Subject, admin: Redis): Promise<string> {
  const jobs = size(20_000);
  const before = await totalCommands(admin);
  await subject.enqueueBulk(jobs);
  await subject.processAll(jobs, 100);
  const after = await totalCommands(admin);
  return ((after - before) / jobs).toFixed(2);
}

const PING = 'PING';
/** The lane of Celeriac's Redis commands sent by minimal code (see protocol-floor.ts). */
const FLOOR = 'celeriac protocol, minimal code';

/** CPU time (µs) used by the parties of one lane's timed round trips, and how many there were. */
interface CpuTally {
  trips: number;
  caller: number;
  worker: number;
  redis: number;
}

/** One lane of the round-trip rotation: how it sends a job, its times and its CPU tally. */
interface Lane {
  name: string;
  once(): Promise<number>;
  times: number[];
  cpu: CpuTally;
  /** Its worker's process id when the worker runs apart. */
  workerPid?: number | undefined;
}

/** A lane with nothing measured yet. */
function newLane(name: string, once: () => Promise<number>, workerPid?: number): Lane {
  return { name, once, times: [], cpu: { trips: 0, caller: 0, worker: 0, redis: 0 }, workerPid };
}

/** The CPU readings a tally is kept from: this process, the lane's worker process (if apart), Redis. */
type CpuReading = [caller: number | undefined, worker: number | undefined, redis: number];

/**
 * Reads the CPU times at the `start` or `end` of a block. Redis is read first at the start and last
 * at the end, so the INFO calls' own CPU in this process stays outside the span; Redis counts one
 * INFO per block (under 1 µs per round trip).
 */
async function cpuAt(edge: 'start' | 'end', admin: Redis, workerPid: number | undefined): Promise<CpuReading> {
  const redisAtStart = edge === 'start' ? await redisCpuMicros(admin) : undefined;
  const caller = processCpuMicros(process.pid);
  const worker = workerPid === undefined ? undefined : processCpuMicros(workerPid);
  return [caller, worker, redisAtStart ?? (await redisCpuMicros(admin))];
}

/**
 * Round trips (send one job, await its result) of every library, in blocks taken in turn, with a
 * bare PING on the admin connection timed in the same rotation: no job can come back faster. The
 * workers run in this process (`here`) or each in a process of its own (`apart`). The CPU time each
 * party spends on the timed blocks is tallied too: on two cores, three busy processes (caller,
 * worker, Redis) wait for each other, so a round trip costs about what their CPU adds up to. With
 * `floorPrefix` (worker here only), Celeriac's protocol from minimal code runs in the rotation too.
 */
async function roundTrips(
  subjects: Subject[],
  admin: Redis,
  where: Placement,
  floorPrefix?: string,
): Promise<{ rows: Map<string, Row>; cpu: Map<string, CpuTally> }> {
  const label = where === 'here' ? 'round trip' : 'round trip, worker apart,';
  const samples = size(2_000);
  const warmUp = size(3_000);
  const block = 100;
  const lanes: Lane[] = [newLane(PING, () => timed(() => admin.ping()))];
  const stops: Array<() => Promise<void>> = [];
  try {
    if (floorPrefix !== undefined) {
      const floor = await startProtocolFloor(url, floorPrefix);
      stops.push(floor.stop);
      lanes.push(newLane(FLOOR, floor.once));
    }
    for (const subject of subjects) {
      process.stderr.write(`round trips (worker ${where}): starting ${subject.name}\n`);
      const tripper = await subject.startRoundTrips(where);
      stops.push(tripper.stop);
      lanes.push(newLane(subject.name, tripper.once, tripper.workerPid));
    }
    // Warm-up, not counted, in the same rotation: a library's first few thousand jobs run while V8
    // still compiles its code (on the same two cores), and a long-running worker is past that.
    for (let done = 0; done < warmUp; done += block) {
      for (const lane of lanes) for (let i = 0; i < block; i++) await lane.once();
    }
    for (let done = 0; done < samples; done += block) {
      for (const lane of lanes) {
        const [caller0, worker0, redis0] = await cpuAt('start', admin, lane.workerPid);
        for (let i = 0; i < block; i++) lane.times.push(await lane.once());
        const [caller1, worker1, redis1] = await cpuAt('end', admin, lane.workerPid);
        lane.cpu.trips += block;
        lane.cpu.caller += (caller1 ?? Number.NaN) - (caller0 ?? Number.NaN);
        lane.cpu.worker += (worker1 ?? Number.NaN) - (worker0 ?? Number.NaN);
        lane.cpu.redis += redis1 - redis0;
      }
    }
  } finally {
    for (const stop of stops) await stop();
  }
  const rows = new Map(
    lanes.map((lane) => {
      const sorted = lane.times.sort((a, b) => a - b);
      return [
        lane.name,
        {
          [`${label} p50 ms`]: percentile(sorted, 0.5).toFixed(3),
          [`${label} p99 ms`]: percentile(sorted, 0.99).toFixed(3),
        },
      ];
    }),
  );
  return { rows, cpu: new Map(lanes.map((lane) => [lane.name, lane.cpu])) };
}

/** The CPU table: µs per round trip of each party, in both placements. */
function cpuTable(here: Map<string, CpuTally>, apart: Map<string, CpuTally>): string {
  const perTrip = (tally: CpuTally | undefined, micros: (tally: CpuTally) => number) => {
    const value = tally && tally.trips > 0 ? micros(tally) / tally.trips : Number.NaN;
    return Number.isFinite(value) ? Math.round(value).toString() : '';
  };
  const rows: Row[] = [...here.keys()].map((name) => {
    const inProcess = here.get(name);
    const separate = name === PING ? undefined : apart.get(name);
    return {
      library: name === PING ? 'bare PING' : name,
      'worker here: process': perTrip(inProcess, (tally) => tally.caller),
      'worker here: Redis': perTrip(inProcess, (tally) => tally.redis),
      'worker apart: caller': perTrip(separate, (tally) => tally.caller),
      'worker apart: worker': perTrip(separate, (tally) => tally.worker),
      'worker apart: Redis': perTrip(separate, (tally) => tally.redis),
      'worker apart: all three': perTrip(separate, (tally) => tally.caller + tally.worker + tally.redis),
    };
  });
  return table(rows);
}

function table(rows: Row[]): string {
  const columns = Object.keys(rows[0] ?? {});
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    line(columns),
    line(columns.map(() => '---')),
    ...rows.map((row) => line(columns.map((column) => row[column] ?? ''))),
  ].join('\n');
}

async function main(): Promise<void> {
  const admin = new Redis(url);
  const only = process.env.BENCH_ONLY?.split(',');
  const makers: Array<[string, (prefix: string) => Subject]> = [
    ['celeriac', (prefix) => celeriacSubject(url, prefix)],
    ['bullmq', (prefix) => bullmqSubject(url, prefix)],
    ['bee-queue', (prefix) => beeQueueSubject(url, prefix)],
  ];
  const prefixes: string[] = [];
  // A run stopped with Ctrl-C or SIGTERM still deletes its keys (hundreds of thousands of them,
  // which would slow every SCAN on this Redis, the test suite's clean-ups included).
  const onSignal = (signal: NodeJS.Signals) => {
    // Twice: a job in flight during the first pass may write a key behind it.
    const clean = () => Promise.all(prefixes.map((prefix) => deleteKeys(admin, `${prefix}*`)));
    void clean()
      .then(clean)
      .finally(() => process.exit(128 + os.constants.signals[signal]));
  };
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  const subjects = makers
    .filter(([name]) => !only || only.includes(name))
    .map(([, make]) => {
      const prefix = `bench-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
      prefixes.push(prefix);
      return make(prefix);
    });
  try {
    const samples = parts.includes('throughput')
      ? await throughput(subjects)
      : new Map<string, Map<string, number[]>>();
    const commands = new Map<string, string>();
    if (parts.includes('commands'))
      for (const subject of subjects) commands.set(subject.name, await commandsPerJob(subject, admin));
    // Celeriac's protocol from minimal code, as a reference next to Celeriac itself.
    const floorPrefix = subjects.some((subject) => subject.name === 'celeriac')
      ? `bench-${process.pid}-floor`
      : undefined;
    if (floorPrefix !== undefined) prefixes.push(floorPrefix);
    const here = parts.includes('latency') ? await roundTrips(subjects, admin, 'here', floorPrefix) : undefined;
    const separate = parts.includes('latency') ? await roundTrips(subjects, admin, 'apart') : undefined;
    const latencies = here?.rows ?? new Map<string, Row>();
    const apart = separate?.rows ?? new Map<string, Row>();
    const rows: Row[] = subjects.map((subject) => {
      const row: Row = { library: subject.name };
      for (const [column, values] of samples.get(subject.name) ?? [])
        row[column] = Math.round(median(values)).toLocaleString('en-US');
      row['Redis cmds/job'] = commands.get(subject.name) ?? '';
      return Object.assign(row, latencies.get(subject.name), apart.get(subject.name));
    });
    console.log(
      `Jobs per second (higher is better), no-op jobs, one Node process, Redis at ${url}, scale ${scale}, median of ` +
        `${rounds} rounds taken in turn.\n`,
    );
    console.log(table(rows));
    const ping = latencies.get(PING);
    if (ping)
      console.log(
        `\nA bare PING on one ioredis connection, timed in the same rotation: p50 ${ping['round trip p50 ms']} ms, ` +
          `p99 ${ping['round trip p99 ms']} ms.`,
      );
    const floor = latencies.get(FLOOR);
    if (floor)
      console.log(
        `Celeriac's Redis commands sent by minimal code (no library layers), worker here, same rotation: p50 ` +
          `${floor['round trip p50 ms']} ms, p99 ${floor['round trip p99 ms']} ms.`,
      );
    if (here && separate) {
      console.log(
        '\nCPU time per round trip, µs (each process with all its threads; Redis from INFO cpu), over the timed ' +
          'round trips:\n',
      );
      console.log(cpuTable(here.cpu, separate.cpu));
    }
  } finally {
    for (const subject of subjects) await subject.close();
    for (const prefix of prefixes) await deleteKeys(admin, `${prefix}*`);
    await admin.quit();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
