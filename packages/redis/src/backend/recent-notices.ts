/**
 * The last finished-task notices that reached this client, so a wait on a task sent here that starts
 * after its notice (a moment too late, or a second wait on the same handle) still finds the record
 * without a read. It
 * also tells when a read can be skipped: a task sent after the reply channel was listened to, whose
 * notice is not here and cannot have been evicted, has not finished yet.
 */

/** How many notices are kept. */
const CAPACITY = 1_000;

interface Notice {
  text: string;
  /** When it arrived (epoch ms). */
  at: number;
}

/** A bounded, insertion-ordered map of ready-state notices (record text by task id). */
export class RecentNotices {
  private readonly notices = new Map<string, Notice>();
  /** When the reply channel subscription was confirmed (epoch ms), once it is. */
  listeningSince: number | undefined;
  /** When the newest notice evicted so far had arrived (epoch ms); older arrivals are all gone. */
  private evictedUpTo = 0;

  /** Keeps a notice. */
  add(id: string, text: string): void {
    this.notices.delete(id);
    this.notices.set(id, { text, at: Date.now() });
    if (this.notices.size > CAPACITY) {
      const [oldest, notice] = this.notices.entries().next().value as [string, Notice];
      this.notices.delete(oldest);
      this.evictedUpTo = notice.at;
    }
  }

  /** Drops the notice of `id` (its record was forgotten: a later run must not look finished). */
  delete(id: string): void {
    this.notices.delete(id);
  }

  /**
   * The notice of `id`, if kept and it arrived after `sentAt` (when this process sent the task). A
   * notice from before, or for a task sent elsewhere, is not trusted: the task may have run again
   * under its id since (a failed task retried from the registry by another process), so the wait
   * reads instead.
   */
  find(id: string, sentAt: number | undefined): string | undefined {
    const notice = this.notices.get(id);
    return notice !== undefined && sentAt !== undefined && notice.at >= sentAt ? notice.text : undefined;
  }

  /**
   * True when a task sent at `sentAt` cannot have finished unnoticed: it was sent after the channel
   * was listened to, and every notice evicted since arrived before it was sent.
   */
  wouldHaveSeen(sentAt: number): boolean {
    return this.listeningSince !== undefined && sentAt > this.listeningSince && sentAt > this.evictedUpTo;
  }
}
