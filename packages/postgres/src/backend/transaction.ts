/** One transaction on a client of the pool, for steps that take more than one statement. */
import type { PoolClient } from 'pg';
import type { PostgresConnection } from '../connection/postgres-connection';

/** Runs `work` between BEGIN and COMMIT on one pooled client (ROLLBACK when it throws), after the schema is ready. */
export async function inTransaction<T>(
  connection: PostgresConnection,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  await connection.ready();
  const client = await connection.pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
