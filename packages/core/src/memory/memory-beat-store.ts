/**
 * The memory beat store: the BeatStore contract inside one process, for tests and single-process
 * apps. Every method runs without awaiting inside, so each step is atomic. The clock is injectable
 * so that a scheduler tested with a fake clock sees its lease expire on that clock.
 */
import type { BeatStore, ClaimedSlot, ClaimOutcome, LeaseState, SlotMark, StoredBeatEntry } from '../beat-store';

/** Options of a {@link MemoryBeatStore}. */
export interface MemoryBeatStoreOptions {
  /**
   * The clock leases expire by.
   * @defaultValue `Date.now`
   */
  now?: () => number;
}

/** A BeatStore kept in this process's memory. */
export class MemoryBeatStore implements BeatStore {
  private lease: { owner: string; until: number } | undefined;
  private readonly slots = new Map<string, number>();
  private readonly fingerprints = new Map<string, string>();
  /** Entry name -> when its slot in `slots` was claimed; absent while that slot is a starting point. */
  private readonly claimedAt = new Map<string, number>();
  /** Entries kept as JSON text, so readers get copies as from a remote store. */
  private readonly entries = new Map<string, string>();
  private readonly listeners = new Set<() => void>();
  private readonly now: () => number;

  constructor(options: MemoryBeatStoreOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  async acquireLease(owner: string, ttl: number): Promise<LeaseState> {
    const current = this.currentLease();
    if (current && current.owner !== owner) return { held: false, ttl: current.until - this.now() };
    this.lease = { owner, until: this.now() + ttl };
    return { held: true, ttl };
  }

  async releaseLease(owner: string): Promise<boolean> {
    if (this.currentLease()?.owner !== owner) return false;
    this.lease = undefined;
    return true;
  }

  async leaseHolder(): Promise<{ owner: string; ttl: number } | undefined> {
    const current = this.currentLease();
    return current && { owner: current.owner, ttl: current.until - this.now() };
  }

  async syncSlots(owner: string, marks: readonly SlotMark[]): Promise<ReadonlyMap<string, number> | 'not-leader'> {
    if (this.currentLease()?.owner !== owner) return 'not-leader';
    const listed = new Set(marks.map((mark) => mark.name));
    for (const name of [...this.slots.keys(), ...this.fingerprints.keys(), ...this.claimedAt.keys()]) {
      if (!listed.has(name)) this.forgetSlot(name);
    }
    const result = new Map<string, number>();
    for (const mark of marks) {
      if (!this.slots.has(mark.name) || this.fingerprints.get(mark.name) !== mark.fingerprint) {
        this.slots.set(mark.name, mark.since);
        this.fingerprints.set(mark.name, mark.fingerprint);
        this.claimedAt.delete(mark.name);
      }
      result.set(mark.name, this.slots.get(mark.name) as number);
    }
    return result;
  }

  async claimSlot(owner: string, name: string, slot: number, at: number): Promise<ClaimOutcome> {
    if (this.currentLease()?.owner !== owner) return 'not-leader';
    const last = this.slots.get(name);
    if (last !== undefined && last >= slot) return 'stale';
    this.slots.set(name, slot);
    this.claimedAt.set(name, at);
    return 'claimed';
  }

  async lastSlots(): Promise<ReadonlyMap<string, number>> {
    return new Map(this.slots);
  }

  async lastClaims(): Promise<ReadonlyMap<string, ClaimedSlot>> {
    const claims = new Map<string, ClaimedSlot>();
    for (const [name, at] of this.claimedAt) {
      const slot = this.slots.get(name);
      if (slot !== undefined) claims.set(name, { slot, at });
    }
    return claims;
  }

  async settleClaim(name: string, slot: number): Promise<void> {
    if (this.slots.get(name) === slot) this.claimedAt.delete(name);
  }

  async listEntries(): Promise<StoredBeatEntry[]> {
    return [...this.entries.values()].map((text) => JSON.parse(text) as StoredBeatEntry);
  }

  async putEntry(entry: StoredBeatEntry): Promise<void> {
    this.entries.set(entry.name, JSON.stringify(entry));
    this.notify();
  }

  async removeEntry(name: string): Promise<boolean> {
    const removed = this.entries.delete(name);
    this.forgetSlot(name);
    if (removed) this.notify();
    return removed;
  }

  async onEntriesChange(listener: () => void): Promise<() => Promise<void>> {
    // A wrapper per subscription, so subscribing one function twice needs two unsubscribes.
    const wrapper = () => listener();
    this.listeners.add(wrapper);
    return async () => {
      this.listeners.delete(wrapper);
    };
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }

  private currentLease(): { owner: string; until: number } | undefined {
    if (this.lease && this.lease.until <= this.now()) this.lease = undefined;
    return this.lease;
  }

  private forgetSlot(name: string): void {
    this.slots.delete(name);
    this.fingerprints.delete(name);
    this.claimedAt.delete(name);
  }

  private notify(): void {
    // Asynchronously, as from a remote store: a listener never runs inside the caller's put.
    for (const listener of this.listeners) queueMicrotask(() => this.listeners.has(listener) && listener());
  }
}
