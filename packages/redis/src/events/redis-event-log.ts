/**
 * The event log on Redis: one stream per app (`<prefix>:{<prefix>}:events`), capped with
 * `MAXLEN ~`. Each write adds one entry holding all of its events (see event-entry.ts), so a
 * worker's batch of a hundred settled tasks costs one XADD, in the write already going out with
 * their records (see `add`). An event's id is its entry's id and its index there (`<ms>-<seq>.<i>`).
 * Readers block in XREAD on a connection of their own, so a tail waits without polling.
 */
import type { CeleriacEvent, EventLog, EventReadOptions, StoredEvent } from '@celeriac/core';
import { BlockingCallDropped } from '../connection/blocking-client';
import type { RedisConnection } from '../connection/connection';
import { corkedThroughTick } from '../connection/connection';
import { decodeEventEntry, encodeEventEntry } from './event-entry';
import type { KeySpace } from '../keys';
import { unavailable } from '../connection/unavailable';

/** How long past its own BLOCK timeout a read may take before its connection is dropped (ms). */
const BLOCK_MARGIN_MS = 5_000;

/** Stream entries as ioredis returns them: [id, [field, value, ...]]. */
type StreamEntry = [string, string[]];

/** An EventLog on a Redis stream. */
export class RedisEventLog implements EventLog {
  constructor(
    private readonly connection: RedisConnection,
    private readonly keys: KeySpace,
    private readonly maxLength: number,
  ) {}

  /** Issues the XADD of `events` on the command client (inside a caller's corked write, it joins it). */
  add(events: readonly CeleriacEvent[]): Array<Promise<unknown>> {
    if (events.length === 0) return [];
    return [
      this.connection.client.xadd(this.keys.events, 'MAXLEN', '~', this.maxLength, '*', ...encodeEventEntry(events)),
    ];
  }

  /** Appends `events`; a command issued before this tick ends (a sender's publish) joins the write. */
  async append(events: readonly CeleriacEvent[]): Promise<void> {
    await Promise.all(corkedThroughTick(this.connection.client, () => this.add(events))).catch((error: unknown) => {
      throw unavailable(error, 'append events', this.connection);
    });
  }

  async read(after: string, options: EventReadOptions): Promise<StoredEvent[]> {
    const { entry, index } = cursorOf(after);
    // The rest of a partly read entry first, then the entries after it.
    const rest =
      index === undefined
        ? []
        : expand(await this.command(() => this.connection.client.xrange(this.keys.events, entry, entry))).filter(
            (event) => indexOf(event) > index,
          );
    const block = rest.length > 0 ? 0 : options.block;
    if (block <= 0) {
      const reply = await this.command(
        () =>
          this.connection.client.xread('COUNT', options.count, 'STREAMS', this.keys.events, entry) as Promise<Array<
            [string, StreamEntry[]]
          > | null>,
      );
      return [...rest, ...expand(reply?.[0]?.[1] ?? [])];
    }
    const { signal } = options;
    if (signal?.aborted) return [];
    const blocking = this.connection.acquireBlocking();
    try {
      const call = { via: this.connection.client, signal, key: this.keys.events, bound: block + BLOCK_MARGIN_MS };
      const reply = await blocking.call(
        call,
        (client) =>
          client.xread('COUNT', options.count, 'BLOCK', block, 'STREAMS', this.keys.events, entry) as Promise<Array<
            [string, StreamEntry[]]
          > | null>,
      );
      return expand(reply?.[0]?.[1] ?? []);
    } catch (error) {
      if (signal?.aborted || error instanceof BlockingCallDropped) return [];
      throw unavailable(error, 'read events', this.connection);
    } finally {
      this.connection.releaseBlocking(blocking);
    }
  }

  async recent(limit: number, before?: string): Promise<StoredEvent[]> {
    if (limit <= 0) return [];
    const end = before === undefined ? undefined : cursorOf(before);
    // Each entry holds at least one event: `limit` entries hold enough.
    const entries = await this.command(() =>
      this.connection.client.xrevrange(this.keys.events, end?.entry ?? '+', '-', 'COUNT', limit),
    );
    const events = expand(entries.reverse()).filter((event) => end === undefined || isBefore(event.eventId, end));
    return events.slice(-limit);
  }

  async lastId(): Promise<string> {
    const entries = await this.command(() => this.connection.client.xrevrange(this.keys.events, '+', '-', 'COUNT', 1));
    return expand(entries).at(-1)?.eventId ?? '0-0';
  }

  private command<T>(run: () => Promise<T>): Promise<T> {
    return run().catch((error: unknown) => {
      throw unavailable(error, 'read events', this.connection);
    });
  }
}

/** An event id (or a stream id, for a cursor before a time) split into its entry and index. */
function cursorOf(id: string): { entry: string; index: number | undefined } {
  const dot = id.indexOf('.');
  return dot < 0 ? { entry: id, index: undefined } : { entry: id.slice(0, dot), index: Number(id.slice(dot + 1)) };
}

function indexOf(event: StoredEvent): number {
  return cursorOf(event.eventId).index ?? 0;
}

function isBefore(id: string, end: { entry: string; index: number | undefined }): boolean {
  const { entry } = cursorOf(id);
  if (entry !== end.entry) return true; // XREVRANGE from end.entry: every other entry is older
  return end.index !== undefined && (cursorOf(id).index ?? 0) < end.index;
}

/** Entries to events; anything in the stream that is not an event of ours is skipped. */
function expand(entries: readonly StreamEntry[]): StoredEvent[] {
  return entries.flatMap(([entryId, fields]) => decodeEventEntry(entryId, fields));
}
