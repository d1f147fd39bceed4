/**
 * The prefork pool: `concurrency` long-lived children, each loading the app once. A child that
 * crashed, was killed at a hard limit, ran `maxTasksPerChild` tasks or grew past
 * `maxMemoryPerChild` is replaced by a fresh one.
 */
import type { TaskRunner } from '../runner';
import type { TaskJob, TaskOutcome } from '../run-task';
import { ChildHandle, type ChildSpec } from './child-handle';

/** Options of a prefork pool. */
export interface PreforkOptions extends ChildSpec {
  size: number;
  /** Replace a child after this many tasks. */
  maxTasksPerChild?: number;
  /** Replace a child whose memory (RSS) passed this many bytes after a task. */
  maxMemoryPerChild?: number;
  /** Called when a child is replaced, with why. */
  onReplace?(pid: number | undefined, reason: string): void;
}

/** Runs jobs on long-lived child processes. */
export class PreforkPool implements TaskRunner {
  private readonly idle: ChildHandle[] = [];
  private readonly all = new Set<ChildHandle>();
  private readonly waiting: Array<(child: ChildHandle) => void> = [];
  private closed = false;

  constructor(private readonly options: PreforkOptions) {}

  /** Starts every child and waits until each loaded the app (fails if one could not). */
  async start(): Promise<void> {
    const children = Array.from({ length: this.options.size }, () => this.spawn());
    await Promise.all(children.map((child) => child.whenReady()));
  }

  async run(job: TaskJob, body: string): Promise<TaskOutcome> {
    const child = await this.acquire();
    const outcome = await child.run(job, body);
    this.release(child);
    return outcome;
  }

  async close(options: { force?: boolean } = {}): Promise<void> {
    this.closed = true;
    for (const child of this.all) {
      if (options.force || child.state !== 'busy') child.kill();
    }
    await Promise.all([...this.all].map((child) => child.whenExited()));
  }

  private spawn(): ChildHandle {
    const child = new ChildHandle(this.options);
    this.all.add(child);
    void child.whenExited().then(() => {
      this.all.delete(child);
      const index = this.idle.indexOf(child);
      if (index >= 0) this.idle.splice(index, 1);
    });
    child.whenReady().then(
      () => this.release(child),
      (error: Error) => {
        // A replacement that cannot start (the module broke on disk?) is retried, not given up on.
        this.options.onReplace?.(child.pid, `it could not start: ${error.message}`);
        if (!this.closed) setTimeout(() => !this.closed && this.spawn(), 1_000).unref();
      },
    );
    return child;
  }

  private acquire(): Promise<ChildHandle> {
    const child = this.idle.pop();
    if (child) return Promise.resolve(child);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Returns a child to the idle set, or replaces it when it died or must retire. */
  private release(child: ChildHandle): void {
    const reason = this.retireReason(child);
    if (reason) {
      this.options.onReplace?.(child.pid, reason);
      if (child.state !== 'dead') child.retire();
      this.all.delete(child);
      if (!this.closed) this.spawn();
      return;
    }
    const next = this.waiting.shift();
    if (next) next(child);
    else this.idle.push(child);
  }

  private retireReason(child: ChildHandle): string | undefined {
    if (child.state === 'dead') return 'it exited';
    const { maxTasksPerChild, maxMemoryPerChild } = this.options;
    if (maxTasksPerChild !== undefined && child.tasksRun >= maxTasksPerChild) return `it ran ${child.tasksRun} tasks (max-tasks-per-child)`;
    if (maxMemoryPerChild !== undefined && child.rss > maxMemoryPerChild) return `it uses ${Math.round(child.rss / 1_048_576)} MB (max-memory-per-child)`;
    return undefined;
  }
}
