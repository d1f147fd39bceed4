/**
 * Process pools on the same Redis: Celeriac's prefork and fork pools (c=2) and inline (c=100)
 * against BullMQ's sandboxed processors (child processes and worker threads, c=2), plus the bound
 * a fresh process per task cannot beat: the start-up time of a bare `node`.
 * Usage: `npm run bench:pools` (BENCH_SCALE scales the job counts, BENCH_ROUNDS the rounds: 3;
 * BENCH_ONLY=fork runs only the fork pool and its bounds).
 */
import { execFile, execFileSync } from 'node:child_process';
import os from 'node:os';
import { join } from 'node:path';
import { Queue, Worker as BullWorker } from 'bullmq';
import Redis from 'ioredis';
import { deleteKeys } from './redis-stats';
import { median } from './stats';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const scale = Number(process.env.BENCH_SCALE ?? 1);
const size = (n: number) => Math.max(20, Math.round(n * scale));
const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const prefix = `bench-pools-${process.pid}`;
const forkOnly = process.env.BENCH_ONLY === 'fork';
process.env.BENCH_PREFIX = prefix;

/**
 * Jobs/s of a Celeriac pool. `until: 'processed'` stops the clock when the worker has finished
 * every task (results stored), as BullMQ's 'completed' events do below; `'results'` when the
 * sender, in this same process, has received every result.
 */
async function celeriacPool(
  pool: 'prefork' | 'fork' | 'inline',
  concurrency: number,
  jobs: number,
  until: 'processed' | 'results' = 'processed',
): Promise<number> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { app, noop } = require('./pool-app') as typeof import('./pool-app');
  const results = noop.delayMany(Array.from({ length: jobs }, (_, i) => [i] as [number]));
  await Promise.all(results.map((result) => result.sent));
  // The clock includes starting the worker (and its children), as BullMQ's below includes its own.
  const start = process.hrtime.bigint();
  const worker = app.worker({ pool, concurrency, appModule: join(__dirname, 'pool-app.js') });
  await worker.start();
  if (until === 'results') await Promise.all(results);
  else
    await new Promise<void>((resolve) => {
      // Every 10 ms: a 1 ms poll took CPU from the children it measures (at most 10 ms late, <1 % of a run).
      const check = setInterval(() => worker.processed >= jobs && (clearInterval(check), resolve()), 10);
    });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  await worker.close();
  // Every round starts from an empty Redis, as BullMQ's obliterated queue does.
  const admin = new Redis(url);
  await deleteKeys(admin, `${prefix}*`);
  await admin.quit();
  return jobs / seconds;
}

async function bullSandboxed(useWorkerThreads: boolean, jobs: number): Promise<number> {
  const connection = {
    host: new URL(url).hostname,
    port: Number(new URL(url).port || 6379),
    maxRetriesPerRequest: null,
  };
  const queue = new Queue('pools', { connection, prefix });
  for (let start = 0; start < jobs; start += 1000) {
    await queue.addBulk(
      Array.from({ length: Math.min(1000, jobs - start) }, (_, i) => ({ name: 'noop', data: { i } })),
    );
  }
  let done = 0;
  const begin = process.hrtime.bigint();
  const worker = new BullWorker('pools', join(__dirname, 'bullmq-processor.js'), {
    connection,
    prefix,
    concurrency: 2,
    useWorkerThreads,
  });
  await new Promise<void>((resolve) => worker.on('completed', () => ++done === jobs && resolve()));
  const seconds = Number(process.hrtime.bigint() - begin) / 1e9;
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  return jobs / seconds;
}

/** Mean wall time of starting `node` with `args` and letting it exit. */
function startMs(args: string[]): number {
  const runs = 30;
  const start = process.hrtime.bigint();
  for (let i = 0; i < runs; i += 1) execFileSync(process.execPath, args);
  return Number(process.hrtime.bigint() - start) / 1e6 / runs;
}

/** Bare `node -e 0` processes per second with two running at a time, as a c=2 pool runs them. */
async function bareRate(total: number): Promise<number> {
  const start = process.hrtime.bigint();
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < total) {
      next += 1;
      await new Promise((resolve, reject) =>
        execFile(process.execPath, ['-e', '0'], (error) => (error ? reject(error) : resolve(undefined))),
      );
    }
  };
  await Promise.all([lane(), lane()]);
  return total / (Number(process.hrtime.bigint() - start) / 1e9);
}

/** One row of the table: what it measures, and how (jobs/s, or ms for the start-up rows). */
interface Measure {
  name: string;
  run(): Promise<number>;
}

/** The bare bounds next to the fork pool, so the three are measured minutes apart at most. */
const forkGroup: Measure[] = [
  { name: 'bare `node -e 0`, two at a time (what c=2 can reach on these cores)', run: () => bareRate(size(80)) },
  { name: 'celeriac fork, c=2', run: () => celeriacPool('fork', 2, size(300)) },
  {
    name: 'bare `node -e 0` start-up, ms (bound for a process per task at c=2: 2 / start-up)',
    run: async () => startMs(['-e', '0']),
  },
  {
    name: '`node` loading the app module, ms',
    run: async () => startMs(['-e', `require(${JSON.stringify(join(__dirname, 'pool-app.js'))})`]),
  },
];

/**
 * The same three without NODE_EXTRA_CA_CERTS, when the environment sets it: Node then reads the
 * certificates as every process starts, which on this machine was most of a bare start-up (47 ms
 * against 20), so a bound measured with it flatters a pool that starts processes.
 */
const extraCaCerts = process.env.NODE_EXTRA_CA_CERTS;
const WITHOUT_CA = ', without NODE_EXTRA_CA_CERTS';
function withoutExtraCaCerts(measure: Measure): Measure {
  return {
    name: `${measure.name}${WITHOUT_CA}`,
    run: async () => {
      // Children and execFile take process.env as they start: only the measure's own see the change.
      delete process.env.NODE_EXTRA_CA_CERTS;
      try {
        return await measure.run();
      } finally {
        process.env.NODE_EXTRA_CA_CERTS = extraCaCerts;
      }
    },
  };
}
const cleanForkGroup: Measure[] = extraCaCerts === undefined ? [] : forkGroup.slice(0, 3).map(withoutExtraCaCerts);

const others: Measure[] = [
  { name: 'celeriac prefork, c=2', run: () => celeriacPool('prefork', 2, size(20_000)) },
  {
    name: 'celeriac prefork, c=2, results awaited by the sender in this process',
    run: () => celeriacPool('prefork', 2, size(20_000), 'results'),
  },
  { name: 'celeriac inline, c=100', run: () => celeriacPool('inline', 100, size(50_000)) },
  { name: 'bullmq sandboxed child processes, c=2', run: () => bullSandboxed(false, size(10_000)) },
  { name: 'bullmq sandboxed worker threads, c=2', run: () => bullSandboxed(true, size(10_000)) },
];

/**
 * Runs every measure `rounds` times, in an order that rotates each round (the fork pool and its
 * bounds stay together), because this machine's speed drifts by up to 2x within a run.
 */
async function measureAll(): Promise<Map<string, number[]>> {
  const samples = new Map<string, number[]>();
  const units: Measure[][] = [
    forkGroup,
    ...(cleanForkGroup.length > 0 ? [cleanForkGroup] : []),
    ...(forkOnly ? [] : others.map((measure) => [measure])),
  ];
  for (let round = 0; round < rounds; round += 1) {
    // Spread the starting points over the units, so every unit is measured early in some round.
    const first = Math.floor((round * units.length) / rounds) % units.length;
    const order = [...units.slice(first), ...units.slice(0, first)];
    for (const measure of order.flat()) {
      process.stderr.write(`round ${round + 1}/${rounds}: ${measure.name}\n`);
      const list = samples.get(measure.name) ?? [];
      list.push(await measure.run());
      samples.set(measure.name, list);
    }
  }
  return samples;
}

async function main(): Promise<void> {
  // A run stopped with Ctrl-C or SIGTERM still deletes its keys.
  const onSignal = (signal: NodeJS.Signals) => {
    const admin = new Redis(url);
    void deleteKeys(admin, `${prefix}*`).finally(() => process.exit(128 + os.constants.signals[signal]));
  };
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  const samples = await measureAll();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  await (require('./pool-app') as typeof import('./pool-app')).app.close();
  const admin = new Redis(url);
  await deleteKeys(admin, `${prefix}*`);
  await admin.quit();
  const format = (value: number) => Math.round(value).toLocaleString('en-US');
  const rounded = (values: number[]) => values.map(format).join(' / ');
  console.log(
    `Process pools, no-op jobs, Redis at ${url}, scale ${scale}; median of ${rounds} rounds taken in turn (each ` +
      `round's value after it).\n`,
  );
  console.log('| pool | jobs/s (median) | each round |\n| --- | --- | --- |');
  for (const [name, values] of samples) console.log(`| ${name} | ${format(median(values))} | ${rounded(values)} |`);
  // Ratios within a round compare measures taken close together; across rounds they would not.
  console.log('');
  for (const [group, label] of [
    [forkGroup, ''],
    [cleanForkGroup, WITHOUT_CA],
  ] as const) {
    if (group.length === 0) continue;
    const [two, fork, bare] = group.map((measure) => samples.get(measure.name) ?? []);
    const ratios = (bound: (round: number) => number) =>
      (fork ?? []).map((rate, round) => (bound(round) / rate).toFixed(2)).join(' / ');
    console.log(`fork below two bare starts at a time${label}, per round: ${ratios((round) => two?.[round] ?? NaN)}x`);
    console.log(
      `fork below the bare bound (2 / start-up)${label}, per round: ` +
        `${ratios((round) => 2_000 / (bare?.[round] ?? NaN))}x`,
    );
  }
  if (forkOnly) return;
  const [bullChild] = others.slice(3).map((measure) => samples.get(measure.name) ?? []);
  const prefork = samples.get(others[0]?.name ?? '') ?? [];
  console.log(
    `prefork above bullmq sandboxed child processes, per round: ` +
      `${prefork.map((rate, round) => (rate / (bullChild?.[round] ?? NaN)).toFixed(2)).join(' / ')}x`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
