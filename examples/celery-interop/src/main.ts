/**
 * Celeriac and Python Celery over one Redis. Starts a Python Celery worker (queue `py`), then:
 * TypeScript calls its tasks (`proj.add` with a keyword argument, and `proj.charge`, which raises a
 * ValueError) and revokes one before its countdown ends; a Celeriac worker (queue `ts`) runs
 * `ts.greet`, which Python calls, and answers `celery inspect ping` beside the Python worker. Stops
 * the Python worker by pid and deletes this run's keys. Needs Debian's python3-celery and python3-redis.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Celeriac, kwargs, TaskFailedError, TaskRevokedError } from 'celeriac';
import { Redis } from 'ioredis';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const PYTHON = '/usr/bin/python3';
const PYTHON_DIR = join(__dirname, '..', 'python');
const prefix = process.env.CELERIAC_EXAMPLE_PREFIX ?? `celeriac-example-celery-${randomBytes(4).toString('hex')}`;
const keyPrefix = `${prefix}:kombu:`;
const env = { ...process.env, REDIS_URL, CELERY_KEYPREFIX: keyPrefix, PYTHONDONTWRITEBYTECODE: '1' };

const app = new Celeriac({ broker: REDIS_URL, prefix, protocol: 'celery', celery: { keyPrefix }, defaultQueue: 'py' });

// Python's keyword arguments arrive as one last object.
app.task(
  'ts.greet',
  (name: string, options?: { punctuation?: string }) => `Hello, ${name}${options?.punctuation ?? '.'}`,
);

/** Runs a Python process in the example's python/ folder; resolves once a line matches `ready` (or it exits). */
function python(args: string[], ready?: RegExp): { pid: number; started: Promise<void>; exited: Promise<number> } {
  const child = spawn(PYTHON, args, { cwd: PYTHON_DIR, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
  const started = new Promise<void>((resolve, reject) => {
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        if (!ready) console.log(line);
        else if (ready.test(line)) resolve();
      });
    }
    void exited.then((code) =>
      ready ? reject(new Error(`python3 ${args.join(' ')} exited with ${code}`)) : resolve(),
    );
  });
  return { pid: child.pid ?? 0, started, exited };
}

async function main(): Promise<void> {
  console.log(`$ celery -A proj worker -Q py   (keys under ${keyPrefix})`);
  // No start-up exchange with other workers (mingle), nor following their events (gossip).
  const options = ['--pool', 'solo', '-n', 'py@%h', '--loglevel', 'INFO', '--without-mingle', '--without-gossip'];
  const worker = python(['-m', 'celery', '-A', 'proj', 'worker', '-Q', 'py', ...options], / ready\.$/);
  const ids: string[] = [];
  try {
    await worker.started;

    // TypeScript → Python.
    const sum = app.sendTask<number>('proj.add', [2, 3, kwargs({ z: 10 })]);
    ids.push(sum.id);
    console.log(`typescript: proj.add(2, 3, z=10) = ${await sum.get({ timeout: 20_000 })}`);
    const charge = app.sendTask<string>('proj.charge', [500]);
    ids.push(charge.id);
    await charge.get({ timeout: 20_000 }).catch((error: unknown) => {
      if (!(error instanceof TaskFailedError)) throw error;
      console.log(`typescript: proj.charge(500) raised ${error.remote.name}: ${error.remote.message}`);
    });

    // A revoke crosses as Celery's pidbox broadcast: the Python worker does not run the task.
    const later = app.sendTask<number>('proj.add', [1, 1], { countdown: '1s' });
    ids.push(later.id);
    await later.sent;
    await later.revoke();
    await later.get({ timeout: 20_000 }).catch((error: unknown) => {
      if (!(error instanceof TaskRevokedError)) throw error;
    });
    console.log(`typescript: proj.add(1, 1) revoked before its countdown ended: ${await later.state()}`);

    // Python → TypeScript: a Celeriac worker runs ts.greet.
    const celeriac = app.worker({ queues: ['ts'], pool: 'inline' });
    await celeriac.start();
    // Celery's remote control reaches it too: it answers `celery inspect` beside the Python worker.
    console.log('$ celery -A proj inspect ping');
    await python(['-m', 'celery', '-A', 'proj', 'inspect', 'ping', '--timeout', '2']).exited;
    console.log('$ python3 proj.py');
    const code = await python(['proj.py']).exited;
    await celeriac.close();
    if (code !== 0) throw new Error(`python3 proj.py exited with ${code}`);
  } finally {
    process.kill(worker.pid, 'SIGTERM');
    await worker.exited;
    await app.close();
    await removeKeys(ids);
  }
}

/** Deletes this run's keys: those under its prefix, and the results of the tasks it sent. */
async function removeKeys(ids: string[]): Promise<void> {
  const redis = new Redis(REDIS_URL);
  const keys = ids.map((id) => `celery-task-meta-${id}`);
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0');
  if (keys.length > 0) await redis.unlink(...keys);
  await redis.quit();
}

main().then(
  () => console.log('Both directions answered.'),
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
