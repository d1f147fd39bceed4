import { Codec, RecordsRefusedError, type TaskRecord } from '@celeriac/core';
import { PostgresBackend, PostgresConnection } from '@celeriac/postgres';
import { dropSchema, freshPostgresPrefix, POSTGRES_URL } from '@celeriac/test-support';

describe('storing records', () => {
  let connections: PostgresConnection[];
  let backend: PostgresBackend;
  let peer: PostgresBackend;

  beforeEach(() => {
    const prefix = freshPostgresPrefix('store');
    connections = [new PostgresConnection(POSTGRES_URL, prefix), new PostgresConnection(POSTGRES_URL, prefix)];
    const [mine, theirs] = connections as [PostgresConnection, PostgresConnection];
    backend = new PostgresBackend(mine, { prefix, clientId: 'caller' }, new Codec(), { sweepInterval: 0 });
    peer = new PostgresBackend(theirs, { prefix, clientId: 'worker' }, new Codec(), { sweepInterval: 0 });
  });
  afterEach(async () => {
    const schema = connections[0]?.schema as string;
    await Promise.allSettled([backend.close(), peer.close()]);
    await dropSchema(schema);
  });

  const record = (id: string, fields: Partial<TaskRecord> = {}): TaskRecord => ({
    id,
    state: 'SUCCESS',
    date: 0,
    ...fields,
  });

  test('a record with a TTL out of range is refused alone; the others are stored', async () => {
    const stored = peer.store([
      { record: record('good'), ttl: 60_000 },
      { record: record('bad'), ttl: -1 },
    ]);
    await expect(stored).rejects.toBeInstanceOf(RecordsRefusedError);
    await expect(stored).rejects.toMatchObject({ refused: new Map([['bad', expect.any(Error)]]) });
    expect((await backend.getMany(['good', 'bad'])).map((found) => found?.id)).toEqual(['good', undefined]);
  });

  test('a batch past the notice size limit still wakes every wait, big records read instead of carried', async () => {
    // 300 ids of ~40 bytes pass 8,000 bytes of notice; a 20 kB record cannot ride in one.
    const ids = Array.from({ length: 300 }, (_, i) => `task-${i}-${'x'.repeat(30)}`);
    const big = 'y'.repeat(20_000);
    const changes: TaskRecord[] = [];
    const stop = backend.onChange('big', (found) => changes.push(found));
    await stop.ready;
    const waits = [...ids, 'big'].map((id) => backend.waitFor(id));
    await peer.store([
      ...ids.map((id) => ({ record: record(id), ttl: 60_000, replyTo: 'caller' })),
      { record: record('big', { result: big }), ttl: 60_000, replyTo: 'caller' },
    ]);
    const found = await Promise.all(waits);
    expect(found.map((item) => item.id)).toEqual([...ids, 'big']);
    expect(found.at(-1)?.result).toBe(big);
    expect(changes.map((item) => item.state)).toEqual(['SUCCESS']);
    stop();
  });

  test('a listener hears a record once when a read brings what a notice already told', async () => {
    const changes: TaskRecord[] = [];
    let heard = () => undefined as void;
    const stop = backend.onChange('told', (found) => {
      changes.push(found);
      heard();
    });
    const nextChange = () => new Promise<void>((resolve) => (heard = resolve));
    await stop.ready;
    let next = nextChange();
    await peer.store([{ record: record('told'), ttl: 60_000, replyTo: 'caller' }]);
    await next;
    // The wait reads the row whose record the notice carried: the listener is not told again.
    expect((await backend.waitFor('told')).state).toBe('SUCCESS');
    next = nextChange();
    await peer.store([{ record: record('told', { date: 1 }), ttl: 60_000, replyTo: 'caller' }]);
    await next;
    expect(changes.map((item) => item.date)).toEqual([0, 1]);
    stop();
  });
});
