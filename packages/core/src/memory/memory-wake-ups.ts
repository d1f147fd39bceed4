/**
 * Idle workers' waits on the memory broker: a wait ends when one of its queues has a message ready,
 * woken by the change that made it ready or by one timer armed for the earliest delayed message.
 */
import type { MemoryQueues } from './memory-queues';
import { WakeTimer } from './wake-timer';

/** The waiting workers of one memory broker. */
export class MemoryWakeUps {
  private readonly waiters = new Set<{ queues: readonly string[]; wake: () => void }>();
  private readonly timer = new WakeTimer(() => this.wakeDue());

  constructor(private readonly queues: MemoryQueues) {}

  /** Resolves once one of `queues` has a message ready (at once when one has), or on `signal`. */
  wait(queues: readonly string[], signal: AbortSignal): Promise<void> {
    if (signal.aborted || this.queues.hasReady(queues)) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = {
        queues,
        wake: () => {
          this.waiters.delete(waiter);
          signal.removeEventListener('abort', waiter.wake);
          resolve();
        },
      };
      this.waiters.add(waiter);
      signal.addEventListener('abort', waiter.wake, { once: true });
      this.schedule();
    });
  }

  /** Wakes the waiters whose queues have a message ready now, and re-arms the timer for the rest. */
  wakeDue(): void {
    for (const waiter of [...this.waiters]) if (this.queues.hasReady(waiter.queues)) waiter.wake();
    this.schedule();
  }

  /** Arms one timer for the earliest delayed message, so sleeping waiters wake exactly when it is due. */
  schedule(): void {
    if (this.waiters.size === 0) return this.timer.cancel();
    const next = this.queues.earliestDue();
    if (next === Infinity) this.timer.cancel();
    else this.timer.at(next);
  }

  /** Stops the timer and ends every wait (the broker is closing). */
  close(): void {
    this.timer.cancel();
    for (const waiter of [...this.waiters]) waiter.wake();
  }
}
