/**
 * Starts real `celeriac worker` processes for end-to-end tests (from the built CLI: run
 * `npm run build` first; `npm test` does) and lets tests wait for what they log.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { childrenOf, processGroupOf, REDIS_URL, RedisFixture } from '@celeriac/test-support';

const ROOT = resolve(__dirname, '../../../../..');
const CLI = join(ROOT, 'packages/celeriac/dist/cli/main.js');
/** The app module the workers load. */
export const FIXTURE_APP = join(__dirname, '../fixtures/app.js');

/** One JSON log line of the worker. */
export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A running `celeriac worker` process. */
export class WorkerProcess {
  readonly child: ChildProcess;
  readonly lines: LogLine[] = [];
  readonly stderr: string[] = [];
  private readonly listeners = new Set<(line: LogLine) => void>();
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  /** With `via: 'npx'`, runs `npx celeriac ...` as the docs say; `child` is then npx, not the worker. */
  constructor(
    args: string[],
    env: NodeJS.ProcessEnv,
    command: 'worker' | 'beat' | 'dashboard' = 'worker',
    via: 'node' | 'npx' = 'node',
  ) {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` before the end-to-end tests.`);
    const cliArgs = [command, '--json-logs', ...args];
    const [file, argv] = via === 'npx' ? ['npx', ['celeriac', ...cliArgs]] : [process.execPath, [CLI, ...cliArgs]];
    // npx must never fetch a package named celeriac from the registry: the workspace's own bin or nothing.
    this.child = spawn(file, argv, {
      cwd: ROOT,
      env: { ...process.env, npm_config_yes: 'false', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    createInterface({ input: this.child.stdout! }).on('line', (text) => {
      let line: LogLine;
      try {
        line = JSON.parse(text) as LogLine;
      } catch {
        return;
      }
      this.lines.push(line);
      for (const listener of this.listeners) listener(line);
    });
    createInterface({ input: this.child.stderr! }).on('line', (text) => this.stderr.push(text));
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Resolves with the first log line (past or future) that matches. */
  waitForLog(match: (line: LogLine) => boolean, what = 'a log line'): Promise<LogLine> {
    const seen = this.lines.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const listener = (line: LogLine) => {
        if (!match(line)) return;
        this.listeners.delete(listener);
        resolve(line);
      };
      this.listeners.add(listener);
      void this.exited.then(({ code }) => {
        if (this.listeners.delete(listener))
          reject(
            new Error(`The worker exited (code ${code}) before logging ${what}. stderr: ${this.stderr.join('\n')}`),
          );
      });
    });
  }

  /** Resolves once the worker logged that it is ready. */
  ready(): Promise<LogLine> {
    return this.waitForLog((line) => / ready$/.test(line.msg), 'ready');
  }

  /** Resolves when task `id` has started. */
  started(id: string): Promise<LogLine> {
    return this.waitForLog((line) => line.id === id && line.state === 'STARTED', `the start of ${id}`);
  }

  /** Sends a signal. */
  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /**
   * Sends `signal` to the worker's children in its process group, then to the worker: what a
   * terminal's Ctrl-C does to the group (the e2e workers share a group with the test runner). Pool
   * children lead groups of their own, so it does not reach them.
   */
  signalGroup(signal: NodeJS.Signals): void {
    const group = processGroupOf(this.child.pid as number);
    for (const { pid } of this.children()) if (processGroupOf(pid) === group) process.kill(pid, signal);
    this.child.kill(signal);
  }

  /** The worker's child processes now (its pool children, and its reaper `sh`), read from /proc. */
  children(): Array<{ pid: number; command: string }> {
    return childrenOf(this.child.pid as number);
  }

  /** Kills the worker (and, through its reaper, its children) if still running. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }
}

/** Tracks worker processes of a test and kills any left at the end. */
export class WorkerProcesses {
  private readonly all: WorkerProcess[] = [];

  /** @param url the Redis the workers use (`REDIS_URL`, the tests' topology, unless given). */
  constructor(
    private readonly prefix: string,
    private readonly url: string = REDIS_URL,
  ) {}

  /** Starts a worker on the fixture app with extra CLI args. */
  start(args: string[] = [], env: NodeJS.ProcessEnv = {}): WorkerProcess {
    return this.spawn('worker', ['-A', FIXTURE_APP, ...args], env);
  }

  /** Starts `celeriac <command>` with these args (give `-A`), on this test's prefix; killed at the end too. */
  spawn(
    command: 'worker' | 'beat' | 'dashboard',
    args: string[],
    env: NodeJS.ProcessEnv = {},
    via: 'node' | 'npx' = 'node',
  ): WorkerProcess {
    const started = new WorkerProcess(
      args,
      { REDIS_URL: this.url, CELERIAC_TEST_PREFIX: this.prefix, ...env },
      command,
      via,
    );
    this.all.push(started);
    return started;
  }

  /** Kills every worker still running. */
  async stopAll(): Promise<void> {
    await Promise.all(this.all.map((worker) => worker.stop()));
  }
}

/** A test's Redis fixture and its worker processes, both fresh for each test. */
export interface E2eContext {
  readonly fixture: RedisFixture;
  readonly workers: WorkerProcesses;
}

/**
 * Declares, in the calling `describe`, a fresh Redis prefix and worker set per test, torn down after
 * it (workers killed, then only the prefix's keys deleted). Read the context inside tests.
 * @param url the Redis of the fixture and the workers: the tests' topology (`REDIS_URL`) unless given;
 *   a function is read when each test starts (a server the suite starts in `beforeAll`).
 */
export function useE2e(label: string, url: string | (() => string) = REDIS_URL): () => E2eContext {
  let context: E2eContext | undefined;
  beforeEach(() => {
    const fixture = new RedisFixture(label, typeof url === 'function' ? url() : url);
    context = { fixture, workers: new WorkerProcesses(fixture.prefix, fixture.url) };
  });
  afterEach(async () => {
    await context?.workers.stopAll();
    await context?.fixture.cleanup();
  });
  return () => {
    if (!context) throw new Error('useE2e: read the context inside a test');
    return context;
  };
}
