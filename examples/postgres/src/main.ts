/**
 * Celeriac on PostgreSQL, with tasks sent inside the app's own transactions: an order row and the
 * task that sends its receipt are stored together (COMMIT: the receipt is sent), or not at all
 * (ROLLBACK: no task was ever visible to a worker). Everything lives in PostgreSQL: the broker,
 * the results and the app's own table.
 */
import { randomUUID } from 'node:crypto';
import { Celeriac } from 'celeriac';
import { Pool, type PoolClient } from 'pg';

const POSTGRES_URL = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
// Celeriac's tables live in a schema named from the prefix; a run of its own gets a fresh one.
const PREFIX = process.env.CELERIAC_EXAMPLE_PREFIX ?? `example_pg_${randomUUID().slice(0, 8)}`;
const schema = PREFIX.toLowerCase().replace(/[^a-z0-9_]/g, '_');

const app = new Celeriac({ broker: POSTGRES_URL, prefix: PREFIX });
const db = new Pool({ connectionString: POSTGRES_URL });
const receipts: string[] = [];

const sendReceipt = app.task('orders.sendReceipt', (orderId: string) => {
  receipts.push(orderId);
  return `receipt for ${orderId} sent`;
});

/** Stores an order and sends its receipt task in one transaction, then commits or rolls back. */
async function placeOrder(client: PoolClient, orderId: string, outcome: 'COMMIT' | 'ROLLBACK') {
  await client.query('BEGIN');
  await client.query(`INSERT INTO "${schema}".orders (id) VALUES ($1)`, [orderId]);
  const receipt = sendReceipt.applyAsync([orderId], { transaction: client });
  await receipt.sent; // the task's row is in the transaction now; no worker sees it yet
  await client.query(outcome);
  // Wrapped: an AsyncResult is itself a promise of the task's value, which `return` would await.
  return { receipt };
}

async function main(): Promise<void> {
  // The broker's own tables are made on first use; the example's orders table sits beside them.
  await app.broker.stats('default');
  await db.query(`CREATE TABLE IF NOT EXISTS "${schema}".orders (id text PRIMARY KEY)`);
  const worker = app.worker({ pool: 'inline', concurrency: 2 });
  await worker.start();
  const client = await db.connect();
  try {
    const { receipt } = await placeOrder(client, 'A-1', 'COMMIT');
    console.log(`order A-1 committed: ${await receipt.get({ timeout: 10_000 })}`);
    await placeOrder(client, 'B-2', 'ROLLBACK');
    // A task sent after the rolled-back one runs; had B-2's been stored, it would have run first.
    await sendReceipt.applyAsync(['C-3']).get({ timeout: 10_000 });
    await client.query(`INSERT INTO "${schema}".orders (id) VALUES ('C-3')`);
    const { rows } = await client.query(`SELECT id FROM "${schema}".orders ORDER BY id`);
    console.log(`orders stored: ${rows.map((row: { id: string }) => row.id).join(', ')}`);
    console.log(`receipts sent: ${receipts.join(', ')} (none for the rolled-back order B-2)`);
  } finally {
    client.release();
    await worker.close();
    await app.close();
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await db.end();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
