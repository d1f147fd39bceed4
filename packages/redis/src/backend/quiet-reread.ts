/**
 * The waits' safety net: when nothing was heard on the notice channels for a while and something is
 * still awaited, the awaited records are read again. Notices are pub/sub, so one published while a
 * subscription was down (or never re-made) is gone; a wait must still resolve from the stored record.
 * The quiet period doubles after each re-read that nothing interrupted (a long task costs a read at
 * 5 s, 15 s, 35 s, ... then one a minute) and starts again at the first notice heard.
 */

/** The first quiet period before a re-read (ms). */
const FIRST_QUIET_MS = 5_000;
/** The longest quiet period between two re-reads (ms). */
const MAX_QUIET_MS = 60_000;

/** Re-reads what is awaited once the notice channels have been quiet for a while. */
export class QuietReread {
  private timer: NodeJS.Timeout | undefined;
  private quiet = FIRST_QUIET_MS;
  private heardSince = false;

  /**
   * @param awaiting - true while some wait, many-wait or listener is pending.
   * @param reread - reads the awaited records again and delivers what is ready.
   */
  constructor(
    private readonly awaiting: () => boolean,
    private readonly reread: () => void,
  ) {}

  /** A notice arrived: the channels are alive, the next quiet period starts short. */
  heard(): void {
    this.heardSince = true;
    this.quiet = FIRST_QUIET_MS;
  }

  /** Something began waiting: makes sure a re-read is scheduled. */
  arm(): void {
    if (this.timer !== undefined) return;
    this.schedule();
  }

  /** Stops (closing). */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    this.heardSince = false;
    // Never keeps the process alive: a wait does that through its own promise's owner.
    this.timer = setTimeout(() => this.fire(), this.quiet).unref();
  }

  private fire(): void {
    this.timer = undefined;
    if (!this.awaiting()) return;
    if (!this.heardSince) {
      this.reread();
      this.quiet = Math.min(MAX_QUIET_MS, this.quiet * 2);
    }
    this.schedule();
  }
}
