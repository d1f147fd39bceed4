/**
 * A timer for any delay. Node's `setTimeout` takes at most 2^31-1 ms (~24.8 days) and fires a
 * longer delay after 1 ms, so a `'30d'` time limit would kill its task at once; this one waits the
 * whole delay, in chunks Node accepts.
 */

/** The longest delay `setTimeout` honours (ms). */
export const MAX_TIMER_DELAY = 2_147_483_647;

/** A pending {@link setLongTimeout}: clear it, or let it not keep the process alive. */
export interface LongTimeout {
  /** Cancels the timer (idempotent). */
  clear(): void;
  /** Lets the process exit while only this timer is pending; returns the timer. */
  unref(): LongTimeout;
}

/**
 * Calls `callback` once after `delay` ms, however long (`Infinity` never fires; a negative or NaN
 * delay fires on the next timer turn). No clock is read: each chunk waits at least its length, so
 * the sum never comes early.
 */
export function setLongTimeout(callback: () => void, delay: number): LongTimeout {
  let left = delay > 0 ? delay : 0;
  let handle: NodeJS.Timeout | undefined;
  let referenced = true;
  const arm = (): void => {
    const chunk = Math.min(left, MAX_TIMER_DELAY);
    left -= chunk;
    handle = setTimeout(() => (left > 0 ? arm() : callback()), chunk);
    if (!referenced) handle.unref();
  };
  arm();
  const timer: LongTimeout = {
    clear() {
      clearTimeout(handle);
      left = 0;
    },
    unref() {
      referenced = false;
      handle?.unref();
      return timer;
    },
  };
  return timer;
}

/** Clears a {@link LongTimeout}, if any (like `clearTimeout(undefined)`). */
export function clearLongTimeout(timer: LongTimeout | undefined): void {
  timer?.clear();
}
