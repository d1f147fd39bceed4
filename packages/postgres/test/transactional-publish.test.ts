/**
 * The `transaction` send option on PostgreSQL: a task sent through the caller's transaction reaches
 * a worker only if that transaction commits; a broker that cannot join it refuses the option.
 */
import {
  adminClient,
  deleteKeysUnder,
  dropSchema,
  freshPostgresPrefix,
  freshPrefix,
  POSTGRES_URL,
  REDIS_URL,
  withPostgres,
} from '@celeriac/test-support';
import { schemaName } from '@celeriac/postgres';
import { Celeriac, group, type TaskHandle } from 'celeriac';
import { Client } from 'pg';

describe('the transaction send option', () => {
  let prefix: string;
  let app: Celeriac;
  let client: Client;
  let record: TaskHandle<[number], number>;
  const ran: number[] = [];

  beforeEach(async () => {
    ran.length = 0;
    prefix = freshPostgresPrefix('tx');
    // PostgreSQL alone: the results live in the same database (the backend defaults to the broker's URL).
    app = new Celeriac({ broker: POSTGRES_URL, prefix });
    record = app.task('tx.record', (n: number) => (ran.push(n), n * 2));
    client = new Client({ connectionString: POSTGRES_URL });
    await client.connect();
  });

  afterEach(async () => {
    await client.end();
    await app.close();
    await dropSchema(schemaName(prefix));
  });

  /** How many messages the broker's table holds, seen from outside the caller's transaction. */
  async function storedMessages(): Promise<number> {
    const { rows } = await withPostgres((other) =>
      other.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schemaName(prefix)}".messages`),
    );
    return rows[0]?.n ?? -1;
  }

  it('a task sent in a transaction is invisible until COMMIT, then runs', async () => {
    await app.broker.stats('default'); // the schema exists before the transaction begins
    await client.query('BEGIN');
    const result = record.applyAsync([21], { transaction: client });
    await result.sent;
    expect(await storedMessages()).toBe(0);
    await client.query('COMMIT');
    expect(await storedMessages()).toBe(1);
    const worker = app.worker({ pool: 'inline', concurrency: 1 });
    await worker.start();
    expect(await result.get({ timeout: 10_000 })).toBe(42);
    expect(ran).toEqual([21]);
  });

  it('a task sent in a transaction that rolls back never runs; one sent after it does', async () => {
    await client.query('BEGIN');
    const rolledBack = app.sendTask<number>('tx.record', [1], { transaction: client });
    await rolledBack.sent;
    await client.query('ROLLBACK');
    const worker = app.worker({ pool: 'inline', concurrency: 1 });
    await worker.start();
    expect(await app.sendTask<number>('tx.record', [2]).get({ timeout: 10_000 })).toBe(4);
    // The worker stops once its last ack is in: then the table holds nothing, the rolled-back task included.
    await worker.close();
    expect(ran).toEqual([2]);
    expect(await storedMessages()).toBe(0);
  });

  it('a workflow started in a transaction is stored with it', async () => {
    await client.query('BEGIN');
    const started = group([record.s(5), record.s(6)]).applyAsync([], { transaction: client });
    await started.sent;
    expect(await storedMessages()).toBe(0);
    await client.query('COMMIT');
    expect(await storedMessages()).toBe(2);
  });
});

describe('the transaction send option on a broker that cannot join it', () => {
  it('throws CELERIAC_UNSUPPORTED_BY_TRANSPORT at the call and sends nothing', async () => {
    const prefix = freshPrefix('tx');
    const app = new Celeriac({ broker: REDIS_URL, prefix });
    const client = { query: () => Promise.resolve({ rows: [] }) };
    try {
      app.task('tx.nothing', () => 1);
      expect(() => app.sendTask('tx.nothing', [], { transaction: client })).toThrow(
        expect.objectContaining({ code: 'CELERIAC_UNSUPPORTED_BY_TRANSPORT' }),
      );
      expect(await app.broker.stats('default')).toEqual({ ready: 0, delayed: 0, active: 0, dead: 0 });
    } finally {
      await app.close();
      const admin = adminClient();
      await deleteKeysUnder(admin, prefix);
      await admin.quit();
    }
  });
});
