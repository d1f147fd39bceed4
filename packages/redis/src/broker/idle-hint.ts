/**
 * What the last reservation that emptied its queues learned: which queues, and the earliest due time
 * of their delayed messages. The next wait on the same queues starts from it instead of asking Redis
 * again; a message published since then sets the wake-up marker, so the hint cannot make a wait miss it.
 */

/** The idle hint of one broker. */
export class IdleHint {
  private hint: { queues: string; nextDue: number | undefined } | undefined;

  /** Notes that `queues` (in this order) are drained, with the next due time if any. */
  set(queues: readonly string[], nextDue: number | undefined): void {
    this.hint = { queues: queues.join(','), nextDue };
  }

  /** Forgets the hint: the last reservation left work behind. */
  clear(): void {
    this.hint = undefined;
  }

  /** Whether the last reservation found `queues` drained. */
  drained(queues: readonly string[]): boolean {
    return this.hint?.queues === queues.join(',');
  }

  /** Takes the hint for `queues` (undefined when it is about other queues or there is none), and forgets it. */
  take(queues: readonly string[]): { nextDue: number | undefined } | undefined {
    const hint = this.drained(queues) ? this.hint : undefined;
    this.hint = undefined;
    return hint;
  }
}
