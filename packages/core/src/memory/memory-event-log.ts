/**
 * The memory event log: events kept in this process, capped at `maxLength`, with ids made like a
 * Redis Stream's (`<ms>-<sequence>`). Blocked readers wake on append.
 */
import { EventEmitter } from 'node:events';
import type { EventLog, EventReadOptions } from '../events/event-log';
import { compareEventIds } from '../events/event-ids';
import type { CeleriacEvent, StoredEvent } from '../events/event-types';

/** An EventLog in this process's memory. */
export class MemoryEventLog implements EventLog {
  private entries: StoredEvent[] = [];
  private last = { ms: 0, seq: 0 };
  private readonly appended = new EventEmitter().setMaxListeners(0);

  constructor(private readonly maxLength = 100_000) {}

  async append(events: readonly CeleriacEvent[]): Promise<void> {
    for (const event of events) {
      const ms = Date.now();
      this.last = ms > this.last.ms ? { ms, seq: 0 } : { ms: this.last.ms, seq: this.last.seq + 1 };
      // A JSON copy, as a remote log would hold: readers never share the writer's objects.
      this.entries.push({
        ...(JSON.parse(JSON.stringify(event)) as CeleriacEvent),
        eventId: `${this.last.ms}-${this.last.seq}`,
      });
    }
    if (this.entries.length > this.maxLength) this.entries = this.entries.slice(-this.maxLength);
    if (events.length > 0) this.appended.emit('append');
  }

  async read(after: string, options: EventReadOptions): Promise<StoredEvent[]> {
    const found = this.after(after, options.count);
    if (found.length > 0 || options.block <= 0 || options.signal?.aborted) return found;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.appended.off('append', done);
        options.signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, options.block);
      this.appended.on('append', done);
      options.signal?.addEventListener('abort', done, { once: true });
    });
    return this.after(after, options.count);
  }

  async recent(limit: number, before?: string): Promise<StoredEvent[]> {
    const end =
      before === undefined
        ? this.entries.length
        : this.entries.findIndex((entry) => compareEventIds(entry.eventId, before) >= 0);
    const upTo = end < 0 ? this.entries.length : end;
    return limit > 0 ? this.entries.slice(Math.max(0, upTo - limit), upTo) : [];
  }

  async lastId(): Promise<string> {
    return this.entries.at(-1)?.eventId ?? '0-0';
  }

  private after(id: string, count: number): StoredEvent[] {
    const start = this.entries.findIndex((entry) => compareEventIds(entry.eventId, id) > 0);
    return start < 0 ? [] : this.entries.slice(start, start + count);
  }
}
