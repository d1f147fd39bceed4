/**
 * A worker's autoscale (the `autoscale` option): the autoscaler on its slots, the line it logs at
 * each change, the prefetch that follows the pool's size, and the bounds its heartbeat and
 * `inspect stats` tell.
 */
import { toRemoteError } from '@celeriac/core/internal';
import type { ResolvedAutoscale } from './autoscale-options';
import { Autoscaler } from './autoscaler';
import type { Logger } from './logger';

/** What a worker's autoscale works with. */
export interface WorkerAutoscaleOptions {
  autoscale: ResolvedAutoscale;
  /** The worker's `prefetch`, and whether it was given (if not, prefetch follows the pool's size). */
  prefetch: number;
  prefetchGiven: boolean;
  logger: Logger;
  /** Tasks that want a slot now. */
  demand(): number;
  /** The pool's size now. */
  size(): number;
  /** Sets the pool's size (one change at a time). */
  resize(size: number): Promise<void>;
}

/** The autoscale of one worker. */
export class WorkerAutoscale {
  private readonly autoscaler: Autoscaler;

  constructor(private readonly options: WorkerAutoscaleOptions) {
    const { logger } = options;
    this.autoscaler = new Autoscaler({
      ...options.autoscale,
      demand: () => options.demand(),
      size: () => options.size(),
      resize: async (size, why) => {
        const from = options.size();
        try {
          await options.resize(size);
        } catch (error) {
          logger.error({ error: toRemoteError(error), size }, `Resizing the pool to ${size} failed`);
          return;
        }
        const { min, max } = this.bounds;
        const now = options.size();
        if (now === from) return;
        logger.info(
          { concurrency: now, from, min, max },
          `Pool ${now > from ? 'grew' : 'shrank'} to ${now} (autoscale ${max},${min}): ${why}`,
        );
      },
    });
  }

  /** The bounds now (control pool-grow and pool-shrink widen them when they pass one). */
  get bounds(): { min: number; max: number } {
    return { ...this.autoscaler.bounds };
  }

  /** What the heartbeat and `inspect stats` add. */
  report(): { autoscale: { min: number; max: number } } {
    return { autoscale: this.bounds };
  }

  /** Looks at the demand (tasks were taken in, started or ended). */
  observe(): void {
    this.autoscaler.observe();
  }

  /** A control command sets the size to `size`. */
  resized(size: number): void {
    this.autoscaler.resized(size);
  }

  /** Stops changing the pool. */
  stop(): void {
    this.autoscaler.stop();
  }

  /**
   * How many tasks to hold ahead of the free slots: the given prefetch, or else the pool's size now
   * (not its max: tasks held for slots that do not exist yet would wait here while other workers
   * could run them). Below max, at least one, even with prefetch 0: the task held is the work
   * waiting that makes the pool grow.
   */
  prefetch(): number {
    const size = this.options.size();
    const base = this.options.prefetchGiven ? this.options.prefetch : size;
    return size < this.autoscaler.bounds.max ? Math.max(base, 1) : base;
  }
}
