/**
 * The last finished-task notices that reached this client with nobody waiting yet, so a wait that
 * starts a moment too late still finds its record without a read. It also tells when a read can be
 * skipped: a task sent after the reply channel was listened to, whose notice is neither here nor
 * possibly evicted, has not finished yet.
 */

/** How many unclaimed notices are kept. */
const CAPACITY = 1_000;

/** A bounded, insertion-ordered map of unclaimed notices (record text by task id). */
export class RecentNotices {
  private readonly texts = new Map<string, string>();
  /** When the reply channel subscription was confirmed (epoch ms), once it is. */
  listeningSince: number | undefined;
  /** When a notice was last evicted to make room (epoch ms). */
  private lastEviction = 0;

  /** Keeps a notice nobody waited for. */
  add(id: string, text: string): void {
    this.texts.delete(id);
    this.texts.set(id, text);
    if (this.texts.size > CAPACITY) {
      const oldest = this.texts.keys().next().value as string;
      this.texts.delete(oldest);
      this.lastEviction = Date.now();
    }
  }

  /** Takes the notice of `id`, if kept. */
  take(id: string): string | undefined {
    const text = this.texts.get(id);
    if (text !== undefined) this.texts.delete(id);
    return text;
  }

  /**
   * True when a task sent at `sentAt` cannot have finished unnoticed: it was sent after the channel
   * was listened to, and no notice was evicted since.
   */
  wouldHaveSeen(sentAt: number): boolean {
    return this.listeningSince !== undefined && sentAt > this.listeningSince && sentAt > this.lastEviction;
  }
}
