/**
 * The hot table is vacuumed as it churns, by the process that churns it (autovacuum visits a
 * database once a minute at most, and not at all on a server with `autovacuum = off`, as this
 * machine's is). The server's own count of manual vacuums (`vacuum_count`) tells whether one ran.
 */
import { PostgresBroker, PostgresConnection, schemaName } from '@celeriac/postgres';
import { dropSchema, freshPostgresPrefix, POSTGRES_URL, withPostgres } from '@celeriac/test-support';
import type { BrokerSettings, Envelope } from '@celeriac/core';
import { ChurnVacuum, VACUUM_EVERY_ROWS } from '../src/connection/churn-vacuum';

/** How many times `table` of `schema` was vacuumed by hand (not by autovacuum). */
async function vacuums(schema: string, table: string): Promise<number> {
  const { rows } = await withPostgres((client) =>
    client.query<{ n: string }>(
      'SELECT vacuum_count AS n FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = $2',
      [schema, table],
    ),
  );
  return Number(rows[0]?.n ?? 0);
}

describe('vacuum as the table churns', () => {
  let schema: string;
  afterEach(() => dropSchema(schema));

  it('vacuums a table once the rows noted reach the threshold, not before', async () => {
    const prefix = freshPostgresPrefix('churn');
    schema = schemaName(prefix);
    const scratch = { id: 1, name: 'scratch', sql: (s: string) => `CREATE TABLE ${s}.scratch (n integer)` };
    const connection = new PostgresConnection(POSTGRES_URL, prefix, { migrations: [scratch] }).retain();
    try {
      const vacuum = new ChurnVacuum(connection, `${schema}.scratch`, 10);
      vacuum.note(9);
      await vacuum.idle();
      expect(await vacuums(schema, 'scratch')).toBe(0);
      vacuum.note(1);
      await vacuum.idle();
      expect(await vacuums(schema, 'scratch')).toBe(1);
    } finally {
      await connection.release();
    }
  });

  it('the broker vacuums its hot table after claiming that many rows', async () => {
    const prefix = freshPostgresPrefix('churn');
    schema = schemaName(prefix);
    const settings: BrokerSettings = { prefix, visibilityTimeout: 30_000, maxDeliveries: 5, revokeTtl: 60_000 };
    const broker = new PostgresBroker(new PostgresConnection(POSTGRES_URL, prefix), settings);
    try {
      const envelopes: Envelope[] = Array.from({ length: VACUUM_EVERY_ROWS }, (_, index) => ({
        id: `t${index}`,
        queue: 'churn',
        body: 'x',
        priority: 0,
        idempotent: false,
      }));
      await broker.publish(envelopes);
      for (let taken = 0; taken < VACUUM_EVERY_ROWS;) {
        const batch = await broker.reserve(['churn'], 1_000);
        await broker.ack(batch);
        taken += batch.length;
      }
    } finally {
      // Closing waits for a vacuum under way.
      await broker.close();
    }
    expect(await vacuums(schema, 'messages')).toBe(1);
  });
});
