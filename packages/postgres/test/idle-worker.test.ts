/**
 * No busy polling: an idle worker on PostgreSQL waits on LISTEN and timers, so over a quiet stretch
 * its pool runs at most a few statements a second (heartbeats, lease sweeps), while the same count
 * does see the statements a burst of tasks makes. Every statement of the broker checks a client out
 * of its pool (the listening session runs only LISTEN), so the pool's checkouts count them all.
 */
import {
  adminClient,
  deleteKeysUnder,
  dropSchema,
  freshPostgresPrefix,
  POSTGRES_URL,
  REDIS_URL,
} from '@celeriac/test-support';
import { PostgresBroker, schemaName } from '@celeriac/postgres';
import { Celeriac } from 'celeriac';

/** How long the quiet stretch lasts, in ms. */
const QUIET_MS = 3_000;
/** What an idle worker may run a second, at most. */
const IDLE_STATEMENTS_PER_SECOND = 2;

/** Waits `ms`: the measured stretch itself, not a wait for some state. */
const quiet = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('an idle worker on PostgreSQL', () => {
  const prefix = freshPostgresPrefix('idle');
  let app: Celeriac;

  beforeAll(() => {
    app = new Celeriac({ broker: POSTGRES_URL, backend: REDIS_URL, prefix });
  });

  afterAll(async () => {
    await app.close();
    await dropSchema(schemaName(prefix));
    const admin = adminClient();
    await deleteKeysUnder(admin, prefix);
    await admin.quit();
  });

  it('runs at most a few statements a second while it waits, and many when tasks come', async () => {
    const noop = app.task('idle.noop', () => 1);
    const broker = app.broker;
    if (!(broker instanceof PostgresBroker)) throw new Error('the app should be on the PostgreSQL broker');
    let statements = 0;
    broker.connection.pool.on('acquire', () => (statements += 1));
    const worker = app.worker({ pool: 'inline', concurrency: 4 });
    await worker.start();
    await noop.applyAsync([]).get({ timeout: 10_000 });

    const before = statements;
    await quiet(QUIET_MS);
    const idle = statements - before;
    expect(idle).toBeLessThanOrEqual((IDLE_STATEMENTS_PER_SECOND * QUIET_MS) / 1000);

    // The count sees the worker's statements: 50 tasks make some tens (publishes, claims and acks, in batches).
    const busyFrom = statements;
    await Promise.all(Array.from({ length: 50 }, () => noop.applyAsync([]).get({ timeout: 10_000 })));
    expect(statements - busyFrom).toBeGreaterThanOrEqual(10);
    await worker.close();
  });
});
