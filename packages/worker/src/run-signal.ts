/**
 * The abort signal of one task run, created only if someone reads it: most runs never do, and an
 * AbortController per task is a measurable share of a no-op task's cost.
 */
import type { Termination } from '@celeriac/core/internal';

/** A lazily created AbortSignal that the worker can abort (revoke, shutdown, time limits). */
export class RunSignal {
  private controller: AbortController | undefined;
  private abortedWith: { reason: unknown } | undefined;
  private readonly listeners: Array<(reason: unknown) => void> = [];

  /** The signal the task sees as `currentTask().signal`. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortedWith) this.controller.abort(this.abortedWith.reason);
    }
    return this.controller.signal;
  }

  /** True once aborted. */
  get aborted(): boolean {
    return this.abortedWith !== undefined;
  }

  /** The reason given to the first `abort()`. */
  get reason(): unknown {
    return this.abortedWith?.reason;
  }

  /** True once the task function began (a pool child may hold a job queued before it begins it). */
  started = false;

  /**
   * True while a pool child holds the job and has not said whether it began it: only that child
   * can give it back, so the worker must not hand it back to the queue meanwhile.
   */
  inChild = false;

  /** True when the worker gave the task back to the queue: whatever the run does now must not be recorded. */
  abandoned = false;

  /** Set when the run was revoked with terminate: how a pool stops a child that runs on. */
  termination: Termination | undefined;

  /** Aborts the run for a revoke with terminate; a pool kills the child still running it after the grace. */
  terminate(reason: unknown, termination: Termination): void {
    if (this.abortedWith) return;
    this.termination = termination;
    this.abort(reason);
  }

  /** Aborts the run and disowns its outcome (the task was handed back to the queue). */
  abandon(reason: unknown): void {
    this.abandoned = true;
    this.abort(reason);
  }

  /** Aborts the run (only the first call counts). */
  abort(reason: unknown): void {
    if (this.abortedWith) return;
    this.abortedWith = { reason };
    this.controller?.abort(reason);
    for (const listener of this.listeners.splice(0)) listener(reason);
  }

  /** Calls `listener` once when the run is aborted (at once if it already was); returns a function that removes it. */
  onAbort(listener: (reason: unknown) => void): () => void {
    if (this.abortedWith) {
      listener(this.abortedWith.reason);
      return () => undefined;
    }
    this.listeners.push(listener);
    return () => {
      const index = this.listeners.indexOf(listener);
      if (index >= 0) this.listeners.splice(index, 1);
    };
  }
}
