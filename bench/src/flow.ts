/**
 * What flow control costs per task: the same no-op task with no limits, with a concurrency limit,
 * with a rate limit, unique (every call's arguments differ), and with both limits per key, each limit
 * set far above what the run reaches, so it is checked on every task and never holds one. Jobs go one at a time (send, await the result) through
 * an in-process worker at c=1, so every job takes the same Redis steps (no batching) and the command
 * count is exact. Scenarios take turns round by round; the table shows medians.
 *
 *   npm run bench:flow               BENCH_SCALE=0.2 for a quick pass, BENCH_ROUNDS=5 for more rounds
 */
import { Celeriac, type TaskOptions } from 'celeriac';
import Redis from 'ioredis';
import { redisCpuMicros } from './process-cpu';
import { deleteKeys, totalCommands } from './redis-stats';
import { median } from './stats';

const URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const JOBS = Math.max(100, Math.round(2_000 * SCALE));
const WARM_UP = Math.max(100, Math.round(500 * SCALE));

const SCENARIOS: ReadonlyArray<[string, TaskOptions]> = [
  ['no limits', {}],
  ['concurrency: 1000', { concurrency: 1_000 }],
  ["rateLimit: '1000000/s'", { rateLimit: '1000000/s' }],
  ['unique: true', { unique: true }],
  [
    'both, keyed',
    {
      concurrency: { limit: 1_000, key: (n: number) => String(n % 10) },
      rateLimit: { limit: 1_000_000, per: '1s', key: (n: number) => String(n % 10) },
    },
  ],
];

interface Sample {
  ms: number;
  commands: number;
  redisMicros: number;
}

async function measure(admin: Redis, options: TaskOptions, label: string): Promise<Sample> {
  const prefix = `bench-flow-${process.pid}-${label.replace(/\W+/g, '')}`;
  const app = new Celeriac({ broker: URL, prefix });
  const noop = app.task('bench.flow', (n: number) => n, options);
  const worker = app.worker({ concurrency: 1, pool: 'inline' });
  await worker.start();
  try {
    for (let i = 0; i < WARM_UP; i += 1) await noop.delay(i);
    const [commands, cpu, start] = [await totalCommands(admin), await redisCpuMicros(admin), process.hrtime.bigint()];
    for (let i = 0; i < JOBS; i += 1) await noop.delay(i);
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    // The INFO calls themselves are two commands each side: not the job's.
    const used = (await totalCommands(admin)) - commands - 2;
    return { ms: ms / JOBS, commands: used / JOBS, redisMicros: ((await redisCpuMicros(admin)) - cpu) / JOBS };
  } finally {
    await worker.close();
    await app.close();
    await deleteKeys(admin, `${prefix}*`);
  }
}

async function main(): Promise<void> {
  const admin = new Redis(URL);
  const samples = new Map<string, Sample[]>(SCENARIOS.map(([label]) => [label, []]));
  for (let round = 0; round < ROUNDS; round += 1) {
    // Rotate the order each round, so no scenario always runs first on a warming machine.
    for (let k = 0; k < SCENARIOS.length; k += 1) {
      const [label, options] = SCENARIOS[(round + k) % SCENARIOS.length]!;
      console.error(`round ${round + 1}/${ROUNDS}: ${label}`);
      samples.get(label)!.push(await measure(admin, options, label));
    }
  }
  await admin.quit();
  console.log(`Flow control, ${JOBS} no-op jobs one at a time per round, worker here at c=1, median of ${ROUNDS}.\n`);
  console.log('| limits | ms per job | Redis commands per job | Redis CPU µs per job |');
  console.log('| --- | --- | --- | --- |');
  for (const [label, list] of samples) {
    const at = (pick: (sample: Sample) => number) => median(list.map(pick));
    console.log(
      `| ${label} | ${at((s) => s.ms).toFixed(3)} | ${at((s) => s.commands).toFixed(2)} | ${at((s) => s.redisMicros).toFixed(0)} |`,
    );
  }
}

void main();
