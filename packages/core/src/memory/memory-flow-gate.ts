/**
 * Flow control of the memory broker, with the Redis broker's semantics: concurrency slots tied to
 * leases, rate budgets as GCRA (a held task books the next token and is held until it is due),
 * unique locks and debounce windows (each ended when its task is leased or dropped).
 */
import type {
  ConcurrencyBudget,
  DebounceWindow,
  MessageLimits,
  RateBudget,
  RateSetting,
  UniqueLock,
} from '../flow/message-limits';

/** How often spent rate budgets and expired locks are swept out, at most. */
const SWEEP_INTERVAL_MS = 1_000;

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
  /** Debounce key -> the id waiting out its window, and until when the lock is kept (a window past its start). */
  private readonly debounces = new Map<string, { id: string; until: number }>();
  /** Ids whose start time was booked when they were held for their rate. */
  private readonly booked = new Set<string>();
  /** When spent budgets and expired locks are next swept out (epoch ms). */
  private nextSweep = 0;

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

  /**
   * The id waiting out `debounce`'s window (`waiting(id)` says whether it still waits for its start
   * time, not yet due, leased or held for a limit), or undefined.
   */
  debounceHolder(debounce: DebounceWindow, waiting: (id: string) => boolean, now: number): string | undefined {
    const lock = this.debounces.get(debounce.key);
    return lock && lock.until > now && waiting(lock.id) ? lock.id : undefined;
  }

  /** Makes `id`, due at `eta`, the task that `debounce`'s sends collapse into. */
  lockDebounce(id: string, debounce: DebounceWindow, eta: number): void {
    this.debounces.set(debounce.key, { id, until: eta + debounce.window });
  }

  /** Ends `debounce`'s window if `id` holds it (it was leased, or is gone). */
  unlockDebounce(id: string, debounce: DebounceWindow | undefined): void {
    if (debounce && this.debounces.get(debounce.key)?.id === id) this.debounces.delete(debounce.key);
  }

  /** Whether `id` is held for its rate (it booked a start time). */
  isBooked(id: string): boolean {
    return this.booked.has(id);
  }

  /** Frees the slot `id` held, if any; returns the held ids of its scope to wake, oldest first. */
  release(id: string, concurrency: ConcurrencyBudget | undefined): string[] {
    const slots = concurrency && this.slots.get(concurrency.key);
    if (!concurrency || !slots?.delete(id)) return [];
    if (slots.size === 0) this.slots.delete(concurrency.key);
    return [...(this.waiting.get(concurrency.key) ?? [])];
  }

  /** Drops `id` from the held list of its scope (it was woken, or is gone). */
  unwait(id: string, concurrency: ConcurrencyBudget): void {
    const list = this.waiting.get(concurrency.key);
    const index = list?.indexOf(id) ?? -1;
    if (list && index >= 0) list.splice(index, 1);
    if (list?.length === 0) this.waiting.delete(concurrency.key);
  }

  /** Drops every trace of a task that ended before it ran (revoked, purged): its place in line, booking, lock. */
  forget(id: string, limits: MessageLimits): void {
    if (limits.concurrency) this.unwait(id, limits.concurrency);
    this.booked.delete(id);
    this.unlock(id, limits.unique);
    this.unlockDebounce(id, limits.debounce);
  }

  /** How many budgets, slot scopes, lines of held tasks, locks and bookings it keeps: bounded by what is live. */
  get size(): number {
    const { arrivals, slots, waiting, locks, debounces, booked } = this;
    return arrivals.size + slots.size + waiting.size + locks.size + debounces.size + booked.size;
  }

  private takeToken(id: string, task: string, rate: RateBudget, now: number): number {
    if (this.booked.delete(id)) return now;
    this.sweep(now);
    const { limit, per, burst } = this.overrides.get(task) ?? rate;
    const interval = per / limit;
    const arrival = Math.max(this.arrivals.get(rate.key) ?? now, now);
    this.arrivals.set(rate.key, arrival + interval);
    const due = arrival - (burst - 1) * interval;
    if (due > now) this.booked.add(id);
    return Math.ceil(due);
  }

  /**
   * Drops budgets whose next start has passed (the same as no budget: a start now takes a fresh
   * token) and expired locks, at most once a second, so keys that are used once do not pile up.
   */
  private sweep(now: number): void {
    if (now < this.nextSweep) return;
    this.nextSweep = now + SWEEP_INTERVAL_MS;
    for (const [key, arrival] of this.arrivals) if (arrival <= now) this.arrivals.delete(key);
    for (const [key, lock] of this.locks) if (lock.until <= now) this.locks.delete(key);
    for (const [key, lock] of this.debounces) if (lock.until <= now) this.debounces.delete(key);
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
