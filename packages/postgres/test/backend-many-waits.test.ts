import { Codec, type TaskRecord } from '@celeriac/core';
import { PostgresBackend, PostgresConnection } from '@celeriac/postgres';
import { dropSchema, freshPostgresPrefix, POSTGRES_URL } from '@celeriac/test-support';

describe('waitForMany', () => {
  let connection: PostgresConnection;
  let backend: PostgresBackend;

  beforeEach(() => {
    const prefix = freshPostgresPrefix('many');
    connection = new PostgresConnection(POSTGRES_URL, prefix);
    backend = new PostgresBackend(connection, { prefix, clientId: 'many' }, new Codec(), { sweepInterval: 0 });
  });
  afterEach(async () => {
    const { schema } = connection;
    await backend.close();
    await dropSchema(schema);
  });

  const record = (id: string, state: string): TaskRecord => ({ id, state, date: 0 });
  /** The ids something in the backend still waits for. */
  const pending = () => (backend as unknown as { waits: { ids(): string[] } }).waits.ids();

  test('ends at the first record stopOn accepts, and leaves no wait behind for the others', async () => {
    const waiting = backend.waitForMany(['a', 'b', 'c'], undefined, {
      stopOn: (found) => found.state === 'FAILURE',
    });
    await backend.store([{ record: record('b', 'FAILURE'), ttl: 60_000 }]);
    expect(await waiting).toEqual([undefined, record('b', 'FAILURE'), undefined]);
    expect(pending()).toEqual([]);
  });

  test("rejects with the caller's abort reason, and leaves no wait behind", async () => {
    const controller = new AbortController();
    const waiting = backend.waitForMany(['a', 'b'], controller.signal);
    const reason = new Error('gave up');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    expect(pending()).toEqual([]);
  });
});
