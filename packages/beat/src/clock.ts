/**
 * The scheduler's clock: the time, and timers. The system clock is the default; a `ManualClock`
 * lets tests move time by hand (a DST change, a week of outage) without waiting for it.
 */

/** Cancels a timer. */
export type CancelTimer = () => void;

/** Where a scheduler gets the time and its timers from. */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Calls `callback` once after `delay` ms; returns a function that cancels it. */
  setTimer(callback: () => void, delay: number): CancelTimer;
}

/** setTimeout's longest delay; longer waits are split, as the scheduler re-checks on waking. */
const MAX_TIMEOUT = 2_147_483_647;

/** `Date.now()` and `setTimeout`. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(callback, delay) {
    const handle = setTimeout(callback, Math.min(Math.max(0, delay), MAX_TIMEOUT));
    return () => clearTimeout(handle);
  },
};

interface ManualTimer {
  at: number;
  seq: number;
  callback: () => void;
}

/**
 * A clock that only moves when told to, for tests. Timers run inside {@link ManualClock.advance},
 * in time order, with the clock set to each timer's time.
 */
export class ManualClock implements Clock {
  private time: number;
  private timers: ManualTimer[] = [];
  private seq = 0;

  constructor(start: Date | number) {
    this.time = new Date(start).getTime();
  }

  now(): number {
    return this.time;
  }

  setTimer(callback: () => void, delay: number): CancelTimer {
    const timer = { at: this.time + Math.max(0, delay), seq: this.seq++, callback };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((other) => other !== timer);
    };
  }

  /**
   * Moves the clock `ms` forward, running every timer that comes due on the way. After each timer,
   * and at the end, awaits `settle` (by default one turn of the event loop): pass the scheduler's
   * `idle` so that what a timer started has finished before time moves on.
   */
  async advance(ms: number, settle: () => Promise<void> = nextTurn): Promise<void> {
    await this.advanceTo(this.time + ms, settle);
  }

  /** Like {@link ManualClock.advance}, to an absolute time (never backwards). */
  async advanceTo(time: number | Date, settle: () => Promise<void> = nextTurn): Promise<void> {
    const target = Math.max(this.time, new Date(time).getTime());
    await settle();
    for (;;) {
      const due = this.timers.filter((timer) => timer.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((timer) => timer !== due);
      this.time = Math.max(this.time, due.at);
      due.callback();
      await settle();
    }
    this.time = target;
    await settle();
  }

  /** How many timers are armed (for tests). */
  get pendingTimers(): number {
    return this.timers.length;
  }
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
