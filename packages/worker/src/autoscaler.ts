/**
 * The autoscaler (`autoscale` worker option): grows the pool while tasks wait for a slot and shrinks
 * it by the slots that stayed unused for `idle`, within `min`..`max`.
 *
 * States:  steady ──demand above the size──► growing ──resized──► steady
 *          steady ──top slot unused for idle──► shrinking ──resized──► steady
 *
 * Demand is what wants a slot now: the tasks running and those held waiting for one. Slot k
 * (1-based) is in use whenever demand is at least k; the pool shrinks to the highest slot used
 * within the last `idle` (never below `min`, never below the demand). One resize runs at a time;
 * what changed meanwhile is looked at once it is done. Nothing runs on a timer except the one
 * shrink due next, armed only while a slot above `min` is unused: an idle worker at `min`, or a
 * busy one at its size, keeps no timer.
 */

/** What the autoscaler reads from and changes on its worker. */
export interface AutoscalerOptions {
  min: number;
  max: number;
  /** How long a slot stays unused before the pool shrinks by it (ms). */
  idle: number;
  /** Tasks that want a slot now (running, or held waiting for one). */
  demand(): number;
  /** The pool's size now. */
  size(): number;
  /** Changes the pool's size; `why` is for the log line. */
  resize(size: number, why: string): Promise<void>;
}

/** Grows and shrinks one worker's pool. */
export class Autoscaler {
  private minSize: number;
  private maxSize: number;
  /** When each slot was last in use (index k - 1 for slot k), epoch ms. */
  private readonly lastUsed: number[] = [];
  private timer: NodeJS.Timeout | undefined;
  private resizing = false;
  private stopped = false;
  /** The demand last looked at: the slots it filled were in use until now, even when fewer are now. */
  private lastDemand = 0;

  constructor(private readonly options: AutoscalerOptions) {
    this.minSize = options.min;
    this.maxSize = options.max;
    this.setSlots(options.size());
  }

  /** The bounds now (control pool-grow and pool-shrink may widen them). */
  get bounds(): { readonly min: number; readonly max: number } {
    return { min: this.minSize, max: this.maxSize };
  }

  /** Looks at the demand: call it whenever tasks are taken in, start or end. */
  observe(): void {
    if (this.stopped || this.resizing) return;
    const now = this.now();
    const size = this.options.size();
    const demand = this.look(size, now);
    if (demand > size && size < this.maxSize) {
      const target = Math.min(demand, this.maxSize);
      void this.change(target, `${demand - size} task${demand - size === 1 ? '' : 's'} waiting for a slot`);
    } else if (demand < size && size > this.minSize) this.armShrink(size, now);
  }

  /**
   * A control command set the size to `size` (pool-grow, pool-shrink): a bound it passes moves to
   * it, as Celery's autoscaler does, and the slots it added count as used now.
   */
  resized(size: number): void {
    this.maxSize = Math.max(this.maxSize, size);
    this.minSize = Math.min(this.minSize, size);
    this.setSlots(size);
  }

  /** Stops changing the pool (the worker is closing). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Reads the demand; the slots it fills now, and those the last demand filled until now, were used now. */
  private look(size: number, now: number): number {
    const demand = this.options.demand();
    const used = Math.min(Math.max(demand, this.lastDemand), size);
    for (let k = 0; k < used; k += 1) this.lastUsed[k] = now;
    this.lastDemand = demand;
    return demand;
  }

  /** Keeps the times of `size` slots; those added count as used now (the demand asked for them). */
  private setSlots(size: number): void {
    const now = this.now();
    for (let k = this.lastUsed.length; k < size; k += 1) this.lastUsed[k] = now;
    this.lastUsed.length = size;
  }

  /** Arms the one timer, for when the top slot will have been unused for `idle`. */
  private armShrink(size: number, now: number): void {
    if (this.timer !== undefined) return;
    const due = (this.lastUsed[size - 1] ?? now) + this.options.idle;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.shrink();
      },
      Math.max(0, due - now),
    );
    this.timer.unref();
  }

  private shrink(): void {
    if (this.stopped || this.resizing) return;
    const now = this.now();
    const size = this.options.size();
    const demand = this.look(size, now);
    let target = size;
    while (target > Math.max(this.minSize, demand) && now - (this.lastUsed[target - 1] ?? now) >= this.options.idle)
      target -= 1;
    if (target < size) {
      const unused = size - target;
      void this.change(target, `${unused} slot${unused === 1 ? '' : 's'} unused for ${this.options.idle} ms`);
    } else if (demand < size && size > this.minSize) this.armShrink(size, now);
  }

  private async change(size: number, why: string): Promise<void> {
    this.resizing = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.setSlots(size);
    // The worker logs a resize that failed; the next look starts from the size it has.
    await this.options.resize(size, why).catch(() => undefined);
    this.resizing = false;
    this.observe();
  }

  private now(): number {
    return Date.now();
  }
}
