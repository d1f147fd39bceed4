/**
 * The BeatStore interface: what the periodic-task scheduler (`@celeriac/beat`) keeps in shared
 * storage. A leader lease so that one scheduler fires at a time, the last fired slot of each entry
 * (compare-and-set, so a slot is claimed once) with when it was claimed (so that the next leader can
 * send a claimed slot whose task may never have reached the broker), and the entries added at run
 * time as plain data.
 * Core knows no cron: schedules are stored as {@link ScheduleSpec} data and interpreted by the beat package.
 */
import type { SerializedValue } from './codec';
import type { Duration } from './duration';
import type { ApplyOptions } from './options';

/** A schedule as data: what the beat package's `crontab()`, `every()` and dates turn into. */
export type ScheduleSpec =
  /** A cron expression (5 fields, or 6 with seconds first) in a time zone (IANA name; UTC when absent). */
  | { readonly kind: 'crontab'; readonly expression: string; readonly tz?: string }
  /** Every `every` ms, on the slots `anchor + k × every` (anchor: epoch ms, 0 when absent). */
  | { readonly kind: 'every'; readonly every: number; readonly anchor?: number }
  /** Once, at `at` (epoch ms). */
  | { readonly kind: 'at'; readonly at: number };

/**
 * What a scheduler does with slots that passed while no scheduler ran: `'skip'` fires none of
 * them, `'once'` fires the latest one, `'all'` fires each (the latest 100 at most).
 */
export type CatchUpPolicy = 'skip' | 'once' | 'all';

/** The names of the call options a periodic entry may carry (see {@link BeatTaskOptions}). */
export const BEAT_OPTION_KEYS = [
  'queue',
  'priority',
  'retries',
  'timeLimit',
  'softTimeLimit',
  'ignoreResult',
  'resultTtl',
  'headers',
  'expires',
] as const;

/** The call options a periodic entry may carry: the JSON-able subset of {@link ApplyOptions}. */
export interface BeatTaskOptions extends Pick<ApplyOptions, Exclude<(typeof BEAT_OPTION_KEYS)[number], 'expires'>> {
  /** Do not run the task when it was not started this long after it was sent. */
  expires?: Duration;
}

/** An entry added at run time, as a store keeps it. */
export interface StoredBeatEntry {
  /** Unique among the app's entries; names the slots' task ids. */
  readonly name: string;
  /** The task name. */
  readonly task: string;
  readonly schedule: ScheduleSpec;
  /** The arguments, serialized by the app's codec. */
  readonly args: SerializedValue;
  readonly options: BeatTaskOptions;
  readonly catchUp: CatchUpPolicy;
  /** Epoch ms of the last add or change; slots after it are due. */
  readonly updatedAt: number;
  /**
   * With the app's `secret`: the HMAC of the fields above (see `signBeatEntry`); unsigned entries are then not fired.
   */
  readonly signature?: string;
}

/** What a lease call found. */
export interface LeaseState {
  /** True when the caller holds the lease after the call. */
  readonly held: boolean;
  /** Milliseconds until the lease ends, whoever holds it (0 when nobody does). */
  readonly ttl: number;
}

/** One entry as the leader knows it, for {@link BeatStore.syncSlots}. */
export interface SlotMark {
  readonly name: string;
  /** Identifies the schedule; when it differs from the stored one, the entry starts over at `since`. */
  readonly fingerprint: string;
  /** Epoch ms from which slots count for a new or changed entry. */
  readonly since: number;
}

/** An entry's last slot as a leader claimed it, for {@link BeatStore.lastClaims}. */
export interface ClaimedSlot {
  /** The slot (epoch ms). */
  readonly slot: number;
  /** When it was claimed (epoch ms, by the claiming scheduler's clock). */
  readonly at: number;
}

/** What a claim of a slot found. */
export type ClaimOutcome =
  /** The slot is now the entry's last fired slot: fire it. */
  | 'claimed'
  /** The entry's last fired slot is this one or later: it was fired already. */
  | 'stale'
  /** The caller does not hold the lease: it must stop firing. */
  | 'not-leader';

/**
 * Shared state of the schedulers of one app (same prefix). Implementations: the memory store
 * (`memory://`, one process) and the Redis store. `@celeriac/core/testing` holds a conformance suite.
 * Every method is one atomic step.
 */
export interface BeatStore {
  /** Takes the lease when it is free, or extends it when `owner` holds it, for `ttl` ms. */
  acquireLease(owner: string, ttl: number): Promise<LeaseState>;
  /** Gives the lease up if `owner` holds it; true when it did. */
  releaseLease(owner: string): Promise<boolean>;
  /** Who holds the lease and for how much longer, if anyone does. */
  leaseHolder(): Promise<{ owner: string; ttl: number } | undefined>;
  /**
   * As lease holder, reconciles the stored slots with the entries: an entry without a stored slot
   * or with another fingerprint gets `since` as its last slot (a starting point: it has no claim
   * then); slots and claims of entries not listed are dropped. Returns the last slot of every listed
   * entry, or `'not-leader'`.
   */
  syncSlots(owner: string, marks: readonly SlotMark[]): Promise<ReadonlyMap<string, number> | 'not-leader'>;
  /**
   * As lease holder, makes `slot` the entry's last fired slot if it is later than the stored one,
   * and records it as claimed at `at` (epoch ms).
   */
  claimSlot(owner: string, name: string, slot: number, at: number): Promise<ClaimOutcome>;
  /** The last fired slot of every entry that has one (claimed, or the starting point `syncSlots` set). */
  lastSlots(): Promise<ReadonlyMap<string, number>>;
  /**
   * The entries whose last slot was claimed (not set by `syncSlots` as a starting point), with that
   * slot and when it was claimed. A scheduler that takes over reads them to send a recent claimed
   * slot whose task never reached the broker.
   */
  lastClaims(): Promise<ReadonlyMap<string, ClaimedSlot>>;
  /**
   * Forgets the claim of the entry's `slot` (not a later one) once its task reached the broker, so
   * that `lastClaims` no longer lists it and a scheduler that takes over does not send it again (on
   * a broker that queues a second copy of an id, it would run twice).
   */
  settleClaim(name: string, slot: number): Promise<void>;
  /** The entries added at run time. */
  listEntries(): Promise<StoredBeatEntry[]>;
  /** Adds or replaces an entry and tells every listener. */
  putEntry(entry: StoredBeatEntry): Promise<void>;
  /** Removes an entry with its last slot (and claim) and tells every listener; false when there was none. */
  removeEntry(name: string): Promise<boolean>;
  /**
   * Calls `listener` after every put or remove, from any client, and after a reconnect (when
   * changes may have been missed). Resolves once listening; returns the unsubscribe function.
   */
  onEntriesChange(listener: () => void): Promise<() => Promise<void>>;
  /** Releases connections. */
  close(): Promise<void>;
}
