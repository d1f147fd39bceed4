/**
 * The prefork pool: `concurrency` long-lived children, each loading the app once and running one
 * task at a time. A child gets its next jobs while it runs the current one, which hides the IPC
 * round trip: about 10 ms of work (up to `depth` jobs) while its tasks are short, one ahead once
 * they take longer (queue-depth.ts); jobs queued behind a task that runs long are taken back and
 * run on another child. A child that crashed, was killed at a hard limit, ran `maxTasksPerChild`
 * tasks or grew past `maxMemoryPerChild` is replaced, and jobs it had not begun run on another child.
 */
import type { TaskRunner } from '../runner';
import type { TaskJob, TaskOutcome } from '../run-task';
import { ChildHandle, RESPAWN_DELAY_MS, UNSTARTED, type ChildSpec } from './child-handle';
import { abortedBeforeStart } from './protocol';
import { queueDepth, SHORT_TASK_MS, WITHDRAW_AFTER_MS } from './queue-depth';

/** Options of a prefork pool. */
export interface PreforkOptions extends ChildSpec {
  size: number;
  /** The most jobs a child may hold at once, reached while its tasks are tiny (1 = only the one it runs). */
  depth: number;
  /** Replace a child after this many tasks. */
  maxTasksPerChild?: number;
  /** Replace a child whose memory (RSS) passed this many bytes after a task. */
  maxMemoryPerChild?: number;
  /** Called when a child is replaced, with why. */
  onReplace?(pid: number | undefined, reason: string): void;
  /** Called when a child leaves without a replacement (the pool shrank), with why. */
  onRetire?(pid: number | undefined, reason: string): void;
}

/** Runs jobs on long-lived child processes. */
export class PreforkPool implements TaskRunner {
  private readonly all = new Set<ChildHandle>();
  private readonly replaced = new WeakSet<ChildHandle>();
  /** Jobs waiting for room, each starting itself on the child it is given. */
  private readonly waiting: Array<(child: ChildHandle) => void> = [];
  private closed = false;
  /** Set at shutdown: a job a child gives back ends abandoned instead of going to another child. */
  private handingBack = false;
  private withdrawTimer: NodeJS.Timeout | undefined;
  /** Children leaving because the pool shrank: they take no jobs and are not replaced. */
  private readonly shrinking = new WeakSet<ChildHandle>();
  private size: number;

  constructor(private readonly options: PreforkOptions) {
    this.size = options.size;
  }

  /** Starts every child and waits until each loaded the app (fails if one could not). */
  async start(): Promise<void> {
    const children = Array.from({ length: this.size }, () => this.spawn());
    await Promise.all(children.map((child) => child.whenReady()));
    if (this.options.depth > 1) {
      this.withdrawTimer = setInterval(() => {
        const now = performance.now();
        for (const child of this.all) child.withdrawQueued(WITHDRAW_AFTER_MS, now);
      }, WITHDRAW_AFTER_MS / 2);
      this.withdrawTimer.unref();
    }
  }

  /** How many jobs the pool takes at once: deep queues for short tasks, one ahead for long ones. */
  get capacity(): number {
    let total = 0;
    for (const child of this.all) total += this.depthOf(child);
    return Math.max(total, this.size);
  }

  /** Starts more children, or retires the least loaded ones (each once it holds no job). */
  async resize(size: number): Promise<void> {
    this.size = size;
    const staying = [...this.all].filter((child) => !this.shrinking.has(child) && !this.replaced.has(child));
    if (size > staying.length) {
      const fresh = Array.from({ length: size - staying.length }, () => this.spawn());
      await Promise.all(fresh.map((child) => child.whenReady().catch(() => undefined)));
      return;
    }
    for (const child of staying.sort((a, b) => a.load - b.load).slice(0, staying.length - size)) {
      this.shrinking.add(child);
      this.offer(child);
    }
  }

  async run(job: TaskJob, body: string): Promise<TaskOutcome> {
    for (;;) {
      const result = await this.dispatch(job, body);
      if (result !== UNSTARTED) return result;
      if (this.handingBack) {
        const reason = new Error('Worker shutting down; the task goes back to the queue');
        job.stop.abandon(reason);
        return abortedBeforeStart(reason);
      }
      // The child died before it began this job (or gave it back): run it on another, at no cost to the task.
    }
  }

  async takeBackQueued(timeoutMs: number): Promise<void> {
    this.handingBack = true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    try {
      await Promise.race([Promise.all([...this.all].map((child) => child.takeBackQueued())), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Hands the job to a child the moment one has room; the child is claimed synchronously. */
  private dispatch(job: TaskJob, body: string): Promise<TaskOutcome | typeof UNSTARTED> {
    return new Promise((resolve) => {
      let stopListening = (): void => undefined;
      const begin = (child: ChildHandle) => {
        stopListening();
        const outcome = child.run(job, body);
        void outcome.then((result) => {
          this.offer(child);
          resolve(result);
        });
      };
      const child = this.pick();
      if (child) return begin(child);
      this.waiting.push(begin);
      // Revoked or handed back while waiting for room: leave the line at once.
      stopListening = job.stop.onAbort((reason) => {
        const index = this.waiting.indexOf(begin);
        if (index < 0) return;
        this.waiting.splice(index, 1);
        resolve(abortedBeforeStart(reason));
      });
    });
  }

  async close(options: { force?: boolean } = {}): Promise<void> {
    this.closed = true;
    clearInterval(this.withdrawTimer);
    for (const child of this.all) {
      if (options.force || child.load === 0) child.kill();
    }
    await Promise.all([...this.all].map((child) => child.whenExited()));
  }

  private spawn(): ChildHandle {
    const child = new ChildHandle(this.options);
    // A replacement starts from what its siblings learned: a fresh child must not be sent 128 long
    // tasks. The first children assume tasks are not short until some have run (a few dozen no-ops
    // bring the queue to its full depth).
    const siblings = [...this.all];
    child.averageMs =
      siblings.length > 0
        ? siblings.reduce((sum, sibling) => sum + sibling.averageMs, 0) / siblings.length
        : SHORT_TASK_MS;
    this.all.add(child);
    void child.whenExited().then(() => this.all.delete(child));
    child.whenReady().then(
      () => {
        this.offer(child);
        // A child that dies holding no job (killed from outside while idle) settles no job whose
        // end would replace it: its exit does, or the pool would shrink for good. Not while the
        // worker stops, and after RESPAWN_DELAY_MS for one that ran nothing.
        void child.whenExited().then(() => {
          const replace = () => !this.closed && !this.handingBack && this.offer(child);
          if (child.tasksRun > 0) replace();
          else setTimeout(replace, RESPAWN_DELAY_MS).unref();
        });
      },
      (error: Error) => {
        if (this.closed) return;
        // A replacement that cannot start (the module broke on disk?) is retried, not given up on.
        this.options.onReplace?.(child.pid, `it could not start: ${error.message}`);
        setTimeout(() => !this.closed && this.spawn(), RESPAWN_DELAY_MS).unref();
      },
    );
    return child;
  }

  /** The least-loaded live child with room that may still take jobs. */
  private pick(): ChildHandle | undefined {
    let best: ChildHandle | undefined;
    for (const child of this.all) {
      const usable =
        (child.state === 'idle' || child.state === 'busy') &&
        child.load < this.depthOf(child) &&
        !this.retireReason(child, child.load);
      if (usable && (!best || child.load < best.load)) best = child;
    }
    return best;
  }

  /** Replaces a child that died or must retire; hands room to waiting jobs. */
  private offer(child: ChildHandle): void {
    // A child that must retire, or whose tasks turned long, gives back the jobs waiting in it
    // beyond what it may hold now (those it has not begun run elsewhere); a little over is let be.
    if (child.state === 'busy') {
      const depth = this.depthOf(child);
      if (this.retireReason(child, 0)) child.withdrawBeyond(1);
      else if (child.load > 2 * depth) child.withdrawBeyond(depth);
    }
    if (child.state !== 'starting' && child.load === 0 && !this.replaced.has(child)) {
      const reason = this.retireReason(child, 0);
      if (reason) {
        this.replaced.add(child);
        // A child the pool shrank by leaves for good: it is retired, not replaced.
        if (this.shrinking.has(child)) this.options.onRetire?.(child.pid, reason);
        else this.options.onReplace?.(child.pid, reason);
        if (child.state !== 'dead') child.retire();
        this.all.delete(child);
        if (!this.closed && !this.shrinking.has(child)) this.spawn();
      }
    }
    // At shutdown, jobs waiting for room go back to the queue: no child is sent one.
    while (this.waiting.length > 0 && !this.handingBack) {
      const next = this.pick();
      if (!next) return;
      // Runs the job on `next` now, so the next pick sees its load.
      (this.waiting.shift() as (child: ChildHandle) => void)(next);
    }
  }

  /** How many jobs `child` may hold now (queue-depth.ts). */
  private depthOf(child: ChildHandle, now = performance.now()): number {
    return queueDepth({ averageMs: child.averageMs, runningMs: child.runningFor(now), maxDepth: this.options.depth });
  }

  /** Why a child must take no more jobs (and leave once it holds none); `held` jobs count as run. */
  private retireReason(child: ChildHandle, held: number): string | undefined {
    if (this.shrinking.has(child)) return 'the pool shrank';
    if (child.state === 'dead') return 'it exited';
    const { maxTasksPerChild, maxMemoryPerChild } = this.options;
    if (maxTasksPerChild !== undefined && child.tasksRun + held >= maxTasksPerChild)
      return `it ran ${child.tasksRun} tasks (max-tasks-per-child)`;
    if (maxMemoryPerChild !== undefined && child.rss > maxMemoryPerChild)
      return `it uses ${Math.round(child.rss / 1_048_576)} MB (max-memory-per-child)`;
    return undefined;
  }
}
