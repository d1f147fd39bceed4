/** Worker records: each live worker's heartbeat, kept until its ttl passes. */
import type { WorkerInfo } from '@celeriac/core';
import type { BrokerContext } from './broker-context';

/** Records that a worker is alive, for `ttl` ms unless renewed. */
export async function heartbeat(context: BrokerContext, info: WorkerInfo, ttl: number): Promise<void> {
  const { workers, now } = context.tables;
  await context.connection.query(
    `WITH swept AS (DELETE FROM ${workers} WHERE expires_at <= ${now} AND hostname <> $1)
      INSERT INTO ${workers} (hostname, info, expires_at) VALUES ($1, $2, ${now} + $3)
      ON CONFLICT (hostname) DO UPDATE SET info = excluded.info, expires_at = excluded.expires_at`,
    [info.hostname, JSON.stringify(info), ttl],
  );
}

/** Removes a worker's record. */
export async function forgetWorker(context: BrokerContext, hostname: string): Promise<void> {
  await context.connection.query(`DELETE FROM ${context.tables.workers} WHERE hostname = $1`, [hostname]);
}

/** The workers whose heartbeat has not expired. */
export async function listWorkers(context: BrokerContext): Promise<WorkerInfo[]> {
  const { workers, now } = context.tables;
  const rows = await context.connection.query<{ info: WorkerInfo }>(
    `SELECT info FROM ${workers} WHERE expires_at > ${now} ORDER BY hostname`,
  );
  return rows.map((row) => row.info);
}
