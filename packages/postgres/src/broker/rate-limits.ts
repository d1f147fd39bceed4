/** Rates set at run time (`setRateLimit`): one row per task, read by every claim that admits it. */
import type { RateSetting } from '@celeriac/core';
import type { BrokerContext } from './broker-context';

/** Sets (or, with undefined, drops) the run-time rate of `task`. */
export async function setRateLimit(context: BrokerContext, task: string, rate: RateSetting | undefined): Promise<void> {
  const { rateLimits } = context.tables;
  if (rate === undefined) {
    await context.connection.query(`DELETE FROM ${rateLimits} WHERE task = $1`, [task]);
    return;
  }
  const { limit, per, burst } = rate;
  await context.connection.query(
    `INSERT INTO ${rateLimits} (task, setting) VALUES ($1, $2)
      ON CONFLICT (task) DO UPDATE SET setting = excluded.setting`,
    [task, JSON.stringify({ limit, per, burst })],
  );
}

/** The rates set at run time, by task name. */
export async function rateLimits(context: BrokerContext): Promise<Record<string, RateSetting>> {
  const rows = await context.connection.query<{ task: string; setting: RateSetting }>(
    `SELECT task, setting FROM ${context.tables.rateLimits}`,
  );
  return Object.fromEntries(rows.map((row) => [row.task, row.setting]));
}
