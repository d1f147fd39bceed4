/**
 * `app.events`: the event log, read back. `stream()` tails it (blocking reads, no polling) from a
 * point in the past or from now; `recent()` returns the last events that match a filter.
 */
import type { ResultBackend } from '../backend';
import { backendSupports } from '../supports';
import { toMilliseconds, type Duration } from '../duration';
import { CeleriacError } from '../errors';
import type { EventLog } from './event-log';
import { eventIdBefore } from './event-ids';
import type { CeleriacEventType, StoredEvent } from './event-types';

/** How long one blocking read waits before it is renewed (it returns at once when an event comes). */
const BLOCK_MS = 5_000;
/** Events read per round trip. */
const PAGE = 500;

/** Which events to keep. */
export interface EventFilter {
  /** Only events of these types. */
  readonly type?: CeleriacEventType | readonly CeleriacEventType[];
  /** Only events of this task id. */
  readonly task?: string;
}

/** Options of {@link AppEvents.stream}. */
export interface EventStreamOptions extends EventFilter {
  /**
   * Where to start: an event id (resume after it), a duration back from now (`'10m'`), or a Date.
   * @defaultValue now: only events from here on
   */
  readonly since?: string | number | Date;
  /** Ends the stream. */
  readonly signal?: AbortSignal;
  /**
   * Wait for new events once caught up; `false` ends the stream there instead.
   * @defaultValue `true`
   */
  readonly follow?: boolean;
}

/** Options of {@link AppEvents.recent}. */
export interface RecentEventsOptions extends EventFilter {
  /**
   * Most events returned (the newest that match).
   * @defaultValue `100`
   */
  readonly limit?: number;
}

/** Reads the app's event log. */
export class AppEvents {
  constructor(private readonly backend: () => ResultBackend) {}

  /** Tails the log: an async iterator of events, oldest first, until `signal` aborts. */
  async *stream(options: EventStreamOptions = {}): AsyncGenerator<StoredEvent, void, undefined> {
    const log = this.log();
    const { signal } = options;
    const keep = matcher(options);
    let cursor = await this.cursorOf(log, options.since);
    const follow = options.follow ?? true;
    while (signal?.aborted !== true) {
      const events = await log.read(cursor, {
        count: PAGE,
        block: follow ? BLOCK_MS : 0,
        ...(signal ? { signal } : {}),
      });
      for (const event of events) {
        cursor = event.eventId;
        if (keep(event)) yield event;
      }
      if (!follow && events.length < PAGE) return;
    }
  }

  /** The newest events that match, oldest first. */
  async recent(options: RecentEventsOptions = {}): Promise<StoredEvent[]> {
    const log = this.log();
    const limit = options.limit ?? 100;
    const keep = matcher(options);
    const found: StoredEvent[] = [];
    let before: string | undefined;
    while (found.length < limit) {
      const page = await log.recent(PAGE, before);
      found.unshift(...page.filter(keep));
      if (page.length < PAGE) break;
      before = page[0]?.eventId;
    }
    return found.slice(-limit);
  }

  private log(): EventLog {
    const backend = this.backend();
    if (!backendSupports(backend, 'events'))
      throw new CeleriacError(
        'CELERIAC_NO_EVENT_LOG',
        `${backend.capabilities.transport} keeps no event log. Use the Redis or memory backend, which do.`,
      );
    return backend.events;
  }

  private async cursorOf(log: EventLog, since: EventStreamOptions['since']): Promise<string> {
    if (since === undefined) return log.lastId();
    if (since instanceof Date) return eventIdBefore(since.getTime());
    if (typeof since === 'string' && /^\d+-\d+(\.\d+)?$/.test(since)) return since;
    return eventIdBefore(Date.now() - toMilliseconds(since as Duration, 'since'));
  }
}

function matcher(filter: EventFilter): (event: StoredEvent) => boolean {
  const types =
    filter.type === undefined
      ? undefined
      : new Set<string>(typeof filter.type === 'string' ? [filter.type] : filter.type);
  return (event) =>
    (types === undefined || types.has(event.type)) &&
    (filter.task === undefined || ('taskId' in event && event.taskId === filter.task));
}
