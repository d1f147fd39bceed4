/**
 * The event log on PostgreSQL (table `events`, migration 202). Writers take an advisory lock held to
 * the end of their transaction before taking ids, so ids grow in commit order: a reader resuming
 * after the last id it saw misses nothing. An id is `<ms>-<seq>`: the write's server time (never
 * earlier than the last event's) and the sequence. A blocked read LISTENs on the schema's events
 * channel, which every write notifies, so a tail waits without polling. The oldest events are
 * trimmed in blocks as ids cross each thousand.
 */
import type { CeleriacEvent, EventLog, EventReadOptions, StoredEvent } from '@celeriac/core';
import type { PoolClient } from 'pg';
import type { PostgresConnection } from '../connection/postgres-connection';
import { channelName } from './channels';
import { inTransaction } from './transaction';
import { orUnreachable } from './unreachable';

/** Events are trimmed when ids cross a multiple of this. */
const TRIM_EVERY = 1_000;

/** Runs one statement: on the pool, or on the client of a caller's transaction. */
type Run = <Row extends object>(text: string, values: unknown[]) => Promise<Row[]>;

/** An EventLog in PostgreSQL, sharing the backend's connection set. */
export class PostgresEventLog implements EventLog {
  private readonly table: string;
  private readonly channel: string;
  private listening: Promise<() => Promise<void>> | undefined;
  private readonly wakers = new Set<() => void>();

  constructor(
    private readonly connection: PostgresConnection,
    private readonly maxLength: number,
  ) {
    this.table = `${connection.schema}.events`;
    this.channel = channelName(connection.schema, 'events');
  }

  async append(events: readonly CeleriacEvent[]): Promise<void> {
    if (events.length === 0) return;
    await orUnreachable('append events', this.connection, () =>
      inTransaction(this.connection, (client) => this.write(runOn(client), events)),
    );
  }

  /**
   * Inserts `events` in the caller's transaction (whose client `run` uses), notifies readers at its
   * commit, and trims the oldest when the ids crossed a thousand.
   */
  async write(run: Run, events: readonly CeleriacEvent[]): Promise<void> {
    if (events.length === 0) return;
    await run(`SELECT pg_advisory_xact_lock(hashtext($1))`, [this.table]);
    const rows = await run<{ first: string; last: string }>(
      `WITH clock AS (
         -- Never before the last event's time, so ids grow in (ms, seq) even if the clock steps back.
         SELECT greatest(
           floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint,
           coalesce((SELECT ms FROM ${this.table} ORDER BY id DESC LIMIT 1), 0)) AS ms),
       added AS (
         INSERT INTO ${this.table} (ms, event)
         SELECT clock.ms, e.event::json FROM clock, unnest($1::text[]) WITH ORDINALITY AS e(event, n) ORDER BY e.n
         RETURNING id)
       SELECT min(id) AS first, max(id) AS last, pg_notify($2, '') FROM added`,
      [events.map((event) => JSON.stringify(event)), this.channel],
    );
    const first = Number(rows[0]?.first ?? 0);
    const last = Number(rows[0]?.last ?? 0);
    if (Math.floor((first - 1) / TRIM_EVERY) !== Math.floor(last / TRIM_EVERY) && last > this.maxLength) {
      await run(`DELETE FROM ${this.table} WHERE id <= $1`, [last - this.maxLength]);
    }
  }

  async read(after: string, options: EventReadOptions): Promise<StoredEvent[]> {
    const { count, block, signal } = options;
    if (block <= 0) return this.after(after, count);
    if (signal?.aborted) return [];
    await this.listen();
    // Woken by any write from here on, so none committed between the read and the wait is missed.
    let wake: () => void = () => undefined;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    this.wakers.add(wake);
    const onAbort = () => wake();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) wake(); // It may have aborted while the LISTEN was being set up.
    const timer = setTimeout(wake, block);
    try {
      const found = signal?.aborted ? [] : await this.after(after, count);
      if (found.length > 0 || signal?.aborted) return found;
      await woken;
      return signal?.aborted ? [] : await this.after(after, count);
    } finally {
      clearTimeout(timer);
      this.wakers.delete(wake);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async recent(limit: number, before?: string): Promise<StoredEvent[]> {
    if (limit <= 0) return [];
    const [ms, seq] = cursor(before ?? `${Number.MAX_SAFE_INTEGER}-0`);
    const rows = await this.query(
      `SELECT id, ms, event::text AS event FROM ${this.table}
       WHERE ms < $1 OR (ms = $1 AND id < $2::numeric) ORDER BY id DESC LIMIT $3`,
      [ms, seq, limit],
    );
    return rows.reverse().flatMap(stored);
  }

  async lastId(): Promise<string> {
    const rows = await this.query(`SELECT id, ms, '{}' AS event FROM ${this.table} ORDER BY id DESC LIMIT 1`, []);
    const row = rows[0];
    return row ? `${row.ms}-${row.id}` : '0-0';
  }

  /** Stops listening (the backend closes). */
  async close(): Promise<void> {
    for (const wake of this.wakers) wake();
    const unlisten = await this.listening?.catch(() => undefined);
    await unlisten?.();
  }

  private async after(after: string, count: number): Promise<StoredEvent[]> {
    const [ms, seq] = cursor(after);
    const rows = await this.query(
      `SELECT id, ms, event::text AS event FROM ${this.table}
       WHERE ms > $1 OR (ms = $1 AND id > $2::numeric) ORDER BY id LIMIT $3`,
      [ms, seq, count],
    );
    return rows.flatMap(stored);
  }

  private listen(): Promise<unknown> {
    if (!this.listening) {
      const { listener } = this.connection;
      // A write while the session was away wakes nobody: a reconnect wakes every blocked read.
      listener.onResume(() => this.wakers.forEach((wake) => wake()));
      this.listening = listener.listen(this.channel, () => this.wakers.forEach((wake) => wake()));
      this.listening.catch(() => (this.listening = undefined));
    }
    return this.listening;
  }

  private query(text: string, values: unknown[]): Promise<Array<{ id: string; ms: string; event: string }>> {
    return orUnreachable('read events', this.connection, () => this.connection.query(text, values));
  }
}

/** A statement runner on `client`. */
export function runOn(client: PoolClient): Run {
  return async <Row extends object>(text: string, values: unknown[]) =>
    (await client.query<Row & Record<string, unknown>>(text, values)).rows;
}

/** A cursor's time and sequence; the sequence as text, since a time cursor's is past 2^63. */
function cursor(id: string): [ms: number, seq: string] {
  const dash = id.indexOf('-');
  const dot = id.indexOf('.', dash);
  const ms = Number(dash < 0 ? id : id.slice(0, dash));
  const seq = dash < 0 ? '0' : id.slice(dash + 1, dot < 0 ? undefined : dot);
  return [Number.isFinite(ms) ? ms : 0, /^\d+$/.test(seq) ? seq : '0'];
}

/** A row as an event; a row edited by hand into something else is skipped. */
function stored(row: { id: string; ms: string; event: string }): StoredEvent[] {
  try {
    const event = JSON.parse(row.event) as CeleriacEvent;
    if (typeof event !== 'object' || event === null || typeof event.type !== 'string') return [];
    return [{ ...event, eventId: `${row.ms}-${row.id}` }];
  } catch {
    return [];
  }
}
