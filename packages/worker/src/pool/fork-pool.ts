/**
 * The fork pool, RQ's "work horse": every task runs in a fresh child that exits after it, so no
 * state or leak outlives a task. The next child is started while the current task runs, so its
 * start-up (a bare `node` takes ~75 ms) overlaps the work instead of adding to it.
 */
import type { TaskRunner } from '../runner';
import type { TaskJob, TaskOutcome } from '../run-task';
import { ChildHandle, RESPAWN_DELAY_MS, UNSTARTED, type ChildSpec } from './child-handle';

/** Options of a fork pool. */
export interface ForkOptions extends ChildSpec {
  /** How many tasks run at once; as many children are kept warm. */
  size: number;
  /** Called when a warm child that died before it got a task is replaced, with why. */
  onReplace?(pid: number | undefined, reason: string): void;
}

/** How many children a task tries when the one it was given turns out dead before it began. */
const START_ATTEMPTS = 3;

/** Runs each job in a new child process. */
export class ForkPool implements TaskRunner {
  private readonly spares: ChildHandle[] = [];
  private readonly all = new Set<ChildHandle>();
  private closed = false;
  /** How many children are kept warm: as many as tasks run at once. */
  private size: number;

  constructor(private readonly options: ForkOptions) {
    this.options = { ...options, nodeFlags: [...forkChildFlags(), ...(options.nodeFlags ?? [])] };
    this.size = options.size;
  }

  /** Warms the first children and checks that the app loads in one. */
  async start(): Promise<void> {
    for (let i = 0; i < this.size; i += 1) this.spares.push(this.spawn());
    await Promise.all(this.spares.map((child) => child.whenReady()));
  }

  /**
   * Keeps `size` children warm from now on: warms more (and waits until they loaded the app), or
   * retires warm ones, which hold no task. Children running a task are left to finish it.
   */
  async resize(size: number): Promise<void> {
    this.size = size;
    const fresh: ChildHandle[] = [];
    while (this.spares.length < size) {
      const child = this.spawn();
      this.spares.push(child);
      fresh.push(child);
    }
    for (const child of this.spares.splice(size)) child.retire();
    await Promise.all(fresh.map((child) => child.whenReady().catch(() => undefined)));
  }

  async run(job: TaskJob, body: string): Promise<TaskOutcome> {
    for (let attempt = 1; ; attempt += 1) {
      const child = this.spares.shift() ?? this.spawn();
      // The successor warms up while this task runs.
      if (!this.closed) this.spares.push(this.spawn());
      try {
        await child.whenReady();
      } catch (error) {
        return lost((error as Error).message);
      }
      const outcome = await child.run(job, body, { last: true });
      child.retire();
      if (outcome !== UNSTARTED) return outcome;
      // The child died before it said it began the task (it died while it waited, and its
      // replacement had not come yet): the task never ran, so it goes to a fresh child, as a prefork
      // job would.
      if (attempt >= START_ATTEMPTS || this.closed) return lost('The fork child died before it began the task.');
    }
  }

  async close(options: { force?: boolean } = {}): Promise<void> {
    this.closed = true;
    for (const child of this.spares.splice(0)) child.kill();
    for (const child of this.all) if (options.force) child.kill();
    await Promise.all([...this.all].map((child) => child.whenExited()));
  }

  private spawn(): ChildHandle {
    const child = new ChildHandle(this.options);
    this.all.add(child);
    void child.whenExited().then(() => this.all.delete(child));
    // A warm child that died waiting (killed from outside) leaves the spares now, not found dead by
    // a task, and is replaced after RESPAWN_DELAY_MS (a task meanwhile starts a child of its own).
    // One that could not start stays: the task that takes it fails with why.
    child.whenReady().then(
      () =>
        void child.whenExited().then(() => {
          const index = this.spares.indexOf(child);
          if (index < 0 || this.closed) return;
          this.spares.splice(index, 1);
          this.options.onReplace?.(child.pid, 'it exited before it got a task');
          setTimeout(
            () => !this.closed && this.spares.length < this.size && this.spares.push(this.spawn()),
            RESPAWN_DELAY_MS,
          ).unref();
        }),
      () => undefined,
    );
    return child;
  }
}

function lost(message: string): TaskOutcome {
  return { kind: 'lost', error: { name: 'WorkerLostError', message } };
}

/**
 * Node flags of a fork child. It runs one task and exits, so V8 starts one helper thread for it,
 * not four: starting threads is most of what the others would cost it (2–3 % of the pool's
 * throughput, measured). A --v8-pool-size of the worker's own, or in NODE_OPTIONS, wins.
 */
function forkChildFlags(): string[] {
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((flag) => flag.includes('--v8-pool-size'));
  return given ? [] : ['--v8-pool-size=1'];
}
