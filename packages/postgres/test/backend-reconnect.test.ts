import { Codec } from '@celeriac/core';
import { PostgresBackend, PostgresConnection } from '@celeriac/postgres';
import { dropSchema, freshPostgresPrefix, POSTGRES_URL, withPostgres } from '@celeriac/test-support';

describe('a wait across a lost listening session', () => {
  let connection: PostgresConnection;
  let backend: PostgresBackend;

  beforeEach(() => {
    const prefix = freshPostgresPrefix('resume');
    connection = new PostgresConnection(POSTGRES_URL, prefix);
    backend = new PostgresBackend(connection, { prefix, clientId: 'resume' }, new Codec(), { sweepInterval: 0 });
  });
  afterEach(async () => {
    const { schema } = connection;
    await backend.close();
    await dropSchema(schema);
  });

  test('reads the record again when the session comes back: a notice sent while it was away is lost', async () => {
    await connection.ready();
    await backend.onChange('other', () => undefined).ready;
    // The wait's first read (the only statement on the pool now) finds nothing.
    const firstRead = new Promise((resolve) => connection.pool.once('release', resolve));
    const waiting = backend.waitFor('t');
    await firstRead;
    // A record written without a notice, as if its notice came while the session was away: only the
    // read after the reconnect can find it.
    await withPostgres((client) =>
      client.query(
        `INSERT INTO "${connection.schema}".results (id, state, final, record, expires_at)
         VALUES ('t', 'SUCCESS', true, $1, now() + interval '1 minute')`,
        [JSON.stringify({ json: { id: 't', state: 'SUCCESS', date: 0, result: 'after the outage' } })],
      ),
    );
    const resumed = new Promise<void>((resolve) => connection.listener.onResume(resolve));
    const results = `${connection.schema}_results`;
    await withPostgres((client) =>
      client.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE pid <> pg_backend_pid() AND query LIKE 'LISTEN%' AND query LIKE $1`,
        [`%${results}%`],
      ),
    );
    await resumed;
    await expect(waiting).resolves.toMatchObject({ id: 't', result: 'after the outage' });
  });
});
