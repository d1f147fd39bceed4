/**
 * The beat store on PostgreSQL (tables of migration 300). The lease is one row taken by an upsert
 * that succeeds only when the row is free, lapsed or already the caller's, on the server's clock.
 * A slot is claimed by compare-and-set in the statement that checks the lease (holding the lease row
 * for share, so no takeover lands in between), so each slot is fired once. Entry changes are
 * announced by NOTIFY in the statement that makes them.
 */
import type { BeatStore, ClaimOutcome, LeaseState, SlotMark, StoredBeatEntry } from '@celeriac/core';
import type { PostgresConnection } from '../connection/postgres-connection';
import { channelName } from '../backend/channels';
import { inTransaction } from '../backend/transaction';
import { orUnreachable } from '../backend/unreachable';
import { readStoredEntry } from './stored-entry';

/** The lease row's key: one scheduler lease per app (schema). */
const LEASE = 'scheduler';

/** A BeatStore on PostgreSQL, sharing the app's connection set. */
export class PostgresBeatStore implements BeatStore {
  private readonly channel: string;
  private readonly t: { lease: string; slots: string; entries: string };
  private closed = false;

  constructor(private readonly connection: PostgresConnection) {
    const { schema } = connection;
    this.channel = channelName(schema, 'beat');
    this.t = { lease: `${schema}.beat_lease`, slots: `${schema}.beat_slots`, entries: `${schema}.beat_entries` };
    connection.retain();
  }

  async acquireLease(owner: string, ttl: number): Promise<LeaseState> {
    const rows = await this.query<{ held: boolean; ttl: number | null }>(
      'take the beat lease',
      `WITH taken AS (
         INSERT INTO ${this.t.lease} AS l (name, owner, expires_at)
         VALUES ($1, $2, clock_timestamp() + $3 * interval '1 millisecond')
         ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
         WHERE l.owner = excluded.owner OR l.expires_at <= clock_timestamp()
         RETURNING 1)
       SELECT EXISTS (SELECT 1 FROM taken) AS held,
         (SELECT ${msLeft('expires_at')} FROM ${this.t.lease} WHERE name = $1) AS ttl`,
      [LEASE, owner, Math.round(ttl)],
    );
    const row = rows[0];
    if (row?.held) return { held: true, ttl: Math.round(ttl) };
    return { held: false, ttl: Math.max(0, row?.ttl ?? 0) };
  }

  async releaseLease(owner: string): Promise<boolean> {
    const rows = await this.query(
      'release the beat lease',
      `DELETE FROM ${this.t.lease} WHERE name = $1 AND owner = $2 AND expires_at > clock_timestamp() RETURNING 1`,
      [LEASE, owner],
    );
    return rows.length > 0;
  }

  async leaseHolder(): Promise<{ owner: string; ttl: number } | undefined> {
    const rows = await this.query<{ owner: string; ttl: number }>(
      'read the beat lease',
      `SELECT owner, ${msLeft('expires_at')} AS ttl FROM ${this.t.lease}
       WHERE name = $1 AND expires_at > clock_timestamp()`,
      [LEASE],
    );
    const row = rows[0];
    return row && row.ttl > 0 ? { owner: row.owner, ttl: row.ttl } : undefined;
  }

  async syncSlots(owner: string, marks: readonly SlotMark[]): Promise<ReadonlyMap<string, number> | 'not-leader'> {
    const names = marks.map((mark) => mark.name);
    return orUnreachable('sync the beat slots', this.connection, () =>
      inTransaction(this.connection, async (client) => {
        // The lease row stays locked to the end: no scheduler takes over while the slots change.
        const lease = await client.query(
          `SELECT 1 FROM ${this.t.lease} WHERE name = $1 AND owner = $2 AND expires_at > clock_timestamp() FOR UPDATE`,
          [LEASE, owner],
        );
        if (lease.rowCount === 0) return 'not-leader';
        await client.query(`DELETE FROM ${this.t.slots} WHERE NOT (name = ANY($1::text[]))`, [names]);
        await client.query(
          `INSERT INTO ${this.t.slots} AS s (name, slot, fingerprint, claimed_at)
         SELECT name, since, fingerprint, NULL
         FROM unnest($1::text[], $2::bigint[], $3::text[]) AS m(name, since, fingerprint)
         ON CONFLICT (name) DO UPDATE SET slot = excluded.slot, fingerprint = excluded.fingerprint, claimed_at = NULL
         WHERE s.fingerprint IS DISTINCT FROM excluded.fingerprint`,
          [names, marks.map((mark) => Math.round(mark.since)), marks.map((mark) => mark.fingerprint)],
        );
        const { rows } = await client.query<{ name: string; slot: string }>(
          `SELECT name, slot FROM ${this.t.slots} WHERE name = ANY($1::text[])`,
          [names],
        );
        const slots = new Map(rows.map((row) => [row.name, Number(row.slot)]));
        return new Map(names.map((name) => [name, slots.get(name) as number]));
      }),
    );
  }

  async claimSlot(owner: string, name: string, slot: number, at: number): Promise<ClaimOutcome> {
    const rows = await this.query<{ leader: boolean; claimed: boolean }>(
      'claim a beat slot',
      `WITH leader AS (
         SELECT 1 FROM ${this.t.lease}
         WHERE name = $1 AND owner = $2 AND expires_at > clock_timestamp() FOR SHARE),
       claimed AS (
         INSERT INTO ${this.t.slots} AS s (name, slot, fingerprint, claimed_at)
         SELECT $3, $4, NULL, $5 WHERE EXISTS (SELECT 1 FROM leader)
         ON CONFLICT (name) DO UPDATE SET slot = excluded.slot, claimed_at = excluded.claimed_at
         WHERE s.slot < excluded.slot
         RETURNING 1)
       SELECT EXISTS (SELECT 1 FROM leader) AS leader, EXISTS (SELECT 1 FROM claimed) AS claimed`,
      [LEASE, owner, name, Math.round(slot), Math.round(at)],
    );
    const row = rows[0];
    return !row?.leader ? 'not-leader' : row.claimed ? 'claimed' : 'stale';
  }

  async lastSlots(): Promise<ReadonlyMap<string, number>> {
    const rows = await this.query<{ name: string; slot: string }>(
      'read the beat slots',
      `SELECT name, slot FROM ${this.t.slots} ORDER BY name`,
    );
    return new Map(rows.map((row) => [row.name, Number(row.slot)]));
  }

  async lastClaims(): Promise<ReadonlyMap<string, { slot: number; at: number }>> {
    const rows = await this.query<{ name: string; slot: string; at: string }>(
      'read the beat claims',
      `SELECT name, slot, claimed_at AS at FROM ${this.t.slots} WHERE claimed_at IS NOT NULL ORDER BY name`,
    );
    return new Map(rows.map((row) => [row.name, { slot: Number(row.slot), at: Number(row.at) }]));
  }

  async settleClaim(name: string, slot: number): Promise<void> {
    await this.query(
      'settle a beat claim',
      `UPDATE ${this.t.slots} SET claimed_at = NULL WHERE name = $1 AND slot = $2 AND claimed_at IS NOT NULL`,
      [name, Math.round(slot)],
    );
  }

  async listEntries(): Promise<StoredBeatEntry[]> {
    const rows = await this.query<{ name: string; entry: string }>(
      'list the beat entries',
      `SELECT name, entry FROM ${this.t.entries} ORDER BY name`,
    );
    return rows.map((row) => readStoredEntry(row.name, row.entry));
  }

  async putEntry(entry: StoredBeatEntry): Promise<void> {
    await this.query(
      'store a beat entry',
      `WITH put AS (
         INSERT INTO ${this.t.entries} (name, entry) VALUES ($1, $2)
         ON CONFLICT (name) DO UPDATE SET entry = excluded.entry)
       SELECT pg_notify($3, $1)`,
      [entry.name, JSON.stringify(entry), this.channel],
    );
  }

  async removeEntry(name: string): Promise<boolean> {
    const rows = await this.query<{ removed: boolean }>(
      'remove a beat entry',
      `WITH gone AS (DELETE FROM ${this.t.entries} WHERE name = $1 RETURNING 1),
       slot AS (DELETE FROM ${this.t.slots} WHERE name = $1)
       SELECT EXISTS (SELECT 1 FROM gone) AS removed,
         CASE WHEN EXISTS (SELECT 1 FROM gone) THEN pg_notify($2, $1) END AS notified`,
      [name, this.channel],
    );
    return rows[0]?.removed === true;
  }

  async onEntriesChange(listener: () => void): Promise<() => Promise<void>> {
    const { listener: session } = this.connection;
    // Notices sent while the session was away are lost: a reconnect counts as a change.
    const stopResume = session.onResume(listener);
    const unlisten = await session.listen(this.channel, () => listener());
    return async () => {
      stopResume();
      await unlisten();
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.connection.release();
  }

  private query<Row extends object>(action: string, text: string, values: unknown[] = []): Promise<Row[]> {
    return orUnreachable(action, this.connection, () =>
      this.connection.query<Row & Record<string, unknown>>(text, values),
    );
  }
}

/** SQL for the whole milliseconds from now until `column`, as an integer. */
function msLeft(column: string): string {
  return `floor(extract(epoch FROM (${column} - clock_timestamp())) * 1000)::int`;
}
