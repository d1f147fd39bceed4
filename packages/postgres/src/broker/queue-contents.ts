/** What a queue holds: counts by place, and the purge of what waits. */
import type { PurgedMessage, QueueStats } from '@celeriac/core';
import type { BrokerContext } from './broker-context';

/** Counts `queue`'s messages by place, in one statement. */
export async function stats(context: BrokerContext, queue: string): Promise<QueueStats> {
  const { messages, dead, now } = context.tables;
  const [row] = await context.connection.query<Record<keyof QueueStats, string>>(
    `SELECT count(*) FILTER (WHERE lease_until IS NULL AND run_at <= ${now}) AS ready,
        count(*) FILTER (WHERE lease_until IS NULL AND run_at > ${now}) AS delayed,
        count(*) FILTER (WHERE lease_until IS NOT NULL) AS active,
        (SELECT count(*) FROM ${dead} WHERE queue = $1) AS dead
      FROM ${messages} WHERE queue = $1`,
    [queue],
  );
  return {
    ready: Number(row?.ready ?? 0),
    delayed: Number(row?.delayed ?? 0),
    active: Number(row?.active ?? 0),
    dead: Number(row?.dead ?? 0),
  };
}

/** Removes every waiting (ready or delayed) message of `queue` and returns them. */
export async function purge(context: BrokerContext, queue: string): Promise<PurgedMessage[]> {
  return context.connection.query<PurgedMessage>(
    `DELETE FROM ${context.tables.messages} WHERE queue = $1 AND lease_until IS NULL RETURNING id, body`,
    [queue],
  );
}
