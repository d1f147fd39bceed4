/**
 * One pool child process, seen from the worker: start it and wait until it loaded the app, run a
 * job on it with a hard time limit, and learn when it dies. Used by the prefork and fork pools.
 *
 * States: starting ──ready──► idle ◄──► busy ──► dead   (a hard limit or a crash kills it)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import {
  CeleriacError,
  TimeLimitExceededError,
  WorkerLostError,
  type CeleriacErrorCode,
  type Codec,
  type RemoteError,
} from '@celeriac/core';
import { reviveRemoteError, setLongTimeout, toRemoteError, type Termination } from '@celeriac/core/internal';
import { decideRetry } from '../retry-policy';
import type { TaskJob, TaskOutcome } from '../run-task';
import { inheritedFlags } from './inherited-flags';
import { watchChildGroup } from './orphan-guard';
import { JobLedger, UNSTARTED, type SentJob, type SentOutcome } from './job-ledger';
import { CHANNEL_FD, encodePacket, PacketReader } from './pipe-channel';
import {
  abortedBeforeStart,
  isChildMessage,
  PROTOCOL_VERSION,
  type ChildMessage,
  type ParentMessage,
  type WireOutcome,
} from './protocol';

/** Where a pool child starts: the compiled child entry next to this file. */
const CHILD_ENTRY = join(__dirname, 'child-main.js');

/** What a child needs to start. */
export interface ChildSpec {
  /** Absolute path of the app module. */
  appModule: string;
  /** The parent's codec, to decode results and progress. */
  codec: Codec;
  /** Extra environment for the child. */
  env?: NodeJS.ProcessEnv;
  /** Node flags for the child, after the worker's own. */
  nodeFlags?: string[];
  /** Logs a hook of a task that threw in the child (the task's outcome stands). */
  onHookError?: (hook: string, error: RemoteError) => void;
}

/** A child's lifecycle state: `busy` while it holds jobs. */
export type ChildState = 'starting' | 'idle' | 'busy' | 'dead';

/**
 * How long a pool waits before it replaces a child that could not start, or died before it ran
 * anything (ms): an app that fails or exits by itself soon after loading must not make a pool
 * respawn children in a tight loop.
 */
export const RESPAWN_DELAY_MS = 1_000;

/** How long a child sent SIGTERM by a revoke with terminate may take to exit before it gets SIGKILL (ms). */
const KILL_ESCALATION_MS = 5_000;

export { UNSTARTED } from './job-ledger';

/** A pool child process. */
export class ChildHandle {
  private readonly child: ChildProcess;
  /** The pipe to the child (pipe-channel.ts). */
  private readonly pipe: Socket;
  private stateValue: ChildState = 'starting';
  /** Jobs sent and not finished, in the order the child runs them. */
  private readonly ledger = new JobLedger();
  private outbox: ParentMessage[] = [];
  private readonly ready: Promise<void>;
  private readonly exited: Promise<void>;
  /** Tasks run so far, and the child's memory after the last one (bytes). */
  tasksRun = 0;
  rss = 0;
  /** A moving average of how long this child's tasks ran (ms): deep queues only for short tasks. */
  averageMs = 0;

  constructor(private readonly spec: ChildSpec) {
    const env: NodeJS.ProcessEnv = { ...process.env, ...spec.env, CELERIAC_APP_MODULE: spec.appModule };
    // One thread of libuv's pool waits on the pipe for the child's whole life (parent-pipe.ts):
    // one more thread leaves the task as many as it would have had.
    env.UV_THREADPOOL_SIZE = String(threadPoolSize(env.UV_THREADPOOL_SIZE) + 1);
    const flags = [...inheritedFlags(process.execArgv), ...(spec.nodeFlags ?? [])];
    this.child = spawn(process.execPath, [...flags, CHILD_ENTRY], {
      env,
      stdio: ['ignore', 'inherit', 'inherit', 'pipe'],
      // A process group of its own, which the worker's reaper kills if the worker dies (orphan-guard.ts).
      detached: true,
    });
    watchChildGroup(this.child);
    this.pipe = this.child.stdio[CHANNEL_FD] as Socket;
    // A child that died leaves a broken pipe: its exit is handled below, so the error is not news.
    this.pipe.on('error', () => undefined);
    let exited!: () => void;
    this.exited = new Promise((resolve) => (exited = resolve));
    this.ready = new Promise((resolve, reject) => {
      const reader = new PacketReader((packet) => {
        for (const message of Array.isArray(packet) ? (packet as unknown[]) : [packet]) onChildMessage(message);
      });
      const onChildMessage = (message: unknown): void => {
        if (!isChildMessage(message)) return;
        if (message.type === 'ready') {
          if (this.stateValue === 'starting') this.stateValue = 'idle';
          resolve();
        } else if (message.type === 'exiting') {
          // It is leaving (an exit the task or app called): no job may be sent to it any more.
          this.stateValue = 'dead';
          this.pipe.end();
        } else if (message.type === 'start-failed') {
          reject(startFailure(message.error));
        } else {
          this.onMessage(message);
        }
      };
      this.pipe.on('data', (chunk: Buffer) => reader.push(chunk));
      this.child.once('exit', (code, signal) => {
        this.stateValue = 'dead';
        // What the child wrote just before it died may still be in the pipe (a 'done' of a job that
        // finished): read it first. A grandchild that inherited the pipe can keep it open, so wait
        // for its end at most a second.
        let settled = false;
        const settle = (): void => {
          if (settled) return;
          settled = true;
          reject(exitedAtStart(spec.appModule, code, signal));
          this.onExit(code, signal);
          exited();
        };
        if (this.pipe.closed) return settle();
        this.pipe.once('close', settle);
        setTimeout(settle, 1000).unref();
      });
    });
    this.ready.catch(() => undefined);
  }

  /** The child's pid. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The lifecycle state. */
  get state(): ChildState {
    return this.stateValue;
  }

  /** Jobs sent to the child and not finished (running or queued in it). */
  get load(): number {
    return this.ledger.size;
  }

  /** Resolves once the child loaded the app; rejects if it could not. */
  whenReady(): Promise<void> {
    return this.ready;
  }

  /** Resolves once the process has exited. */
  whenExited(): Promise<void> {
    return this.exited;
  }

  /**
   * Sends a job; it runs after the ones already sent. Never rejects: a crash or a hard limit becomes
   * an outcome, and a job the child never began (it gave it back, or died first) resolves
   * {@link UNSTARTED}. Until the child says whether it began the job, `job.stop.inChild` is set.
   */
  run(job: TaskJob, body: string, options: { last?: boolean } = {}): Promise<SentOutcome> {
    if (this.stateValue === 'dead' || this.stateValue === 'starting') return Promise.resolve(UNSTARTED);
    // Revoked or handed back while it waited for a child: it must not start now.
    if (job.stop.aborted) return Promise.resolve(abortedBeforeStart(job.stop.reason));
    this.stateValue = 'busy';
    const { entry, ended } = this.ledger.add(job);
    const { jobId } = entry;
    const message: ParentMessage = {
      v: PROTOCOL_VERSION,
      type: 'run',
      jobId,
      body,
      deliveries: job.deliveries,
      maxRetries: job.maxRetries,
    };
    if (job.softTimeLimit !== undefined) message.softTimeLimit = job.softTimeLimit;
    if (job.traceparent !== undefined) message.traceparent = job.traceparent;
    if (options.last) message.last = true;
    this.send(message);
    // After the run message, so that an abort always reaches the child after its job.
    entry.onEnd = job.stop.onAbort((reason) => {
      if (job.stop.abandoned && entry.began) return this.kill(toRemoteError(reason));
      this.send({
        v: PROTOCOL_VERSION,
        type: 'abort',
        jobId,
        reason: reason instanceof Error ? reason.message : String(reason),
      });
      if (job.stop.termination) this.terminateAfterGrace(entry, job.stop.termination, reason);
    });
    return ended;
  }

  /** How long the job the child runs now has been running (ms, `now` from performance.now()); 0 when it runs none. */
  runningFor(now: number): number {
    const first = this.ledger.first();
    return first?.began ? now - first.beganAt : 0;
  }

  /**
   * Takes back the jobs queued behind a task that has run longer than `afterMs` (`now` from
   * performance.now()), so that another child runs them; the child returns those it has not begun.
   */
  withdrawQueued(afterMs: number, now: number): void {
    const first = this.ledger.first();
    if (first?.began && now - first.beganAt >= afterMs) this.withdrawBeyond(1);
  }

  /**
   * Takes back every job the child has not said it began; resolves once it said, for each, that it
   * gave it back or began it (or died). Only a job it gave back may run elsewhere.
   */
  takeBackQueued(): Promise<void> {
    const waiting = this.ledger.notBegun();
    for (const entry of waiting) this.withdraw(entry);
    return Promise.all(waiting.map((entry) => entry.decided)).then(() => undefined);
  }

  /**
   * Takes back the jobs held beyond the first `keep` (the running one counts); the child returns those it has not
   * begun.
   */
  withdrawBeyond(keep: number): void {
    for (const entry of this.ledger.beyond(keep)) this.withdraw(entry);
  }

  private withdraw(entry: SentJob): void {
    if (entry.withdrawing || entry.began) return;
    entry.withdrawing = true;
    this.send({ v: PROTOCOL_VERSION, type: 'withdraw', jobId: entry.jobId });
  }

  /** Kills the child now (SIGKILL); the job it runs ends with `reason` as its error. */
  kill(reason?: RemoteError): void {
    const running = this.ledger.running();
    if (running && reason) running.killedFor = reason;
    this.child.kill('SIGKILL');
  }

  /**
   * Revoked with terminate: the job's signal has aborted; a run that has not ended after the grace
   * (a task that ignores its signal, or never yields) is ended by killing its child, the only way
   * to take back its slot. A child that survives SIGTERM (the app handles it) gets SIGKILL later.
   */
  private terminateAfterGrace(entry: SentJob, { signal, graceMs }: Termination, reason: unknown): void {
    entry.terminator = setLongTimeout(() => {
      if (!this.ledger.holds(entry) || !entry.began) return;
      entry.killedFor = toRemoteError(reason);
      this.child.kill(signal);
      if (signal === 'SIGKILL') return;
      setTimeout(() => {
        if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
      }, KILL_ESCALATION_MS).unref();
    }, graceMs);
  }

  /** Asks the child to leave once idle (it exits when its pipe closes). */
  retire(): void {
    this.stateValue = 'dead';
    this.pipe.end();
  }

  /** The child said it began the job: its hard limit counts from now. */
  private begin(entry: SentJob): void {
    this.ledger.markBegan(entry);
    const { job } = entry;
    // Handed back to the queue while the child began it (a shutdown whose wait ran out): it must not
    // run here as well.
    if (job.stop.abandoned) return this.kill(toRemoteError(job.stop.reason));
    job.onStart(this.pid);
    if (job.timeLimit !== undefined) {
      const limit = job.timeLimit;
      entry.timer = setLongTimeout(() => this.kill(toRemoteError(new TimeLimitExceededError(limit))), limit);
    }
  }

  /**
   * Queues a message; those of one tick leave together as one packet (a list), since each pipe write
   * is a system call and per job they were the largest share of a prefork worker's time.
   */
  private send(message: ParentMessage): void {
    if (this.outbox.length === 0) queueMicrotask(() => this.flush());
    this.outbox.push(message);
  }

  private flush(): void {
    const packet = this.outbox;
    this.outbox = [];
    if (this.pipe.writable && packet.length > 0)
      this.pipe.write(encodePacket(packet.length === 1 ? packet[0] : packet));
  }

  private onMessage(message: ChildMessage): void {
    if (message.type === 'ready' || message.type === 'start-failed' || message.type === 'exiting') return;
    const entry = this.ledger.get(message.jobId);
    if (!entry) return;
    switch (message.type) {
      case 'began':
        this.begin(entry);
        return;
      case 'withdrawn':
        this.end(entry, UNSTARTED);
        return;
      case 'report':
        void entry.job.report(message.state, this.spec.codec.parse(message.meta)).catch(() => undefined);
        return;
      case 'hook-error':
        this.spec.onHookError?.(message.hook, message.error);
        return;
      case 'done': {
        // Without a 'began', it was aborted while it waited in the child: it never ran.
        if (entry.began) {
          this.tasksRun += 1;
          // Timed in the child: a burst of dones read at once would make the parent's own clock
          // charge the whole burst to its first job and nothing to the rest.
          this.averageMs += (message.ms - this.averageMs) / 8;
        }
        this.rss = message.rss;
        const outcome = message.outcome;
        this.end(entry, outcome.kind === 'success' ? this.successOf(outcome) : outcome);
        return;
      }
    }
  }

  /** A success as the worker settles it: plain JSON passes through as it is, other values are decoded. */
  private successOf(outcome: Extract<WireOutcome, { kind: 'success' }>): TaskOutcome {
    return 'json' in outcome
      ? { kind: 'success', json: outcome.json }
      : { kind: 'success', value: this.spec.codec.parse(outcome.value) };
  }

  /** A job left the ledger: a child with none left is idle. */
  private end(entry: SentJob, outcome: SentOutcome): void {
    this.ledger.end(entry, outcome);
    if (this.stateValue === 'busy' && this.ledger.size === 0) this.stateValue = 'idle';
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.stateValue = 'dead';
    this.ledger.endAll((entry) => {
      if (!entry.began) return UNSTARTED;
      const { job, killedFor } = entry;
      const error =
        killedFor?.name === 'TimeLimitExceededError'
          ? new TimeLimitExceededError(job.timeLimit ?? 0)
          : new WorkerLostError(
              killedFor
                ? `The pool child running ${job.message.task}[${job.message.id}] was stopped: ${killedFor.message}`
                : `The pool child running ${job.message.task}[${job.message.id}] died (exit code ${code}, signal ` +
                    `${signal}).`,
            );
      return outcomeOfDeath(job, error);
    });
  }
}

/** Why a child could not load the app, with the child's error code kept (CELERIAC_APP_MODULE, ...). */
function startFailure(remote: RemoteError): Error {
  const message = `The pool child could not load the app: ${remote.message}`;
  if (remote.code?.startsWith('CELERIAC_')) return new CeleriacError(remote.code as CeleriacErrorCode, message);
  return reviveRemoteError({ ...remote, message });
}

/** A child that exited before it was ready: it was loading the app module, the likely cause. */
function exitedAtStart(appModule: string, code: number | null, signal: NodeJS.Signals | null): CeleriacError {
  const how = signal === null ? `exit code ${code}` : `signal ${signal}`;
  return new CeleriacError(
    'CELERIAC_APP_MODULE',
    `A pool child exited (${how}) while it loaded the app module ${appModule}, before it was ready. ` +
      'Check that the module does not call process.exit or crash while it loads (run `node <module>`).',
  );
}

/** A killed or crashed run: retried per the task's policy; otherwise a lost run is redelivered. */
function outcomeOfDeath(job: TaskJob, error: Error): TaskOutcome {
  const decision = decideRetry({
    error,
    taskName: job.message.task,
    options: job.definition.options,
    retries: job.message.retries,
    maxRetries: job.maxRetries,
  });
  if (decision.retry) return { kind: 'retry', delay: decision.delay, error: toRemoteError(error) };
  if (error instanceof TimeLimitExceededError) return { kind: 'failure', error: toRemoteError(error) };
  return { kind: 'lost', error: toRemoteError(error) };
}

/** The size of libuv's thread pool that `UV_THREADPOOL_SIZE` asks for (libuv's default 4, at most 1024). */
function threadPoolSize(value: string | undefined): number {
  const size = Number(value);
  return Number.isInteger(size) && size >= 1 ? Math.min(size, 1023) : 4;
}
