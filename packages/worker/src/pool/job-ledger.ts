/**
 * The jobs a worker sent one pool child and has not seen end, in the order the child runs them, and
 * what the child said of each: that it began it, gave it back, or finished it. The child tells; the
 * ledger only records, and never infers that a job began.
 */
import type { RemoteError } from '@celeriac/core';
import { clearLongTimeout, type LongTimeout } from '@celeriac/core/internal';
import type { TaskJob, TaskOutcome } from '../run-task';

/** A job the child never began (it gave it back, or died first): the pool runs it elsewhere, at no cost to the task. */
export const UNSTARTED = 'unstarted';

/** How a job sent to a child ended. */
export type SentOutcome = TaskOutcome | typeof UNSTARTED;

/** One job sent to the child. */
export interface SentJob {
  readonly jobId: string;
  readonly job: TaskJob;
  /** The child said it began the job ('began'). */
  began: boolean;
  /** When the worker learned that the child began it (performance.now(), ms). */
  beganAt: number;
  /** Resolves once the child said whether it began the job ('began', 'withdrawn' or 'done'), or died. */
  readonly decided: Promise<void>;
  /** A withdraw was sent: the child gives the job back unless it already began. */
  withdrawing: boolean;
  /** The hard time limit, from when the child began the job. */
  timer: LongTimeout | undefined;
  /** Kills the child if it still runs the job after a terminate's grace. */
  terminator: LongTimeout | undefined;
  /** Why the worker killed the child while it ran this job, if it did. */
  killedFor: RemoteError | undefined;
  /** Runs when the job ends (the worker stops listening for its aborts). */
  onEnd: () => void;
}

interface Entry extends SentJob {
  decide(): void;
  resolve(outcome: SentOutcome): void;
}

let nextJob = 0;

/** The jobs of one child, sent and not ended. */
export class JobLedger {
  private readonly sent = new Map<string, Entry>();

  /** Jobs sent and not ended (running or queued in the child). */
  get size(): number {
    return this.sent.size;
  }

  /** Records a job about to be sent; `ended` resolves when {@link JobLedger.end} is called for it. */
  add(job: TaskJob): { entry: SentJob; ended: Promise<SentOutcome> } {
    let decide!: () => void;
    const decided = new Promise<void>((resolve) => (decide = resolve));
    let resolve!: (outcome: SentOutcome) => void;
    const ended = new Promise<SentOutcome>((done) => (resolve = done));
    const entry: Entry = {
      jobId: String(++nextJob),
      job,
      began: false,
      beganAt: 0,
      decided,
      withdrawing: false,
      timer: undefined,
      terminator: undefined,
      killedFor: undefined,
      onEnd: () => undefined,
      decide,
      resolve,
    };
    this.sent.set(entry.jobId, entry);
    // Until the child says whether it began the job, a revoke cannot know whether it runs.
    job.stop.inChild = true;
    return { entry, ended };
  }

  /** The job with this id, if it has not ended. */
  get(jobId: string): SentJob | undefined {
    return this.sent.get(jobId);
  }

  /** Whether `entry` is still in the ledger (it has not ended). */
  holds(entry: SentJob): boolean {
    return this.sent.get(entry.jobId) === entry;
  }

  /** The job the child runs or runs next. */
  first(): SentJob | undefined {
    return this.sent.values().next().value;
  }

  /** The job the child said it began and has not finished, if any. */
  running(): SentJob | undefined {
    return [...this.sent.values()].find((entry) => entry.began);
  }

  /** Jobs the child has not said it began. */
  notBegun(): SentJob[] {
    return [...this.sent.values()].filter((entry) => !entry.began);
  }

  /** The jobs after the first `keep`, in order. */
  beyond(keep: number): SentJob[] {
    return [...this.sent.values()].slice(keep);
  }

  /** The child said it began the job. */
  markBegan(entry: SentJob): void {
    entry.began = true;
    entry.beganAt = performance.now();
    entry.job.stop.started = true;
    entry.job.stop.inChild = false;
    (entry as Entry).decide();
  }

  /** The job ended with `outcome` (done, given back, or its child died); it leaves the ledger. */
  end(entry: SentJob, outcome: SentOutcome): void {
    const own = entry as Entry;
    this.sent.delete(entry.jobId);
    clearLongTimeout(entry.timer);
    clearLongTimeout(entry.terminator);
    entry.job.stop.inChild = false;
    entry.onEnd();
    own.decide();
    own.resolve(outcome);
  }

  /** Ends every job (the child died), each with the outcome `outcomeOf` gives it. */
  endAll(outcomeOf: (entry: SentJob) => SentOutcome): void {
    for (const entry of [...this.sent.values()]) this.end(entry, outcomeOf(entry));
  }
}
