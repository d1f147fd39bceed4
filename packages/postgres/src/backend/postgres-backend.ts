/**
 * The PostgreSQL result backend: a row per task in `results` (upserted a batch per statement, a
 * ready record never replaced by one in between), expired rows swept in batches, chord counters in
 * `group_counters`, and completion notices by NOTIFY on the schema's results channel, heard on the
 * process's one LISTEN session. A wait listens first, then reads: a record committed in between is
 * either read or announced after. After the session reconnects, everything awaited is read again.
 */
import {
  RecordsRefusedError,
  type BackendCapabilities,
  type BackendSettings,
  type CeleriacEvent,
  type ChangeSubscription,
  type Codec,
  type GroupProgress,
  type ManyWaitOptions,
  type ResultBackend,
  type StoreEntry,
  type TaskRecord,
  type WaitOptions,
} from '@celeriac/core';
import { closedWhileWaiting, isReadyState } from '@celeriac/core/internal';
import { randomUUID } from 'node:crypto';
import type { PostgresConnection } from '../connection/postgres-connection';
import { POSTGRES_BACKEND_CAPABILITIES } from './capabilities';
import { channelName } from './channels';
import { ExpirySweeper, type SweepReport } from './expiry-sweeper';
import { GroupCounter } from './group-counter';
import { parseNotice } from './notices';
import { PostgresEventLog, runOn } from './postgres-event-log';
import { inTransaction } from './transaction';
import { encodeStore, type RecordRows } from './record-rows';
import { ResultWaits } from './result-waits';
import { isConnectionFailure, orUnreachable } from './unreachable';

/** Options of a {@link PostgresBackend}. */
export interface PostgresBackendOptions {
  /**
   * How often (ms) this process deletes expired rows; 0 turns the timer off (another process sweeps).
   * @defaultValue 60_000
   */
  readonly sweepInterval?: number;
  /**
   * Most rows one delete statement of the sweep removes.
   * @defaultValue 500
   */
  readonly sweepBatch?: number;
}

const DEFAULTS = { sweepInterval: 60_000, sweepBatch: 500 } satisfies Required<PostgresBackendOptions>;

/** What the member waits of a `waitForMany` end with once it has its answer (never seen by callers). */
const ANSWERED = Symbol('answered');
/** Most events the log keeps unless the app says (`events.maxLength`). */
const DEFAULT_EVENTS_MAX_LENGTH = 100_000;
/** Most ids one read or one upsert carries. */
const CHUNK = 1_000;
/** How soon a read of awaited records that failed to reach the server is tried again. */
const REREAD_RETRY_MS = 250;

/** A ResultBackend on PostgreSQL, sharing the app's connection set. */
export class PostgresBackend implements ResultBackend {
  readonly capabilities: BackendCapabilities = POSTGRES_BACKEND_CAPABILITIES;
  private readonly waits = new ResultWaits();
  private readonly channel: string;
  /** Names this instance in its notices: it tells its own waiters itself and skips what it sent. */
  private readonly instance = randomUUID();
  private readonly groups: GroupCounter;
  private readonly sweeper: ExpirySweeper;
  private listening: Promise<unknown> | undefined;
  private stopListening: Array<() => unknown> = [];
  /** Waits begun in this tick, read together at its end. */
  private unread: Array<{ id: string; pending: () => boolean }> = [];
  private closed = false;
  /** The app's event log, a table beside the results. */
  readonly events: PostgresEventLog;

  constructor(
    private readonly connection: PostgresConnection,
    private readonly settings: BackendSettings,
    private readonly codec: Codec,
    options: PostgresBackendOptions = {},
  ) {
    const { sweepInterval, sweepBatch } = { ...DEFAULTS, ...options };
    this.channel = channelName(connection.schema, 'results');
    this.groups = new GroupCounter(connection);
    this.events = new PostgresEventLog(connection, settings.eventsMaxLength ?? DEFAULT_EVENTS_MAX_LENGTH);
    this.sweeper = new ExpirySweeper(connection, sweepInterval, sweepBatch);
    connection.retain();
    this.sweeper.start();
  }

  async store(entries: readonly StoreEntry[], events: readonly CeleriacEvent[] = []): Promise<void> {
    const { rows, notices, stored, refused } = encodeStore(entries, this.codec, this.instance);
    if (events.length > 0) {
      // Events and records in one transaction: whoever a notice wakes finds the events in the log.
      await orUnreachable('store task records and events', this.connection, () =>
        inTransaction(this.connection, async (client) => {
          const run = runOn(client);
          await this.events.write(run, events);
          await this.write(rows, run);
        }),
      );
    } else if (rows.ids.length > 0) {
      await orUnreachable('store task records', this.connection, () =>
        this.write(rows, (text, values) => this.connection.query(text, values)),
      );
    }
    if (notices.length > 0) {
      await orUnreachable('announce task records', this.connection, () => this.announce(notices));
    }
    // This process's own waiters and listeners are told here, in order, as a notice would tell them.
    for (const [entry, text] of stored) {
      if (this.waits.has(entry.record.id)) this.waits.deliver(this.codec.parse(text) as TaskRecord, text);
    }
    if (refused.size > 0) throw new RecordsRefusedError(refused);
  }

  /** Upserts the rows, one statement per chunk of a thousand. */
  private async write(rows: RecordRows, run: (text: string, values: unknown[]) => Promise<unknown>): Promise<void> {
    const { schema } = this.connection;
    for (let start = 0; start < rows.ids.length; start += CHUNK) {
      const end = start + CHUNK;
      await run(
        `INSERT INTO ${schema}.results AS r (id, state, final, record, expires_at)
           SELECT id, state, final, record::json, now() + ttl * interval '1 millisecond'
           FROM unnest($1::text[], $2::text[], $3::boolean[], $4::text[], $5::bigint[])
             AS t(id, state, final, record, ttl)
           ON CONFLICT (id) DO UPDATE SET
             state = excluded.state, final = excluded.final, record = excluded.record, expires_at = excluded.expires_at
           -- A state in between never replaces a live ready record (a write that came late).
           WHERE excluded.final OR NOT r.final OR r.expires_at <= now()`,
        [
          rows.ids.slice(start, end),
          rows.states.slice(start, end),
          rows.finals.slice(start, end),
          rows.records.slice(start, end),
          rows.ttls.slice(start, end),
        ],
      );
    }
  }

  /**
   * Sends a store's notices in a statement of their own, after the rows committed. A transaction
   * that notifies holds the server's notification-queue lock through its commit, WAL flush
   * included, so a NOTIFY in the upsert's transaction would make concurrent stores commit one at a
   * time (no group commit): about three times fewer stores a second here. This one writes no WAL
   * and holds the lock briefly. Waiters never read before the commit, since the notice comes after.
   * (A process that dies between the two leaves its notices unsent; a worker then has not acked the
   * task, which runs again and stores again.)
   */
  private async announce(notices: readonly string[]): Promise<void> {
    await this.connection.query('SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload', [
      this.channel,
      notices,
    ]);
  }

  async get(id: string): Promise<TaskRecord | undefined> {
    return (await this.getMany([id]))[0];
  }

  async getMany(ids: readonly string[]): Promise<Array<TaskRecord | undefined>> {
    const texts = await this.readTexts(ids);
    return ids.map((id) => {
      const text = texts.get(id);
      return text === undefined ? undefined : (this.codec.parse(text) as TaskRecord);
    });
  }

  /** The stored text of each live record of `ids`, by id. */
  private async readTexts(ids: readonly string[]): Promise<Map<string, string>> {
    const texts = new Map<string, string>();
    for (let start = 0; start < ids.length; start += CHUNK) {
      const rows = await orUnreachable('read results', this.connection, () =>
        this.connection.query<{ id: string; record: string }>(
          `SELECT id, record::text AS record FROM ${this.connection.schema}.results
           WHERE id = ANY($1::text[]) AND expires_at > now()`,
          [ids.slice(start, start + CHUNK)],
        ),
      );
      for (const row of rows) texts.set(row.id, row.record);
    }
    return texts;
  }

  waitFor(id: string, signal?: AbortSignal, options: WaitOptions = {}): Promise<TaskRecord> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (this.closed) return Promise.reject(closedWhileWaiting());
    const { promise, pending } = this.waits.add(id, signal, options.until);
    // The waits begun in this tick are read together, once listening.
    if (this.unread.length === 0) queueMicrotask(() => this.readUnread());
    this.unread.push({ id, pending });
    return promise;
  }

  /**
   * Waits for many tasks: a `waitFor` each (one read for all of them, as they begin in one tick),
   * resolved once all are ready or `stopOn` accepts one. The waits still pending then are ended, so
   * that none stays registered for a task nobody awaits any more.
   */
  waitForMany(
    ids: readonly string[],
    signal?: AbortSignal,
    options: ManyWaitOptions = {},
  ): Promise<Array<TaskRecord | undefined>> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    const { stopOn, ...hints } = options;
    const records = new Array<TaskRecord | undefined>(ids.length);
    if (ids.length === 0) return Promise.resolve(records);
    // One signal for the member waits: the caller's abort, or the end of this wait.
    const members = new AbortController();
    const forward = () => members.abort(signal?.reason);
    signal?.addEventListener('abort', forward, { once: true });
    const finish = () => {
      signal?.removeEventListener('abort', forward);
      members.abort(ANSWERED);
    };
    let left = ids.length;
    return new Promise((resolve, reject) => {
      for (const [index, id] of ids.entries()) {
        this.waitFor(id, members.signal, hints).then(
          (record) => {
            records[index] = record;
            left -= 1;
            if (left > 0 && stopOn?.(record) !== true) return;
            finish();
            resolve(records);
          },
          (error: unknown) => {
            if (error === ANSWERED) return;
            finish();
            reject(error);
          },
        );
      }
    });
  }

  onChange(id: string, listener: (record: TaskRecord) => void): ChangeSubscription {
    const stop = this.waits.listen(id, listener);
    const ready = this.listen().then(() => undefined);
    ready.catch(() => undefined);
    return Object.assign(() => stop(), { ready });
  }

  async forget(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await orUnreachable('forget results', this.connection, () =>
      this.connection.query(`DELETE FROM ${this.connection.schema}.results WHERE id = ANY($1::text[])`, [ids]),
    );
  }

  groupMemberDone(groupId: string, index: number, size: number, ttl: number): Promise<GroupProgress> {
    return orUnreachable('count a group member', this.connection, () =>
      this.groups.memberDone(groupId, index, size, ttl),
    );
  }

  /** Deletes the expired rows now (the timer does it every `sweepInterval`); resolves with what went. */
  sweepExpired(): Promise<SweepReport> {
    return orUnreachable('delete expired results', this.connection, () => this.sweeper.sweep());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.waits.failAll(closedWhileWaiting());
    await this.sweeper.stop();
    await this.events.close();
    await this.listening?.catch(() => undefined);
    await Promise.allSettled(this.stopListening.map((stop) => stop()));
    await this.connection.release();
  }

  /** LISTENs on the results channel once; every wait and listener goes through this first. */
  private listen(): Promise<unknown> {
    if (this.closed) return Promise.reject(closedWhileWaiting());
    if (!this.listening) {
      const { listener } = this.connection;
      this.stopListening.push(listener.onResume(() => this.reread(this.waits.ids())));
      this.listening = listener
        .listen(this.channel, (payload) => this.onNotice(payload))
        .then(
          (unlisten) => this.stopListening.push(unlisten),
          (error: unknown) => {
            this.listening = undefined;
            throw error;
          },
        );
    }
    return this.listening;
  }

  /** Listens, then reads the records of the waits begun in this tick. */
  private readUnread(): void {
    const batch = this.unread;
    this.unread = [];
    const ids = () => [...new Set(batch.filter((wait) => wait.pending()).map((wait) => wait.id))];
    if (ids().length === 0 || this.closed) return;
    this.listen().then(
      () => this.reread(ids()),
      (error: unknown) => this.waits.fail(ids(), error),
    );
  }

  /**
   * Reads the records of `ids` still awaited and delivers them. A read that fails to reach the
   * server is tried again shortly (the listener's reconnect also reads again); another failure ends
   * those waits.
   */
  private reread(ids: readonly string[]): void {
    const awaited = ids.filter((id) => this.waits.has(id));
    if (awaited.length === 0 || this.closed) return;
    this.readTexts(awaited).then(
      (texts) => texts.forEach((text) => this.waits.deliver(this.codec.parse(text) as TaskRecord, text)),
      (error: unknown) => {
        if (isConnectionFailure(error)) setTimeout(() => this.reread(awaited), REREAD_RETRY_MS).unref();
        else this.waits.fail(awaited, error);
      },
    );
  }

  /** A notice from any process: records addressed here are delivered as they are; ready ids are read. */
  private onNotice(payload: string): void {
    const notice = parseNotice(payload);
    if (notice.from === this.instance) return;
    const told = new Set<string>();
    for (const [to, id, text] of notice.changes) {
      if (to !== this.settings.clientId || !this.waits.has(id)) continue;
      try {
        const record = this.codec.parse(text) as TaskRecord;
        if (isReadyState(record.state)) told.add(id);
        this.waits.deliver(record, text);
      } catch {
        told.delete(id); // Undecodable here: read the row instead.
      }
    }
    this.reread(notice.ids.filter((id) => !told.has(id)));
  }
}
