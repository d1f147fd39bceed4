/**
 * The ResultBackend interface: where task states, results and errors live until their TTL passes,
 * and how callers learn, without polling, that a task finished.
 */
import type { ReplicationSettings } from './broker';
import type { BackendCapabilities } from './capabilities';
import type { RemoteError } from './errors';
import type { EventLog } from './events/event-log';
import type { CeleriacEvent } from './events/event-types';
import type { TaskState } from './states';

/** What the backend knows about one task. */
export interface TaskRecord {
  id: string;
  state: TaskState;
  /** The task name, when known. */
  task?: string;
  /** The return value (SUCCESS). */
  result?: unknown;
  /** The error (FAILURE; also RETRY, for the error that caused it). */
  error?: RemoteError;
  /** Metadata of custom states (e.g. `PROGRESS`) and the reason of REVOKED. */
  meta?: unknown;
  /** Retries so far. */
  retries?: number;
  /** Epoch ms of this state change. */
  date: number;
}

/** One record to store. */
export interface StoreEntry {
  record: TaskRecord;
  /** Time to live in ms. */
  ttl: number;
  /** The caller's notification channel from the message, for a direct completion notice. */
  replyTo?: string;
  /**
   * The record's `result` as plain JSON text, as a pool child sent it (then `record.result` is not
   * set): the backend stores it as it is, without parsing and encoding it again
   * (`Codec.stringifyWithJson`), and the record read back holds the value.
   */
  resultJson?: string;
}

/** A group's progress after one member finished (for chords). */
export interface GroupProgress {
  /** How many members have finished. */
  done: number;
  /** True for exactly one caller: the one whose member completed the group. */
  completed: boolean;
  /** True when this member was already counted (a re-run of a member task). */
  repeated: boolean;
}

/** What `onChange` returns: call it to stop listening. */
export interface ChangeSubscription {
  (): void;
  /** Resolves once changes are being listened to. */
  readonly ready: Promise<void>;
}

/** Hints for `ResultBackend.waitFor`. */
export interface WaitOptions {
  /** True when this client published the task, so its completion notice is addressed here. */
  sentHere?: boolean;
  /** Epoch ms (this process's clock) when this client sent the task, with `sentHere`. */
  sentAt?: number;
  /**
   * Ends the wait with this promise's rejection (the publish of the awaited task failed). Cheaper
   * than an AbortSignal for a condition that almost never happens: one is made per awaited task.
   */
  until?: PromiseLike<unknown>;
}

/** Options of `ResultBackend.waitForMany`. */
export interface ManyWaitOptions extends WaitOptions {
  /** Ends the wait as soon as a record arrives for which this is true (a failure, when failures propagate). */
  stopOn?: (record: TaskRecord) => boolean;
}

/** Settings every backend receives from the app. */
export interface BackendSettings {
  readonly prefix: string;
  /** This client's notification channel name; messages carry it as `replyTo`. */
  readonly clientId: string;
  /** Most events the event log keeps (approximately: older ones are trimmed in blocks). */
  readonly eventsMaxLength?: number;
  /** With `durability: 'replicated'`: stored records wait for replicas; undefined: they do not. */
  readonly replication?: ReplicationSettings;
}

/**
 * Stores task records and notifies waiters. Implementations: the memory backend and the Redis
 * backend; `@celeriac/core/testing` holds a conformance suite.
 */
export interface ResultBackend {
  /** What this backend can do; each flag set promises the members it stands for. */
  readonly capabilities: BackendCapabilities;
  /**
   * Stores records in order. Ready states (SUCCESS, FAILURE, REVOKED) wake waiters. A record the
   * store refuses (a TTL it cannot keep, a value that does not encode) fails alone: the others are
   * stored, and the call rejects with a `RecordsRefusedError` naming the refused tasks.
   * `events` are appended to the event log in the same write (a backend without a log drops them).
   */
  store(entries: readonly StoreEntry[], events?: readonly CeleriacEvent[]): Promise<void>;
  /** The app's event log, when this backend keeps one. */
  readonly events?: EventLog;
  /** The latest record of a task, or undefined when none is stored (PENDING or expired). */
  get(id: string): Promise<TaskRecord | undefined>;
  /** Many records at once, in the order of `ids`. */
  getMany(ids: readonly string[]): Promise<Array<TaskRecord | undefined>>;
  /**
   * Resolves with the record once the task is in a ready state (at once if it already is). Rejects
   * with the signal's reason when the signal aborts, or with `options.until`'s rejection.
   * Implemented with notifications, not polling.
   * `sentHere` tells that this client published the task (its notices come to this client directly).
   */
  waitFor(id: string, signal?: AbortSignal, options?: WaitOptions): Promise<TaskRecord>;
  /**
   * Optional: waits for the ready records of many tasks this client sent (a group's members) as one
   * wait, with no object per task. Resolves with the records in the order of `ids` once all are
   * ready, or once `options.stopOn` accepts one (then the tasks not finished yet have none). Rejects
   * like `waitFor`. Callers wait with `waitFor` per task where a backend lacks it.
   */
  waitForMany?(
    ids: readonly string[],
    signal?: AbortSignal,
    options?: ManyWaitOptions,
  ): Promise<Array<TaskRecord | undefined>>;
  /**
   * Calls `listener` on every stored state change of `id` (progress, retries) of a task this client
   * sent (records whose `replyTo` is this client); for other tasks an implementation may report only
   * the ready state. Returns an unsubscribe function whose `ready` resolves once changes are being
   * listened to (a remote backend subscribes first; changes stored before that may be missed).
   */
  onChange?(id: string, listener: (record: TaskRecord) => void): ChangeSubscription;
  /** Deletes a task's record. */
  forget(ids: readonly string[]): Promise<void>;
  /**
   * Atomically records that member `index` of group `groupId` (of `size` members) finished. Exactly one
   * call, the one that completes the group, sees `completed: true`; a member counted before sees
   * `repeated: true` (the group is then complete when `done === size`). Memory stays proportional to
   * `size` (one bit a member in Redis) and expires after `ttl` ms.
   */
  groupMemberDone(groupId: string, index: number, size: number, ttl: number): Promise<GroupProgress>;
  /** Releases connections and timers. */
  close(): Promise<void>;
}
