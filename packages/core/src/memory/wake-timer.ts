/** One re-armable timer that fires at an absolute time (long delays are split under setTimeout's limit). */
import { MAX_TIMER_DELAY } from '../internal/long-timeout';

/** Fires `callback` once at the time last given to `at()`. */
export class WakeTimer {
  private handle: NodeJS.Timeout | undefined;
  private due = Infinity;

  constructor(private readonly callback: () => void) {}

  /** Fires at `time` (epoch ms), replacing any earlier arming. */
  at(time: number): void {
    if (this.handle && time === this.due) return;
    this.cancel();
    this.due = time;
    const wait = Math.min(Math.max(0, time - Date.now()), MAX_TIMER_DELAY);
    this.handle = setTimeout(() => {
      this.handle = undefined;
      if (Date.now() >= this.due) {
        this.due = Infinity;
        this.callback();
      } else {
        this.at(this.due);
      }
    }, wait);
  }

  /** Disarms the timer. */
  cancel(): void {
    if (this.handle) clearTimeout(this.handle);
    this.handle = undefined;
    this.due = Infinity;
  }
}
