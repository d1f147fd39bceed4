/**
 * Flow control of the memory broker, with the Redis broker's semantics: concurrency slots tied to
 * leases, and rate budgets as GCRA (a held task books the next token and is held until it is due).
 */
import type { ConcurrencyBudget, MessageLimits, RateBudget, RateSetting, UniqueLock } from '../flow/message-limits';

/** Hold a task until this time (epoch ms); `Infinity` holds it until a slot of its scope frees. */
export type HoldUntil = number;

/**
 * Admission decisions of one queue and the state behind them (as on Redis, where a queue's limit
 * keys share its hash tag, budgets count per queue); every call is one atomic step of the broker.
 */
export class MemoryFlowGate {
  constructor(private readonly overrides: ReadonlyMap<string, RateSetting>) {}

  /** Scope -> ids holding one of its slots (their leases). */
  private readonly slots = new Map<string, Set<string>>();
  /** Scope -> ids held for a slot, oldest first (may name ids since removed: callers check). */
  private readonly waiting = new Map<string, string[]>();
  /** Rate scope -> theoretical arrival time of the next start (GCRA), epoch ms. */
  private readonly arrivals = new Map<string, number>();
  /** Unique key -> the id holding it, and until when (its ttl). */
  private readonly locks = new Map<string, { id: string; until: number }>();
  /** Ids whose start time was booked when they were held for their rate. */
  private readonly booked = new Set<string>();

  /** Undefined when `id` may start now (its slot is taken); otherwise until when to hold it. */
  admit(id: string, limits: MessageLimits, now: number): HoldUntil | undefined {
    const { concurrency, rate } = limits;
    if (concurrency && !this.holds(concurrency.key, id) && this.used(concurrency.key) >= concurrency.limit) {
      this.waitingFor(concurrency.key).push(id);
      return Infinity;
    }
    if (rate) {
      const due = this.takeToken(id, limits.task, rate, now);
      if (due > now) return due;
    }
    if (concurrency) this.slotsOf(concurrency.key).add(id);
    return undefined;
  }

  /**
   * The id holding `unique`'s key while it is alive (`alive(id)` says whether its task is still
   * waiting or running, or running for a 'running' lock), or undefined.
   */
  uniqueHolder(unique: UniqueLock, alive: (id: string) => boolean, now: number): string | undefined {
    const lock = this.locks.get(unique.key);
    if (!lock || lock.until <= now) return undefined;
    // A throttle's window holds whatever became of its task.
    return unique.while === 'window' || alive(lock.id) ? lock.id : undefined;
  }

  /** Takes `unique`'s key for `id`, over a stale holder. */
  lock(id: string, unique: UniqueLock, now: number): void {
    this.locks.set(unique.key, { id, until: now + unique.ttl });
  }

  /** Releases `unique`'s key if `id` still holds it. */
  unlock(id: string, unique: UniqueLock | undefined): void {
    if (unique && unique.while !== 'window' && this.locks.get(unique.key)?.id === id) this.locks.delete(unique.key);
  }

  /** Frees the slot `id` held, if any; returns the held ids of its scope to wake, oldest first. */
  release(id: string, concurrency: ConcurrencyBudget | undefined): string[] {
    if (!concurrency || !this.slots.get(concurrency.key)?.delete(id)) return [];
    return this.waiting.get(concurrency.key) ?? [];
  }

  /** Drops `id` from the held list of its scope (it was woken). */
  unwait(id: string, concurrency: ConcurrencyBudget): void {
    const list = this.waiting.get(concurrency.key);
    const index = list?.indexOf(id) ?? -1;
    if (list && index >= 0) list.splice(index, 1);
  }

  private takeToken(id: string, task: string, rate: RateBudget, now: number): number {
    if (this.booked.delete(id)) return now;
    const { limit, per, burst } = this.overrides.get(task) ?? rate;
    const interval = per / limit;
    const arrival = Math.max(this.arrivals.get(rate.key) ?? now, now);
    this.arrivals.set(rate.key, arrival + interval);
    const due = arrival - (burst - 1) * interval;
    if (due > now) this.booked.add(id);
    return Math.ceil(due);
  }

  private holds(key: string, id: string): boolean {
    return this.slots.get(key)?.has(id) ?? false;
  }

  private used(key: string): number {
    return this.slots.get(key)?.size ?? 0;
  }

  private slotsOf(key: string): Set<string> {
    let set = this.slots.get(key);
    if (!set) this.slots.set(key, (set = new Set()));
    return set;
  }

  private waitingFor(key: string): string[] {
    let list = this.waiting.get(key);
    if (!list) this.waiting.set(key, (list = []));
    return list;
  }
}
