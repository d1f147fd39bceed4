import { Codec } from '@celeriac/core';
import { PostgresBackend, PostgresConnection } from '@celeriac/postgres';
import { dropSchema, freshPostgresPrefix, POSTGRES_URL, withPostgres } from '@celeriac/test-support';

describe('expired results', () => {
  let backend: PostgresBackend;
  let connection: PostgresConnection;

  beforeEach(() => {
    const prefix = freshPostgresPrefix('expiry');
    connection = new PostgresConnection(POSTGRES_URL, prefix);
    // The timer is off: the test sweeps itself.
    backend = new PostgresBackend(connection, { prefix, clientId: 'expiry' }, new Codec(), {
      sweepInterval: 0,
      sweepBatch: 500,
    });
  });
  afterEach(async () => {
    const { schema } = connection;
    await backend.close();
    await dropSchema(schema);
  });

  const record = (id: string) => ({ id, state: 'SUCCESS', task: 't', date: 0, result: id });

  test('are deleted in batches of sweepBatch rows, and live ones stay', async () => {
    // A TTL of 0 expires at the storing statement's time: every later statement sees it expired.
    const expired = Array.from({ length: 1_200 }, (_, i) => ({ record: record(`old-${i}`), ttl: 0 }));
    await backend.store(expired);
    await backend.store([{ record: record('live'), ttl: 60_000 }]);
    await backend.groupMemberDone('old-group', 0, 2, 0);
    await backend.groupMemberDone('live-group', 0, 2, 60_000);
    expect(await backend.get('old-0')).toBeUndefined(); // readers skip expired rows before any sweep

    // 500 + 500 + 200 result rows, then one statement for the one expired group counter.
    expect(await backend.sweepExpired()).toEqual({ results: 1_200, groups: 1, batches: 4 });
    const left = await withPostgres(async (client) => {
      const results = await client.query<{ id: string }>(`SELECT id FROM "${connection.schema}".results`);
      const groups = await client.query<{ id: string }>(`SELECT id FROM "${connection.schema}".group_counters`);
      return [...results.rows, ...groups.rows].map((row) => row.id);
    });
    expect(left).toEqual(['live', 'live-group']);
    expect(await backend.sweepExpired()).toEqual({ results: 0, groups: 0, batches: 2 });
  });

  test('a counter past its TTL starts the group over', async () => {
    await backend.groupMemberDone('g', 0, 2, 0);
    expect(await backend.groupMemberDone('g', 1, 2, 60_000)).toEqual({ done: 1, completed: false, repeated: false });
  });
});
