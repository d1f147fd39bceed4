/**
 * Handing held tasks back to their queue when the worker stops: at once for those that have not
 * begun (prefetched, or queued in a pool child that gives them back), and at the shutdown timeout
 * for those still running, which count as lost deliveries.
 */
import { toRemoteError } from '@celeriac/core/internal';
import { handBackRunning } from './delivery/hand-back';
import type { RunContext } from './run-context';
import type { TaskRunner } from './runner';
import type { HeldRun, WorkerSlots } from './worker-slots';

/** How long a shutdown waits for pool children to say which queued jobs they had not begun. */
const TAKE_BACK_MS = 1_000;

/** What handing back works with. */
export interface ShutdownHandBackOptions {
  run: RunContext;
  runner: TaskRunner;
  slots: WorkerSlots;
}

/** The hand-backs of one worker's shutdown. */
export class ShutdownHandBack {
  constructor(private readonly options: ShutdownHandBackOptions) {}

  /**
   * Hands back what has not begun: the prefetched deliveries, and the jobs pool children gave back.
   * Call once the fetch loop has stopped.
   */
  async unstarted(): Promise<void> {
    const { slots, runner } = this.options;
    const { logger } = this.options.run;
    const unstarted = slots.takePrefetched();
    // Jobs a pool child holds but has not begun count as prefetched too: the pool takes them back,
    // and only those its children gave back go back to the queue. A job a child has not answered for
    // yet (it is busy) stays its child's: the child may still begin it, and then it runs here once;
    // if it gives it back later, its run ends abandoned and it goes back then.
    const held = [...slots.held.values()];
    await runner.takeBackQueued?.(TAKE_BACK_MS);
    for (const entry of held) {
      if (entry.stop.started || entry.stop.inChild) continue;
      entry.stop.abandon(new Error('Worker shutting down; the task goes back to the queue'));
      unstarted.push(entry);
    }
    if (unstarted.length > 0) logger.info({ count: unstarted.length }, 'Handing prefetched tasks back to the queue');
    const unanswered = held.filter((entry) => entry.stop.inChild).length;
    if (unanswered > 0)
      logger.info(
        { count: unanswered },
        'Tasks queued in busy pool children go back to the queue once their child gives them back',
      );
    await Promise.all(unstarted.map((entry) => this.handBack(entry)));
  }

  /** Hands back the runs still going at the shutdown timeout, their pool children stopped first. */
  async running(): Promise<void> {
    const { slots, runner } = this.options;
    const left = [...slots.held.values()];
    this.options.run.logger.warn(
      { ids: left.map((run) => run.delivery.id) },
      `Shutdown timeout: handing ${left.length} running task(s) back to the queue`,
    );
    for (const run of left) run.stop.abandon(new Error('Worker shutting down; the task goes back to the queue'));
    // Their children die first: a job a child held must not begin after it went back to the queue.
    await runner.close({ force: true });
    await Promise.all(left.map((run) => this.handBack(run)));
  }

  /**
   * Hands a reserved task back to its queue, once: a run that began as a lost delivery (it counts),
   * one that never began uncounted.
   */
  async handBack(entry: HeldRun): Promise<void> {
    if (entry.handedBack) return;
    entry.handedBack = true;
    const { run } = this.options;
    const { delivery, stop } = entry;
    await (stop.started ? handBackRunning(run, delivery) : run.broker.requeue(delivery)).catch((error: unknown) => {
      run.logger.error(
        { id: delivery.id, error: toRemoteError(error) },
        'Handing a task back to its queue failed; its lease will bring it back',
      );
    });
  }
}
