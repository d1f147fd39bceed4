/**
 * One queue of the memory broker: its messages, dead letters and flow gate, and the flow-control
 * steps the broker takes as a message is published, leased and ends (see memory-flow-gate.ts).
 */
import type { DeadLetter, PublishOutcome } from '../broker';
import type { MessageLimits, RateSetting } from '../flow/message-limits';
import type { Envelope } from '../message';
import { MemoryFlowGate } from './memory-flow-gate';

/** Where a message is: waiting to be leased, waiting for its time (or a slot), or leased. */
export type Place = 'ready' | 'delayed' | 'active';

/** A message of the memory broker. */
export interface Entry {
  id: string;
  queue: string;
  priority: number;
  body: string;
  deliveries: number;
  place: Place;
  /** Order among equal priorities (ready) */
  seq: number;
  /** Due time (delayed; `Infinity` while held for a concurrency slot) or lease deadline (active), epoch ms. */
  at: number;
  limits?: MessageLimits;
}

/** A dead letter taken out of its queue, with the limits its message had. */
export type TakenDeadLetter = DeadLetter & { limits?: MessageLimits };

/** A queue's messages by id, its dead letters (with the limits they had), and its flow gate. */
export class MemoryQueue {
  readonly entries = new Map<string, Entry>();
  dead: DeadLetter[] = [];
  /** Limits of dead letters, by id: a requeued dead letter is limited again. */
  readonly deadLimits = new Map<string, MessageLimits>();
  readonly gate: MemoryFlowGate;

  constructor(rates: ReadonlyMap<string, RateSetting>) {
    this.gate = new MemoryFlowGate(rates);
  }

  /**
   * The id of the live task holding `envelope`'s unique key (the send creates no task), or
   * undefined when the send goes ahead (having taken the key, unless it is taken when the task runs).
   */
  claimUnique(envelope: Envelope, now: number): string | undefined {
    const unique = envelope.limits?.unique;
    if (!unique) return undefined;
    const holder = this.gate.uniqueHolder(unique, (id) => this.alive(id, unique.while), now);
    if (holder === undefined && unique.while !== 'running') this.gate.lock(envelope.id, unique, now);
    return holder;
  }

  /**
   * The outcome of a debounced `envelope` that opens no window of its own (see `PublishOutcome`),
   * or undefined when it goes ahead and opens one (having taken its key).
   */
  debounce(envelope: Envelope, now: number): PublishOutcome | undefined {
    const debounce = envelope.limits?.debounce;
    if (!debounce) return undefined;
    const holder = this.gate.debounceHolder(debounce, (id) => this.waitingOut(id), now);
    const eta = envelope.eta ?? now;
    if (envelope.replaces) {
      const entry = holder === envelope.id ? this.entries.get(holder) : undefined;
      if (!entry) return holder === undefined ? 'missed' : { debounceInto: holder };
      // The last send wins: its message and its start time.
      Object.assign(entry, { body: envelope.body, priority: envelope.priority, at: eta, limits: envelope.limits });
      this.gate.lockDebounce(entry.id, debounce, eta);
      return { duplicateOf: entry.id };
    }
    if (holder !== undefined) return { debounceInto: holder };
    this.gate.lockDebounce(envelope.id, debounce, eta);
    return undefined;
  }

  /**
   * A unique task leaves 'queued' when leased: a 'queued' lock ends, a 'running' one begins. A
   * debounced task's window ends: a send from now on opens a new one.
   */
  leased(entry: Entry, now: number): void {
    const unique = entry.limits?.unique;
    if (unique?.while === 'queued') this.gate.unlock(entry.id, unique);
    if (unique?.while === 'running') this.gate.lock(entry.id, unique, now);
    this.gate.unlockDebounce(entry.id, entry.limits?.debounce);
  }

  /** Frees the slot a leased entry held; returns the oldest task that was held for it, to make ready. */
  freeSlot(entry: Entry): Entry | undefined {
    const concurrency = entry.limits?.concurrency;
    if (!concurrency) return undefined;
    for (const id of this.gate.release(entry.id, concurrency)) {
      this.gate.unwait(id, concurrency);
      const held = this.entries.get(id);
      if (held?.place === 'delayed' && held.at === Infinity) return held;
    }
    return undefined;
  }

  /** Removes a message that has not run (revoked, purged), with its place in line and its lock. */
  drop(entry: Entry): void {
    this.entries.delete(entry.id);
    if (entry.limits) this.gate.forget(entry.id, entry.limits);
  }

  /** Moves a leased entry (its slot already freed) to the dead letters, releasing its unique key. */
  bury(entry: Entry, reason: string, now: number): DeadLetter {
    this.entries.delete(entry.id);
    this.gate.unlock(entry.id, entry.limits?.unique);
    if (entry.limits) this.deadLimits.set(entry.id, entry.limits);
    const dead: DeadLetter = { id: entry.id, queue: entry.queue, body: entry.body, reason, at: now };
    this.dead.push(dead);
    return dead;
  }

  /** Removes the dead letters with these ids (all without `ids`) and returns them with their limits. */
  takeDead(ids?: readonly string[]): TakenDeadLetter[] {
    const wanted = ids ? new Set(ids) : undefined;
    const taken = this.dead.filter((dead) => !wanted || wanted.has(dead.id));
    this.dead = this.dead.filter((dead) => wanted !== undefined && !wanted.has(dead.id));
    return taken.map((dead) => {
      const limits = this.deadLimits.get(dead.id);
      this.deadLimits.delete(dead.id);
      return limits ? { ...dead, limits } : dead;
    });
  }

  /** Puts a dead letter back as a ready message with a fresh delivery count and the limits it had. */
  revive(dead: TakenDeadLetter, seq: number, now: number): void {
    const { id, queue, body, limits } = dead;
    const entry: Entry = { id, queue, body, priority: 0, deliveries: 0, place: 'ready', seq, at: now };
    if (limits) entry.limits = limits;
    this.entries.set(id, entry);
  }

  /** Whether task `id` waits for its start time (delayed, and not held for a concurrency slot or its rate). */
  private waitingOut(id: string): boolean {
    const entry = this.entries.get(id);
    return entry?.place === 'delayed' && entry.at !== Infinity && !this.gate.isBooked(id);
  }

  /** Whether task `id` still holds a unique lock of mode `mode`: waiting or running, or running for 'running'. */
  private alive(id: string, mode: string): boolean {
    const entry = this.entries.get(id);
    return entry !== undefined && (mode !== 'running' || entry.place === 'active');
  }
}
