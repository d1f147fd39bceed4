import { Codec } from '@celeriac/core';
import { PostgresBackend, PostgresConnection } from '@celeriac/postgres';
import { freshPostgresPrefix, POSTGRES_URL, withPostgres } from '@celeriac/test-support';
import { setTimeout as delay } from 'node:timers/promises';

/** How long the waits are watched for statements (a poll of any usual period would show). */
const WATCH_MS = 2_000;

/** The server's clock now. */
async function serverNow(): Promise<Date> {
  return withPostgres(
    async (client) => (await client.query<{ now: Date }>('SELECT clock_timestamp() AS now')).rows[0]!.now,
  );
}

/**
 * Statements begun in `database` since `since`, by any of its sessions (the pool's and the listening
 * one), as the server's live activity view shows them.
 */
async function statementsSince(database: string, since: Date): Promise<number> {
  return withPostgres(async (client) => {
    const { rows } = await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND query_start >= $2',
      [database, since],
    );
    return rows[0]?.n ?? 0;
  });
}

describe('a pending waitFor', () => {
  // A database of its own, so that the server's commit count is this test's alone.
  const database = freshPostgresPrefix('nopoll');
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${database}`;
  beforeAll(() => withPostgres((client) => client.query(`CREATE DATABASE "${database}"`)));
  afterAll(() => withPostgres((client) => client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`)));

  test('sends no statement while it waits, and wakes on the notice', async () => {
    const prefix = freshPostgresPrefix('nopoll');
    const waiter = new PostgresBackend(
      new PostgresConnection(url.toString(), prefix),
      { prefix, clientId: 'w' },
      new Codec(),
      {
        sweepInterval: 0,
      },
    );
    const writer = new PostgresBackend(
      new PostgresConnection(url.toString(), prefix),
      { prefix, clientId: 'x' },
      new Codec(),
      {
        sweepInterval: 0,
      },
    );
    const connection = (waiter as unknown as { connection: PostgresConnection }).connection;
    try {
      // Stored before the waiter listens, so no notice of it can reach the waiter later: the waits
      // begun below (in one tick) are read once, and 'first' resolving shows that read is done.
      await writer.store([{ record: { id: 'first', state: 'SUCCESS', date: 0 }, ttl: 60_000 }]);
      const waits = Array.from({ length: 50 }, (_, i) => waiter.waitFor(`task-${i}`));
      await waiter.waitFor('first');
      let statements = 0;
      connection.pool.on('acquire', () => (statements += 1));
      const since = await serverNow();
      await delay(WATCH_MS);
      // No statement at all, counted on both sides: the pool's checkouts here, and every session of
      // the test's database on the server (pg_stat_activity is live; pg_stat_database's commit
      // counts are flushed late, up to seconds after a session idles, so they cannot bound a window).
      expect(statements).toBe(0);
      expect(await statementsSince(database, since)).toBe(0);
      await writer.store(
        Array.from({ length: 50 }, (_, i) => ({ record: { id: `task-${i}`, state: 'SUCCESS', date: 0 }, ttl: 60_000 })),
      );
      expect((await Promise.all(waits)).map((record) => record.id)).toEqual(
        Array.from({ length: 50 }, (_, i) => `task-${i}`),
      );
      // One notice for the batch, so one read of the 50 records.
      expect(statements).toBe(1);
    } finally {
      await Promise.allSettled([waiter.close(), writer.close()]);
    }
  });
});
