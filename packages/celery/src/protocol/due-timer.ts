/**
 * Items waiting for a due time in this process (Celery messages taken with an eta in the future,
 * as a Celery worker holds them), with one timer for the earliest, to wake a blocked wait.
 */

/** Items by due time. */
export class DueTimer<T> {
  private readonly items = new Map<T, number>();
  private readonly listeners = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;

  /** Adds an item due at `at` (epoch ms). */
  add(item: T, at: number): void {
    this.items.set(item, at);
    this.arm();
  }

  /** The due time of a waiting item, or undefined when it is not waiting. */
  etaOf(item: T): number | undefined {
    return this.items.get(item);
  }

  /** How many waiting items match. */
  count(matches: (item: T) => boolean): number {
    let total = 0;
    for (const item of this.items.keys()) if (matches(item)) total += 1;
    return total;
  }

  /** Removes and returns up to `count` items that are due, earliest first. */
  takeDue(count: number): T[] {
    const now = Date.now();
    const due = [...this.items].filter(([, at]) => at <= now).sort((a, b) => a[1] - b[1]);
    const taken = due.slice(0, Math.max(0, count)).map(([item]) => item);
    for (const item of taken) this.items.delete(item);
    if (taken.length > 0) this.arm();
    return taken;
  }

  /** Calls `listener` once when the earliest item comes due (at once if one is due); returns a canceller. */
  onNextDue(listener: () => void): () => void {
    const once = () => {
      this.listeners.delete(once);
      listener();
    };
    this.listeners.add(once);
    this.arm();
    return () => this.listeners.delete(once);
  }

  /** Removes and returns every waiting item. */
  clear(): T[] {
    const all = [...this.items.keys()];
    this.items.clear();
    this.arm();
    return all;
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.items.size === 0 || this.listeners.size === 0) return;
    const next = Math.min(...this.items.values());
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        for (const listener of [...this.listeners]) listener();
      },
      Math.max(0, next - Date.now()),
    );
    this.timer.unref();
  }
}
