/**
 * The whole example in one command: starts `celeriac worker`, sends a task that succeeds and one
 * that fails, then runs the operator's commands against them and prints what each printed:
 * `celeriac events` (the life of both tasks), `celeriac failed list|show|retry`, and scrapes the
 * worker's Prometheus metrics and the app-level ones. Deletes this run's keys at the end; exits 0
 * when every step went as expected.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { Redis } from 'ioredis';
import { collectMetrics } from 'celeriac';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const PREFIX = process.env.CELERIAC_EXAMPLE_PREFIX ?? `celeriac-example-operations-${randomBytes(4).toString('hex')}`;
// tasks.js reads these, in this process and in the commands it starts.
process.env.CELERIAC_EXAMPLE_PREFIX = PREFIX;
process.env.REDIS_URL = REDIS_URL;
const TASKS = join(__dirname, 'tasks.js');

async function main(): Promise<number> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
  } catch (error) {
    console.error(
      `This example needs Redis, and none answered at ${REDIS_URL} (${(error as Error).message}). Start one or set ` +
        `REDIS_URL.`,
    );
    return 1;
  }
  // Loaded after the environment above is set: the app reads its prefix from it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded after the environment is set
  const { app, add, ship, stockKey } = require('./tasks') as typeof import('./tasks');
  console.log(`$ celeriac worker -A dist/tasks.js --metrics-port 0   (keys under ${PREFIX}:)`);
  const worker = spawn(process.execPath, [celeriacBin(), 'worker', '-A', TASKS, '--metrics-port', '0', '--json-logs'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const metricsUrl = await workerReady(worker);
    const sum = add.delay(2, 3);
    console.log(`math.add(2, 3) = ${await sum}`);
    const order = ship.delay('A-1001', 'teapot');
    await order.catch((error: unknown) =>
      console.log(`orders.ship failed after its retry: ${(error as Error).message}`),
    );

    console.log(
      await cli(
        'events',
        '--since',
        '1m',
        '--type',
        'task-sent,task-started,task-retried,task-failed,task-succeeded',
        '--no-follow',
      ),
    );
    console.log(await cli('failed', 'list'));
    console.log(await cli('failed', 'show', order.id));
    await redis.set(stockKey('teapot'), '1');
    console.log(`(the teapot is back in stock: ${stockKey('teapot')} = 1)`);
    console.log(await cli('failed', 'retry', order.id));
    console.log(`orders.ship after the retry: ${await app.result<string>(order.id).get({ timeout: 20_000 })}`);
    console.log(await cli('failed', 'list'));
    // What Prometheus would scrape: the worker's own counters, then the app-level gauges (the
    // dashboard serves those at /metrics; collectMetrics(app) is the same text).
    console.log(`$ curl ${metricsUrl}   (the celeriac_tasks_total and celeriac_task_retries_total lines)`);
    const scraped = await (await fetch(metricsUrl)).text();
    console.log(celeriacLines(scraped, /^celeriac_(tasks_total|task_retries_total)\{/));
    console.log('collectMetrics(app)   (the default queue)');
    console.log(celeriacLines(await collectMetrics(app), /^celeriac_(queue_tasks|queue_paused)\{queue="default"/));
    return 0;
  } catch (error) {
    console.error(`Demo failed: ${(error as Error).message}`);
    return 1;
  } finally {
    worker.kill('SIGTERM');
    await new Promise((resolve) => worker.once('exit', resolve));
    await app.close();
    let removed = 0;
    for await (const keys of redis.scanStream({ match: `${PREFIX}:*`, count: 1_000 }) as AsyncIterable<string[]>) {
      if (keys.length > 0) removed += await redis.unlink(...keys);
    }
    console.log(`Cleaned up: unlinked ${removed} key(s) under ${PREFIX}:`);
    await redis.quit();
  }
}

/**
 * Runs `celeriac <args> -A dist/tasks.js` to its end and returns the command line and its output; throws unless it
 * exits 0.
 */
function cli(...args: string[]): Promise<string> {
  const child = spawn(process.execPath, [celeriacBin(), ...args, '-A', TASKS], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.once('close', (code) =>
      code === 0
        ? resolve(`$ celeriac ${args.join(' ')} -A dist/tasks.js\n${output.trimEnd()}\n`)
        : reject(new Error(`celeriac ${args.join(' ')} exited with ${code}: ${output}`)),
    ),
  );
}

/** The `celeriac` command's script, found through the package's own `bin` entry. */
function celeriacBin(): string {
  const manifest = require.resolve('celeriac/package.json');
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: { celeriac: string } };
  return join(dirname(manifest), bin.celeriac);
}

/** The lines of a scrape that match, sorted. */
function celeriacLines(text: string, match: RegExp): string {
  return text
    .split('\n')
    .filter((line) => match.test(line))
    .sort()
    .join('\n');
}

/** Resolves once the worker logged that it is ready, with the URL of its metrics endpoint. */
function workerReady(worker: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    createInterface({ input: worker.stdout! }).on('line', (text) => {
      if (text.includes(' ready"')) resolve((JSON.parse(text) as { metrics: string }).metrics);
    });
    worker.once('exit', (code) => reject(new Error(`The worker exited (code ${code}) before it was ready`)));
  });
}

void main().then((code) => {
  process.exitCode = code;
});
