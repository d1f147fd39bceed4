/**
 * Runs the Python side of the Celery interop tests: real Celery workers (`/usr/bin/python3 -m celery
 * worker`, Debian's python3-celery) on the test's own kombu key prefix and queue, stopped by pid, and
 * Python callers (`fixtures/celery/call.py`) that report the id of the task they sent and its outcome.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Celeriac, type CeleriacOptions } from 'celeriac';
import { CELERY_REDIS_URL } from '@celeriac/test-support';

/** The Python that has Debian's Celery (another python3 may come first on PATH). */
const PYTHON = '/usr/bin/python3';
const FIXTURES = join(__dirname, '../fixtures/celery');

/** Where the Python side connects: the test's kombu key prefix and queue. */
export interface CelerySide {
  readonly keyPrefix: string;
  readonly queue: string;
  /** kombu's visibility_timeout, in seconds. */
  readonly visibility?: number;
  /** Python workers listen on Celery's pidbox (for revoke). */
  readonly remoteControl?: boolean;
  /** The broker, when not Redis: an amqp:// URL (results stay in Redis). */
  readonly broker?: string;
  /** The Python side's result backend, when not the Redis one: `rpc://` (results as messages). */
  readonly backend?: string;
}

function environment(side: CelerySide): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PROJ_BROKER: side.broker ?? CELERY_REDIS_URL,
    PROJ_BACKEND: side.backend ?? CELERY_REDIS_URL,
    CELERY_KEYPREFIX: side.keyPrefix,
    CELERY_QUEUE: side.queue,
    CELERY_VISIBILITY: String(side.visibility ?? 3600),
    CELERY_REMOTE_CONTROL: side.remoteControl ? '1' : '0',
    PYTHONDONTWRITEBYTECODE: '1',
  };
}

/** A running Python Celery worker. */
export class PythonWorker {
  readonly child: ChildProcess;
  readonly log: string[] = [];
  readonly exited: Promise<unknown>;
  private readonly listeners = new Set<(line: string) => void>();

  constructor(side: CelerySide, pool: 'solo' | 'prefork' = 'solo') {
    const args = ['-m', 'celery', '-A', 'proj_tasks', 'worker', '--pool', pool, '--concurrency', '1'];
    args.push('-Q', side.queue, '-n', `${side.queue}@%h`, '--without-gossip', '--without-mingle');
    args.push('--without-heartbeat', '--loglevel', 'INFO');
    this.child = spawn(PYTHON, args, { cwd: FIXTURES, env: environment(side), stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [this.child.stdout!, this.child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => {
        this.log.push(line);
        for (const listener of this.listeners) listener(line);
      });
    }
    this.exited = new Promise((resolve) => this.child.once('exit', resolve));
  }

  /** Resolves with the first log line (past or future) that matches. */
  waitFor(pattern: RegExp): Promise<string> {
    const seen = this.log.find((line) => pattern.test(line));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const listener = (line: string) => {
        if (!pattern.test(line)) return;
        this.listeners.delete(listener);
        resolve(line);
      };
      this.listeners.add(listener);
      void this.exited.then(() => {
        if (this.listeners.delete(listener)) reject(new Error(`The Celery worker exited:\n${this.log.join('\n')}`));
      });
    });
  }

  /** Resolves once the worker consumes. */
  ready(): Promise<string> {
    return this.waitFor(/ ready\.$/);
  }

  /** Kills the worker by pid (its pool children too, for prefork) and waits for it to exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    await this.exited;
  }
}

/** What events.py prints for one Celery event: the event, and what Celery's State made of it. */
export interface SeenEvent {
  readonly event: { type: string; hostname: string; uuid?: string; [field: string]: unknown };
  /** For a task event: the task's state, name and worker in Celery's State afterwards. */
  readonly task_state?: string;
  readonly task_name?: string | null;
  readonly task_worker?: string | null;
  /** For a worker event: whether State counts the worker alive. */
  readonly worker_alive?: boolean;
}

/** A Python receiver of Celery events (`app.events.Receiver`, as Flower uses), stopped by pid. */
export class PythonEventReceiver {
  readonly child: ChildProcess;
  readonly seen: SeenEvent[] = [];
  readonly ready: Promise<void>;
  private readonly listeners = new Set<() => void>();
  private readonly stderr: string[] = [];
  private readonly exited: Promise<unknown>;

  constructor(side: CelerySide) {
    this.child = spawn(PYTHON, ['events.py'], {
      cwd: FIXTURES,
      env: environment(side),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.exited = new Promise((resolve) => this.child.once('exit', resolve));
    createInterface({ input: this.child.stderr! }).on('line', (line) => this.stderr.push(line));
    let listening: () => void = () => undefined;
    this.ready = new Promise((resolve) => (listening = resolve));
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      const parsed = JSON.parse(line) as SeenEvent | { ready: true };
      if ('ready' in parsed) listening();
      else this.seen.push(parsed);
      for (const listener of this.listeners) listener();
    });
  }

  /** Resolves with the first event (past or future) that matches. */
  waitFor(match: (seen: SeenEvent) => boolean, what: string): Promise<SeenEvent> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.seen.find(match);
        if (!found) return;
        this.listeners.delete(check);
        resolve(found);
      };
      this.listeners.add(check);
      check();
      void this.exited.then(() => {
        if (this.listeners.delete(check))
          reject(new Error(`events.py exited before ${what}: ${this.stderr.join('\n')}`));
      });
    });
  }

  /** The events of one task, in the order received. */
  ofTask(id: string): SeenEvent[] {
    return this.seen.filter((seen) => seen.event.uuid === id);
  }

  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }
}

/** What a Python caller saw. */
export interface PythonOutcome {
  state: string;
  result?: unknown;
  exc_type?: string;
  exc_module?: string;
  message?: string;
  /** With `link_error`: what the errback returned. */
  errback?: unknown;
}

/** A task sent by Python (`app.send_task`), and what its `get()` returned or raised. */
export interface PythonCall {
  readonly id: Promise<string>;
  /** Every task id the call made (a chain's steps), once sent. */
  readonly ids: Promise<string[]>;
  readonly outcome: Promise<PythonOutcome>;
}

/** What call.py sends: a task by name, with Celery's `apply_async` options. */
export interface PythonRequest {
  task?: string;
  /** Instead of `task`: a Celery chain of these steps. */
  chain?: Array<{ task: string; args?: unknown[]; queue: string }>;
  /** Instead of `task`: a Celery group of these tasks. */
  group?: Array<{ task: string; args?: unknown[]; queue: string }>;
  /** Instead of `task`: a Celery chord, the header's results the first argument of the body. */
  chord?: {
    header: Array<{ task: string; args?: unknown[]; queue: string }>;
    body: { task: string; args?: unknown[]; queue: string };
  };
  /** The call's errback (`link_error`): its result comes back as the outcome's `errback`. */
  link_error?: { task: string; args?: unknown[]; queue: string };
  /** The queue to send to, when not the side's. */
  queue?: string;
  args?: unknown[];
  kwargs?: Record<string, unknown>;
  options?: Record<string, unknown>;
  /** Seconds `get()` waits. */
  timeout?: number;
  /** Revoke the task (`app.control.revoke`) right after sending it. */
  revoke?: boolean;
}

/** Sends a task from Python to `side.queue` and waits for its outcome there. */
export function pythonCall(side: CelerySide, request: PythonRequest): PythonCall {
  const child = spawn(PYTHON, ['call.py', JSON.stringify({ queue: side.queue, timeout: 20, ...request })], {
    cwd: FIXTURES,
    env: environment(side),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: unknown[] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stderr }).on('line', (line) => stderr.push(line));
  let gotIds: (ids: { id: string; ids: string[] }) => void = () => undefined;
  const sent = new Promise<{ id: string; ids: string[] }>((resolve) => (gotIds = resolve));
  createInterface({ input: child.stdout }).on('line', (line) => {
    const parsed = JSON.parse(line) as { id?: string; ids?: string[] };
    if (lines.length === 0 && parsed.id) gotIds({ id: parsed.id, ids: parsed.ids ?? [parsed.id] });
    lines.push(parsed);
  });
  const outcome = new Promise<PythonOutcome>((resolve, reject) =>
    child.once('exit', (code) => {
      const last = lines[1] as PythonOutcome | undefined;
      if (code === 0 && last) resolve(last);
      else reject(new Error(`call.py exited with ${code}: ${stderr.join('\n')}`));
    }),
  );
  return { id: sent.then((ids) => ids.id), ids: sent.then((ids) => ids.ids), outcome };
}

/** Revokes tasks from Python (`app.control.revoke(ids, terminate=...)`); resolves once it was sent. */
export async function pythonRevoke(
  side: CelerySide,
  ids: string[],
  options: { terminate?: boolean } = {},
): Promise<void> {
  await runPython(side, ['revoke.py', JSON.stringify({ ids, terminate: options.terminate ?? false })]);
}

/** What a Celery remote-control broadcast asks (`app.control.broadcast(method, ...)`). */
export interface RemoteCommand {
  readonly method: string;
  readonly arguments?: Record<string, unknown>;
  readonly destination?: string[];
  /** Seconds to collect replies. */
  readonly timeout?: number;
}

/**
 * Sends Celery remote-control commands from Python, one after the other (one Python process for
 * all), and resolves with each one's replies, `{ hostname: reply }` each.
 */
export async function pythonRemote(
  side: CelerySide,
  commands: readonly RemoteCommand[],
): Promise<Record<string, unknown>[][]> {
  return JSON.parse(await runPython(side, ['remote.py', JSON.stringify(commands)])) as Record<string, unknown>[][];
}

/** Runs the `celery` command on the fixtures' app (`celery -A proj_tasks ...args`); resolves with its output. */
export function celeryCommand(side: CelerySide, args: string[]): Promise<string> {
  return runPython(side, ['-m', 'celery', '-A', 'proj_tasks', ...args]);
}

/** Runs Python in the fixtures' directory; resolves with what it printed once it exited 0. */
function runPython(side: CelerySide, args: string[]): Promise<string> {
  const child = spawn(PYTHON, args, {
    cwd: FIXTURES,
    env: environment(side),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk.toString()));
  createInterface({ input: child.stderr }).on('line', (line) => stderr.push(line));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0
        ? resolve(stdout.join(''))
        : reject(new Error(`${args.join(' ')} exited with ${code}: ${stderr.join('\n')}`)),
    ),
  );
}

/**
 * A Celeriac app speaking Celery on the side's broker (kombu's Redis under its key prefix, or its
 * RabbitMQ), results in Redis, sending to its queue (close it after the test).
 */
export function celeryApp(prefix: string, side: CelerySide, options: CeleriacOptions = {}): Celeriac {
  return new Celeriac({
    ...options,
    broker: side.broker ?? CELERY_REDIS_URL,
    ...(side.broker === undefined ? {} : { backend: CELERY_REDIS_URL }),
    prefix,
    protocol: 'celery',
    celery: { keyPrefix: side.keyPrefix },
    defaultQueue: side.queue,
  });
}

/** Deletes the Celery result keys of these tasks (they are not under the test's prefix). */
export async function forgetResults(
  redis: { del(...keys: string[]): Promise<number> },
  ids: Iterable<string>,
): Promise<void> {
  const keys = [...ids].map((id) => `celery-task-meta-${id}`);
  if (keys.length > 0) await redis.del(...keys);
}
