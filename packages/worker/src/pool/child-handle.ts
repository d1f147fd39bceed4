/**
 * One pool child process, seen from the worker: start it and wait until it loaded the app, run a
 * job on it with a hard time limit, and learn when it dies. Used by the prefork and fork pools.
 *
 * States: starting ──ready──► idle ◄──► busy ──► dead   (a hard limit or a crash kills it)
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { TimeLimitExceededError, toRemoteError, WorkerLostError, type Codec, type RemoteError } from '@celeriac/core';
import { decideRetry } from '../retry-policy';
import type { TaskJob, TaskOutcome } from '../run-task';
import { isChildMessage, PROTOCOL_VERSION, type ChildMessage, type ParentMessage } from './protocol';

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
}

/** A child's lifecycle state. */
export type ChildState = 'starting' | 'idle' | 'busy' | 'dead';

interface Current {
  jobId: string;
  job: TaskJob;
  resolve(outcome: TaskOutcome): void;
  timer: NodeJS.Timeout | undefined;
  killedFor: RemoteError | undefined;
}

let nextJob = 0;

/** A pool child process. */
export class ChildHandle {
  private readonly child: ChildProcess;
  private stateValue: ChildState = 'starting';
  private current: Current | undefined;
  private readonly ready: Promise<void>;
  private readonly exited: Promise<void>;
  /** Tasks run so far, and the child's memory after the last one (bytes). */
  tasksRun = 0;
  rss = 0;

  constructor(private readonly spec: ChildSpec) {
    this.child = fork(CHILD_ENTRY, [], {
      env: { ...process.env, ...spec.env, CELERIAC_APP_MODULE: spec.appModule },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    this.ready = new Promise((resolve, reject) => {
      this.child.on('message', (message: unknown) => {
        if (!isChildMessage(message)) return;
        if (message.type === 'ready') {
          this.stateValue = 'idle';
          resolve();
        } else if (message.type === 'start-failed') {
          reject(new Error(`The pool child could not load the app: ${message.error.message}`));
        } else {
          this.onMessage(message);
        }
      });
      this.child.once('exit', (code, signal) => {
        this.stateValue = 'dead';
        reject(new Error(`The pool child exited during start-up (code ${code}, signal ${signal})`));
        this.onExit(code, signal);
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

  /** Resolves once the child loaded the app; rejects if it could not. */
  whenReady(): Promise<void> {
    return this.ready;
  }

  /** Resolves once the process has exited. */
  whenExited(): Promise<void> {
    return this.exited;
  }

  /** Runs a job; the child must be idle. Never rejects: a crash or a hard limit becomes an outcome. */
  run(job: TaskJob, body: string): Promise<TaskOutcome> {
    if (this.stateValue !== 'idle') throw new Error(`A pool child in state ${this.stateValue} cannot take a job`);
    this.stateValue = 'busy';
    const jobId = String(++nextJob);
    return new Promise<TaskOutcome>((resolve) => {
      const current: Current = { jobId, job, resolve, timer: undefined, killedFor: undefined };
      this.current = current;
      if (job.timeLimit !== undefined) {
        const limit = job.timeLimit;
        current.timer = setTimeout(() => this.kill(toRemoteError(new TimeLimitExceededError(limit))), limit);
      }
      job.stop.onAbort((reason) => {
        if (job.stop.abandoned) return this.kill(toRemoteError(reason));
        this.send({ v: PROTOCOL_VERSION, type: 'abort', jobId, reason: reason instanceof Error ? reason.message : String(reason) });
      });
      const message: ParentMessage = { v: PROTOCOL_VERSION, type: 'run', jobId, body, deliveries: job.deliveries, maxRetries: job.maxRetries };
      if (job.softTimeLimit !== undefined) message.softTimeLimit = job.softTimeLimit;
      this.send(message);
    });
  }

  /** Kills the child now (SIGKILL); a job it runs ends with `reason` as its error. */
  kill(reason?: RemoteError): void {
    if (this.current && reason) this.current.killedFor = reason;
    this.child.kill('SIGKILL');
  }

  /** Asks an idle child to leave (it exits when its parent disconnects). */
  retire(): void {
    this.stateValue = 'dead';
    if (this.child.connected) this.child.disconnect();
  }

  private send(message: ParentMessage): void {
    if (this.child.connected) this.child.send(message);
  }

  private onMessage(message: ChildMessage): void {
    const current = this.current;
    if (!current) return;
    if (message.type === 'report' && message.jobId === current.jobId) {
      void current.job.report(message.state, this.spec.codec.parse(message.meta)).catch(() => undefined);
    } else if (message.type === 'done' && message.jobId === current.jobId) {
      clearTimeout(current.timer);
      this.current = undefined;
      this.tasksRun += 1;
      this.rss = message.rss;
      if (this.stateValue === 'busy') this.stateValue = 'idle';
      const outcome = message.outcome;
      current.resolve(outcome.kind === 'success' ? { kind: 'success', value: this.spec.codec.parse(outcome.value) } : outcome);
    }
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.stateValue = 'dead';
    const current = this.current;
    if (!current) return;
    clearTimeout(current.timer);
    this.current = undefined;
    const { job } = current;
    const error =
      current.killedFor?.name === 'TimeLimitExceededError'
        ? new TimeLimitExceededError(job.timeLimit ?? 0)
        : new WorkerLostError(
            current.killedFor
              ? `The pool child running ${job.message.task}[${job.message.id}] was stopped: ${current.killedFor.message}`
              : `The pool child running ${job.message.task}[${job.message.id}] died (exit code ${code}, signal ${signal}).`,
          );
    current.resolve(outcomeOfDeath(job, error));
  }
}

/** A killed or crashed run: retried per the task's policy; otherwise a lost run is redelivered. */
function outcomeOfDeath(job: TaskJob, error: Error): TaskOutcome {
  const decision = decideRetry({ error, taskName: job.message.task, options: job.definition.options, retries: job.message.retries, maxRetries: job.maxRetries });
  if (decision.retry) return { kind: 'retry', delay: decision.delay, error: toRemoteError(error) };
  if (error instanceof TimeLimitExceededError) return { kind: 'failure', error: toRemoteError(error) };
  return { kind: 'lost', error: toRemoteError(error) };
}
