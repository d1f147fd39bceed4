/**
 * Process pools on the same Redis: Celeriac's prefork and fork pools (c=2) and inline (c=100)
 * against BullMQ's sandboxed processors (child processes and worker threads, c=2), plus the bound
 * a fresh process per task cannot beat: the start-up time of a bare `node`.
 * Usage: `npm run bench:pools` (BENCH_SCALE scales the job counts).
 */
import { execFile, execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Queue, Worker as BullWorker } from 'bullmq';
import Redis from 'ioredis';
import { deleteKeys } from './redis-stats';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const scale = Number(process.env.BENCH_SCALE ?? 1);
const size = (n: number) => Math.max(20, Math.round(n * scale));
const prefix = `bench-pools-${process.pid}`;
process.env.BENCH_PREFIX = prefix;

/**
 * Jobs/s of a Celeriac pool. `until: 'processed'` stops the clock when the worker has finished
 * every task (results stored), as BullMQ's 'completed' events do below; `'results'` when the
 * sender, in this same process, has received every result.
 */
async function celeriacPool(pool: 'prefork' | 'fork' | 'inline', concurrency: number, jobs: number, until: 'processed' | 'results' = 'processed'): Promise<number> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { app, noop } = require('./pool-app') as typeof import('./pool-app');
  const results = noop.delayMany(Array.from({ length: jobs }, (_, i) => [i] as [number]));
  await Promise.all(results.map((result) => result.sent));
  const worker = app.worker({ pool, concurrency, appModule: join(__dirname, 'pool-app.js') });
  await worker.start();
  const start = process.hrtime.bigint();
  if (until === 'results') await Promise.all(results);
  else await new Promise<void>((resolve) => {
    // Every 10 ms: a 1 ms poll took CPU from the children it measures (at most 10 ms late, <1 % of a run).
    const check = setInterval(() => worker.processed >= jobs && (clearInterval(check), resolve()), 10);
  });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  await worker.close();
  return jobs / seconds;
}

async function bullSandboxed(useWorkerThreads: boolean, jobs: number): Promise<number> {
  const connection = { host: new URL(url).hostname, port: Number(new URL(url).port || 6379), maxRetriesPerRequest: null };
  const queue = new Queue('pools', { connection, prefix });
  for (let start = 0; start < jobs; start += 1000) {
    await queue.addBulk(Array.from({ length: Math.min(1000, jobs - start) }, (_, i) => ({ name: 'noop', data: { i } })));
  }
  let done = 0;
  const begin = process.hrtime.bigint();
  const worker = new BullWorker('pools', join(__dirname, 'bullmq-processor.js'), { connection, prefix, concurrency: 2, useWorkerThreads });
  await new Promise<void>((resolve) => worker.on('completed', () => ++done === jobs && resolve()));
  const seconds = Number(process.hrtime.bigint() - begin) / 1e9;
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  return jobs / seconds;
}

/** Mean wall time of starting `node` with `args` and letting it exit. */
function startMs(args: string[]): number {
  const runs = 10;
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
      await new Promise((resolve, reject) => execFile(process.execPath, ['-e', '0'], (error) => (error ? reject(error) : resolve(undefined))));
    }
  };
  await Promise.all([lane(), lane()]);
  return total / (Number(process.hrtime.bigint() - start) / 1e9);
}

async function main(): Promise<void> {
  const rows: Array<[string, string]> = [];
  const format = (perSecond: number) => Math.round(perSecond).toLocaleString('en-US');
  const bare = startMs(['-e', '0']);
  rows.push(['bare `node -e 0` start-up', `${bare.toFixed(0)} ms → bound for a process per task at c=2: ${format((2 * 1000) / bare)} jobs/s`]);
  rows.push(['bare `node -e 0`, two at a time (what c=2 can reach on these cores)', `${format(await bareRate(size(40)))} jobs/s`]);
  const withApp = startMs(['-e', `require(${JSON.stringify(join(__dirname, 'pool-app.js'))})`]);
  rows.push(['`node` loading the app module', `${withApp.toFixed(0)} ms → bound at c=2: ${format((2 * 1000) / withApp)} jobs/s`]);
  rows.push(['celeriac fork, c=2', format(await celeriacPool('fork', 2, size(300)))]);
  rows.push(['celeriac prefork, c=2', format(await celeriacPool('prefork', 2, size(20_000)))]);
  rows.push(['celeriac prefork, c=2, results awaited by the sender in this process', format(await celeriacPool('prefork', 2, size(20_000), 'results'))]);
  rows.push(['celeriac inline, c=100', format(await celeriacPool('inline', 100, size(50_000)))]);
  rows.push(['bullmq sandboxed child processes, c=2', format(await bullSandboxed(false, size(10_000)))]);
  rows.push(['bullmq sandboxed worker threads, c=2', format(await bullSandboxed(true, size(10_000)))]);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  await (require('./pool-app') as typeof import('./pool-app')).app.close();
  const admin = new Redis(url);
  await deleteKeys(admin, `${prefix}*`);
  await admin.quit();
  console.log(`Process pools, no-op jobs, jobs per second, Redis at ${url}, scale ${scale}.\n`);
  console.log('| pool | jobs/s |\n| --- | --- |');
  for (const [name, value] of rows) console.log(`| ${name} | ${value} |`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
