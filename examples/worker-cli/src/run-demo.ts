/**
 * The whole example in one command: starts `celeriac worker` (prefork pool, two children) as a child
 * process, runs the client against it, sends the worker SIGTERM and checks that it drains and exits
 * with code 0, then deletes this run's keys. Exits 0 when every step went as expected.
 * Extra arguments go to the worker: `node dist/run-demo.js --prefetch 0`; with `--autoscale 4,1`
 * the pool's size follows the load instead of `-c 2`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { openRedis, unlinkPrefix } from './redis';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';

type Exit = { code: number | null; signal: NodeJS.Signals | null };

async function main(): Promise<number> {
  const redis = await openRedis(REDIS_URL);
  if (typeof redis === 'string') {
    console.error(
      `This example needs Redis, and none answered at ${REDIS_URL} (${redis}). Start one or set REDIS_URL.`,
    );
    return 1;
  }
  const prefix = `celeriac-example-worker-cli-${randomBytes(4).toString('hex')}`;
  const env = { ...process.env, REDIS_URL, CELERIAC_EXAMPLE_PREFIX: prefix };
  const extra = process.argv.slice(2);
  // --autoscale sets the size itself (with -c as well, the worker would refuse to start).
  const size = extra.includes('--autoscale') ? [] : ['-c', '2'];
  const args = ['worker', '-A', join(__dirname, 'tasks.js'), '--pool', 'prefork', ...size, '--json-logs', ...extra];
  console.log(`$ celeriac ${args.join(' ')}   (keys under ${prefix}:)`);
  const worker = spawn(process.execPath, [celeriacBin(), ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const workerExit = exitOf(worker);
  try {
    await withTimeout(workerReady(worker, workerExit), 20_000, 'the worker to log that it is ready');

    console.log('$ node dist/client.js');
    const client = spawn(process.execPath, [join(__dirname, 'client.js')], {
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    prefixLines(client, 'client |');
    const clientExit = await withTimeout(exitOf(client), 60_000, 'the client to finish');
    if (clientExit.code !== 0) throw new Error(`The client exited with ${JSON.stringify(clientExit)}`);

    console.log(`$ kill -TERM ${worker.pid}`);
    worker.kill('SIGTERM');
    const exit = await withTimeout(workerExit, 40_000, 'the worker to drain and exit');
    if (exit.code !== 0) throw new Error(`The worker exited with ${JSON.stringify(exit)}, expected code 0`);
    console.log('The worker exited with code 0 after SIGTERM.');
    return 0;
  } catch (error) {
    console.error(`Demo failed: ${(error as Error).message}`);
    return 1;
  } finally {
    if (worker.exitCode === null && worker.signalCode === null) {
      worker.kill('SIGKILL'); // its pool children follow it: they exit when their parent goes
      await workerExit;
    }
    console.log(`Cleaned up: unlinked ${await unlinkPrefix(redis, prefix)} key(s) under ${prefix}:`);
    await redis.quit();
  }
}

/** The `celeriac` command's script, found through the package's own `bin` entry. */
function celeriacBin(): string {
  const manifest = require.resolve('celeriac/package.json');
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: { celeriac: string } };
  return join(dirname(manifest), bin.celeriac);
}

/** Prints the worker's JSON log lines as `worker | message`; resolves once it logged that it is ready. */
function workerReady(worker: ChildProcess, exited: Promise<Exit>): Promise<void> {
  return new Promise((resolve, reject) => {
    createInterface({ input: worker.stdout! }).on('line', (text) => {
      let line: { msg?: string; error?: { name?: string } } | undefined;
      try {
        line = JSON.parse(text) as typeof line;
      } catch {
        // Not a log line (a pool child's own output): shown as is.
      }
      const error = line?.error?.name ? ` (${line.error.name})` : '';
      console.log(`worker | ${line?.msg ?? text}${error}`);
      if (line?.msg?.endsWith(' ready')) resolve();
    });
    void exited.then((exit) => reject(new Error(`The worker exited before it was ready: ${JSON.stringify(exit)}`)));
  });
}

function prefixLines(child: ChildProcess, tag: string): void {
  createInterface({ input: child.stdout! }).on('line', (text) => console.log(`${tag} ${text}`));
}

function exitOf(child: ChildProcess): Promise<Exit> {
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Gave up waiting ${ms / 1000} s for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

void main().then((code) => {
  process.exitCode = code;
});
