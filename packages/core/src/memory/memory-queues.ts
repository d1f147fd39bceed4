/**
 * The memory broker's queues by name, and what they share: one order counter (ties among equal
 * priorities go to the older message), the paused queues, the rates set at run time, and the moves
 * that free a concurrency slot, which may make a message of the same queue ready.
 */
import type { DeadLetter, Delivery } from '../broker';
import type { RateSetting } from '../flow/message-limits';
import { MemoryQueue, type Entry } from './memory-queue';

/** Every queue of one memory broker. */
export class MemoryQueues {
  private readonly byName = new Map<string, MemoryQueue>();
  /** Queues paused by control: reservations pass them by. */
  readonly paused = new Set<string>();
  /** Rates set at run time, by task name. */
  readonly rates = new Map<string, RateSetting>();
  private seq = 0;

  /**
   * @param changed - called whenever a message may have become ready, to wake the workers waiting
   *   for it; callers that made one ready call it too.
   */
  constructor(readonly changed: () => void) {}

  /** The queue named `name`, created empty on first use. */
  get(name: string): MemoryQueue {
    let state = this.byName.get(name);
    if (!state) {
      state = new MemoryQueue(this.rates);
      this.byName.set(name, state);
    }
    return state;
  }

  /** Every queue used so far. */
  all(): IterableIterator<MemoryQueue> {
    return this.byName.values();
  }

  /** The names of every queue used so far. */
  names(): string[] {
    return [...this.byName.keys()];
  }

  /** The next place in line: a message given it goes behind every message of its priority. */
  nextSeq(): number {
    return this.seq++;
  }

  /** The entry of a delivery, while it is still leased. */
  activeEntry(delivery: Delivery): Entry | undefined {
    const entry = this.get(delivery.queue).entries.get(delivery.id);
    return entry?.place === 'active' ? entry : undefined;
  }

  /** Frees the concurrency slot a leased entry held and makes the oldest task held for it ready. */
  releaseSlot(entry: Entry): void {
    const held = this.get(entry.queue).freeSlot(entry);
    if (!held) return;
    held.place = 'ready';
    held.seq = this.nextSeq();
    this.changed();
  }

  /** Moves a leased entry to its queue's dead letters, freeing its slot. */
  bury(entry: Entry, reason: string): DeadLetter {
    this.releaseSlot(entry);
    return this.get(entry.queue).bury(entry, reason, Date.now());
  }

  /** Makes the delayed messages due by `now` ready. */
  promoteDue(now: number): void {
    for (const state of this.byName.values()) {
      for (const entry of state.entries.values()) {
        if (entry.place === 'delayed' && entry.at <= now) {
          entry.place = 'ready';
          entry.seq = this.nextSeq();
        }
      }
    }
  }

  /** Whether any of `queues` that is not paused has a message ready now. */
  hasReady(queues: readonly string[]): boolean {
    this.promoteDue(Date.now());
    return queues.some(
      (name) => !this.paused.has(name) && [...this.get(name).entries.values()].some((entry) => entry.place === 'ready'),
    );
  }

  /** The earliest due time of a delayed message in any queue (`Infinity` when none). */
  earliestDue(): number {
    let next = Infinity;
    for (const state of this.byName.values()) {
      for (const entry of state.entries.values()) if (entry.place === 'delayed' && entry.at < next) next = entry.at;
    }
    return next;
  }
}
