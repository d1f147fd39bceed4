/**
 * The soak's worker processes: `celeriac worker` of each pool, each consuming the shared queue and
 * a probe queue of its own, supervised as a process manager would (a worker that was killed starts
 * again a second later). The fleet tells which exits it caused, samples each worker's memory, and
 * at the end stops every worker with SIGTERM and says which did not exit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { childrenOf } from '@celeriac/test-support';

const ROOT = resolve(__dirname, '../..');
const CLI = join(ROOT, 'packages/celeriac/dist/cli/main.js');
const APP = join(__dirname, 'soak-app.ts');

/** One kind of worker in the fleet. */
export interface WorkerSpec {
  name: string;
  args: string[];
}

/** The workers of a run: prefork c=2, fork c=1, inline c=20, as the soak that found the restart defect ran. */
export const FLEET: readonly WorkerSpec[] = [
  { name: 'prefork', args: ['--pool', 'prefork', '-c', '2'] },
  { name: 'fork', args: ['--pool', 'fork', '-c', '1'] },
  { name: 'inline', args: ['--pool', 'inline', '-c', '20'] },
];

/** The probe queue of a worker: only it consumes there. */
export function probeQueue(name: string): string {
  return `probe-${name}`;
}

/** What the fleet saw of one worker over the run. */
export interface WorkerRecord {
  name: string;
  /** Starts, the first included. */
  starts: number;
  /** Exits the soak caused (kill -9). */
  killed: number;
  /** Exits nobody asked for: a worker that died by itself. */
  died: Array<{ code: number | null; signal: string | null }>;
  /** Largest resident memory of the worker process seen (bytes), and of it with its pool children. */
  maxRss: number;
  maxRssWithChildren: number;
  /** At the end: true when SIGTERM ended it with 0 within the limit. */
  stoppedCleanly?: boolean;
  stopCode?: { code: number | null; signal: string | null };
}

interface Running {
  spec: WorkerSpec;
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: string | null }>;
  expectExit: boolean;
}

/** The supervised workers. */
export class Fleet {
  readonly records = new Map<string, WorkerRecord>();
  private readonly running = new Map<string, Running>();
  private stopping = false;
  private readonly sampler: NodeJS.Timeout;

  constructor(private readonly env: NodeJS.ProcessEnv) {
    for (const spec of FLEET) {
      this.records.set(spec.name, {
        name: spec.name,
        starts: 0,
        killed: 0,
        died: [],
        maxRss: 0,
        maxRssWithChildren: 0,
      });
      this.start(spec);
    }
    this.sampler = setInterval(() => this.sampleMemory(), 2_000);
  }

  /** The names of the workers running now. */
  names(): string[] {
    return [...this.running.keys()];
  }

  /** Kills worker `name` with SIGKILL (its children go with it); the supervisor starts it again. */
  killWorker(name: string): void {
    const running = this.running.get(name);
    if (!running) return;
    running.expectExit = true;
    this.record(name).killed += 1;
    running.child.kill('SIGKILL');
  }

  /** Kills one pool child of worker `name` with SIGKILL; false when it has none now. */
  killChild(name: string, pick: number): boolean {
    const running = this.running.get(name);
    if (!running?.child.pid) return false;
    const children = childrenOf(running.child.pid).filter((child) => child.command !== 'sh');
    const child = children[Math.floor(pick * children.length)];
    if (!child) return false;
    try {
      process.kill(child.pid, 'SIGKILL');
      return true;
    } catch {
      return false;
    }
  }

  /** SIGTERM to every worker; each has `ms` to exit with 0 (those that do not are killed and recorded). */
  async stopAll(ms: number): Promise<void> {
    this.stopping = true;
    clearInterval(this.sampler);
    await Promise.all(
      [...this.running.values()].map(async (running) => {
        const record = this.record(running.spec.name);
        running.expectExit = true;
        running.child.kill('SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        const outcome = await Promise.race([
          running.exited,
          new Promise<undefined>((done) => (timer = setTimeout(() => done(undefined), ms))),
        ]);
        clearTimeout(timer);
        if (outcome === undefined) {
          record.stoppedCleanly = false;
          running.child.kill('SIGKILL');
          record.stopCode = await running.exited;
        } else {
          record.stopCode = outcome;
          record.stoppedCleanly = outcome.code === 0;
        }
      }),
    );
  }

  private start(spec: WorkerSpec): void {
    const record = this.record(spec.name);
    const child = spawn(
      process.execPath,
      [CLI, 'worker', '--json-logs', '-A', APP, '-Q', `default,${probeQueue(spec.name)}`, ...spec.args],
      { cwd: ROOT, env: { ...process.env, ...this.env, SOAK_WORKER: spec.name }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    // A worker's stderr is dropped unless SOAK_VERBOSE asks for it.
    child.stderr?.on('data', (chunk: Buffer) => process.env.SOAK_VERBOSE && process.stderr.write(chunk));
    const running: Running = {
      spec,
      child,
      expectExit: false,
      exited: new Promise((done) => child.once('exit', (code, signal) => done({ code, signal }))),
    };
    this.running.set(spec.name, running);
    record.starts += 1;
    void running.exited.then((outcome) => {
      if (this.running.get(spec.name) === running && !this.stopping) this.running.delete(spec.name);
      if (this.stopping) return;
      if (!running.expectExit) record.died.push(outcome);
      // As a process manager would: start it again a second later.
      setTimeout(() => {
        if (!this.stopping) this.start(spec);
      }, 1_000);
    });
  }

  private sampleMemory(): void {
    for (const [name, running] of this.running) {
      const pid = running.child.pid;
      if (pid === undefined) continue;
      const own = rssOf(pid);
      const children = childrenOf(pid).reduce((sum, child) => sum + rssOf(child.pid), 0);
      const record = this.record(name);
      record.maxRss = Math.max(record.maxRss, own);
      record.maxRssWithChildren = Math.max(record.maxRssWithChildren, own + children);
    }
  }

  private record(name: string): WorkerRecord {
    const record = this.records.get(name);
    if (!record) throw new Error(`no worker ${name} in the fleet`);
    return record;
  }
}

/** Resident memory of a process (bytes), 0 once it is gone. */
function rssOf(pid: number): number {
  try {
    const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return line ? Number(line[1]) * 1_024 : 0;
  } catch {
    return 0;
  }
}
