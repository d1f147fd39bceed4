import { migrate, PostgresConnection, type Migration } from '@celeriac/postgres';
import { dropSchema, freshPostgresPrefix, POSTGRES_URL, withPostgres } from '@celeriac/test-support';
import { Pool } from 'pg';

const steps: Migration[] = [
  { id: 1, name: 'counter', sql: (schema) => `CREATE TABLE ${schema}.counter (n integer NOT NULL)` },
  { id: 2, name: 'one row', sql: (schema) => `INSERT INTO ${schema}.counter VALUES (0)` },
];

describe('schema migrations', () => {
  let schema: string;
  beforeEach(() => (schema = freshPostgresPrefix('migrate')));
  afterEach(() => dropSchema(schema));

  test('many processes migrating at once apply each step exactly once', async () => {
    const pools = Array.from({ length: 6 }, () => new Pool({ connectionString: POSTGRES_URL, max: 1 }));
    try {
      const applied = await Promise.all(pools.map((pool) => migrate(pool, schema, steps)));
      expect(applied.flat().sort()).toEqual([1, 2]);
      const rows = await withPostgres((client) =>
        client.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".counter`),
      );
      expect(rows.rows[0]?.n).toBe(1);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  test('a later step is applied to a schema that has the earlier ones', async () => {
    const pool = new Pool({ connectionString: POSTGRES_URL, max: 1 });
    try {
      expect(await migrate(pool, schema, steps.slice(0, 1))).toEqual([1]);
      expect(await migrate(pool, schema, steps)).toEqual([2]);
      expect(await migrate(pool, schema, steps)).toEqual([]);
    } finally {
      await pool.end();
    }
  });
});

describe('the listening session', () => {
  let connection: PostgresConnection;
  let schema: string;
  beforeEach(() => {
    const prefix = freshPostgresPrefix('listen');
    connection = new PostgresConnection(POSTGRES_URL, prefix, { migrations: [] }).retain();
    schema = connection.schema;
  });
  afterEach(async () => {
    await connection.release();
    await dropSchema(schema);
  });

  test('delivers notifications, and again after the server ended its session', async () => {
    const channel = `${schema}_work`;
    const payloads: string[] = [];
    let wake: () => void = () => undefined;
    const next = () => new Promise<void>((resolve) => (wake = resolve));
    await connection.listener.listen(channel, (payload) => {
      payloads.push(payload);
      wake();
    });
    let received = next();
    await connection.query('SELECT pg_notify($1, $2)', [channel, 'one']);
    await received;

    const resumed = new Promise<void>((resolve) => connection.listener.onResume(resolve));
    await withPostgres((client) =>
      client.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE pid <> pg_backend_pid() AND query LIKE 'LISTEN%' AND query LIKE $1`,
        [`%${channel}%`],
      ),
    );
    await resumed;
    received = next();
    await connection.query('SELECT pg_notify($1, $2)', [channel, 'two']);
    await received;
    expect(payloads).toEqual(['one', 'two']);
  });
});
