/**
 * The EventLog interface: the app's capped, ordered log of events. Ids start with
 * `<epoch ms>-<sequence>` (as Redis Streams make them; Redis adds `.<index>` within a write) and grow
 * with time, so a reader resumes after the last id it saw; `<ms>-<seq>` alone is a valid cursor.
 */
import type { CeleriacEvent, StoredEvent } from './event-types';

/** Options of {@link EventLog.read}. */
export interface EventReadOptions {
  /** Most events returned. */
  readonly count: number;
  /** Wait up to this many ms for an event when none is there (0: answer at once). */
  readonly block: number;
  /** Ends a blocked read early (it then resolves with no events). */
  readonly signal?: AbortSignal;
}

/**
 * Where events are kept, part of a result backend (`backend.events`). Writers hand events to
 * `ResultBackend.store(entries, events)` so they leave with the records; `append` is for the rest.
 */
export interface EventLog {
  /** Appends events, oldest first. */
  append(events: readonly CeleriacEvent[]): Promise<void>;
  /** Events after the id `after` (exclusive), oldest first; waits (no polling) up to `block` ms for the first. */
  read(after: string, options: EventReadOptions): Promise<StoredEvent[]>;
  /** The last `limit` events (before the id `before`, when given), oldest first. */
  recent(limit: number, before?: string): Promise<StoredEvent[]>;
  /** The id of the newest event, or `'0-0'` when the log is empty. */
  lastId(): Promise<string>;
}
