/** A Redis broker with `backend: 'postgres://…'`: tasks, groups and chords end to end, results in PostgreSQL. */
import { schemaName } from '@celeriac/postgres';
import {
  adminClient,
  captureLogs,
  deleteKeysUnder,
  dropSchema,
  freshPostgresPrefix,
  POSTGRES_URL,
  REDIS_URL,
  withPostgres,
} from '@celeriac/test-support';
import { Celeriac, chord, group } from 'celeriac';

describe('a Redis broker with a PostgreSQL result backend', () => {
  let app: Celeriac;
  let prefix: string;
  const { logger } = captureLogs();

  beforeEach(() => {
    prefix = freshPostgresPrefix('e2e');
    app = new Celeriac({ broker: REDIS_URL, backend: POSTGRES_URL, prefix, events: true });
  });
  afterEach(async () => {
    await app.close();
    const admin = adminClient();
    try {
      await deleteKeysUnder(admin, prefix);
    } finally {
      await admin.quit();
    }
    await dropSchema(schemaName(prefix));
  });

  test('runs a task, a group and a chord, each result read from the results table, events in the log', async () => {
    const add = app.task('math.add', (a: number, b: number) => a + b);
    const sum = app.task('math.sum', (values: number[]) => values.reduce((total, value) => total + value, 0));
    expect(app.capabilities.backend.transport).toMatch(/postgres/);
    const worker = app.worker({ concurrency: 4, pool: 'inline', logger });
    await worker.start();

    const single = add.delay(2, 3);
    expect(await single).toBe(5);
    expect(await group([add.s(1, 1), add.s(2, 2), add.s(3, 3)]).applyAsync()).toEqual([2, 4, 6]);
    const chorded = chord([add.s(1, 1), add.s(2, 2), add.s(3, 3)], sum.s()).applyAsync();
    expect(await chorded).toBe(12);

    // The records are rows in the app's schema, queryable by id; the chord counted its members there.
    const rows = await withPostgres((client) =>
      client.query<{ state: string; result: string }>(
        `SELECT state, record -> 'json' ->> 'result' AS result FROM "${schemaName(prefix)}".results WHERE id = $1`,
        [single.id],
      ),
    );
    expect(rows.rows).toEqual([{ state: 'SUCCESS', result: '5' }]);
    const counters = await withPostgres((client) =>
      client.query<{ counted: number }>(`SELECT counted FROM "${schemaName(prefix)}".group_counters`),
    );
    expect(counters.rows).toEqual([{ counted: 3 }]);
    expect(await app.result(single.id).state()).toBe('SUCCESS');
    // The event log is a table there too.
    const events = await app.events.recent({ limit: 1_000 });
    expect(
      events.filter((event) => event.type === 'task-succeeded').map((event) => 'taskId' in event && event.taskId),
    ).toContain(single.id);
  });
});
