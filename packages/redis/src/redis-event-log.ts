/**
 * The event log on Redis: one stream per app (`<prefix>:{<prefix>}:events`), capped with
 * `MAXLEN ~`. Writers add their XADDs to a write already going out (see `xaddArgs`); readers block
 * in XREAD on a connection of their own, so a tail waits without polling.
 */
import type { CeleriacEvent, EventLog, EventReadOptions, StoredEvent } from '@celeriac/core';
import type { RedisConnection } from './connection';
import { corked } from './connection';
import type { KeySpace } from './keys';
import { unavailable } from './unavailable';

/** Stream entries as ioredis returns them: [id, [field, value, ...]]. */
type StreamEntry = [string, string[]];

/** An EventLog on a Redis stream. */
export class RedisEventLog implements EventLog {
  constructor(
    private readonly connection: RedisConnection,
    private readonly keys: KeySpace,
    private readonly maxLength: number,
  ) {}

  /** Issues the XADDs of `events` on the command client (inside a caller's corked write, they join it). */
  add(events: readonly CeleriacEvent[]): Array<Promise<unknown>> {
    const { client } = this.connection;
    return events.map((event) => client.xadd(this.keys.events, 'MAXLEN', '~', this.maxLength, '*', 'e', JSON.stringify(event)));
  }

  async append(events: readonly CeleriacEvent[]): Promise<void> {
    if (events.length === 0) return;
    await Promise.all(corked(this.connection.client, () => this.add(events))).catch((error: unknown) => {
      throw unavailable(error, 'append events', this.connection);
    });
  }

  async read(after: string, options: EventReadOptions): Promise<StoredEvent[]> {
    if (options.block <= 0) {
      const reply = (await this.connection.client.xread('COUNT', options.count, 'STREAMS', this.keys.events, after).catch((error: unknown) => {
        throw unavailable(error, 'read events', this.connection);
      })) as Array<[string, StreamEntry[]]> | null;
      return parse(reply?.[0]?.[1] ?? []);
    }
    const { signal } = options;
    if (signal?.aborted) return [];
    const blocking = this.connection.acquireBlocking();
    const onAbort = () => void blocking.unblock(this.connection.client);
    try {
      await blocking.ready();
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) return [];
      const reply = (await blocking.client.xread('COUNT', options.count, 'BLOCK', options.block, 'STREAMS', this.keys.events, after)) as Array<[string, StreamEntry[]]> | null;
      return parse(reply?.[0]?.[1] ?? []);
    } catch (error) {
      if (signal?.aborted) return [];
      throw unavailable(error, 'read events', this.connection);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.connection.releaseBlocking(blocking);
    }
  }

  async recent(limit: number, before?: string): Promise<StoredEvent[]> {
    if (limit <= 0) return [];
    const entries = (await this.connection.client.xrevrange(this.keys.events, before === undefined ? '+' : `(${before}`, '-', 'COUNT', limit).catch((error: unknown) => {
      throw unavailable(error, 'read events', this.connection);
    })) as StreamEntry[];
    return parse(entries.reverse());
  }

  async lastId(): Promise<string> {
    const entries = (await this.connection.client.xrevrange(this.keys.events, '+', '-', 'COUNT', 1).catch((error: unknown) => {
      throw unavailable(error, 'read events', this.connection);
    })) as StreamEntry[];
    return entries[0]?.[0] ?? '0-0';
  }
}

/** Entries to events; an entry something else wrote, that does not parse, is skipped. */
function parse(entries: readonly StreamEntry[]): StoredEvent[] {
  const events: StoredEvent[] = [];
  for (const [eventId, fields] of entries) {
    const index = fields.indexOf('e');
    try {
      const event = JSON.parse(fields[index + 1] ?? '') as CeleriacEvent;
      if (typeof event === 'object' && event !== null && typeof event.type === 'string') events.push({ ...event, eventId });
    } catch {
      // not an event of ours
    }
  }
  return events;
}
