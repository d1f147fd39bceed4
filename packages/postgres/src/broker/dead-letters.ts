/**
 * The dead-letter table: listing (oldest first), requeueing with a fresh delivery count, discarding.
 * A dead letter that kept only a preview of its body (it was over the size limit) stays dead.
 */
import type { DeadLetter } from '@celeriac/core';
import type { BrokerContext } from './broker-context';
import type { DeadRow } from './fragments';
import { workNotice } from './fragments';

/** A dead-letter row (from SQL or JSON) as the contract shapes it. */
export function deadLetterOf(row: DeadRow): DeadLetter {
  const { id, queue, body, reason, at, size } = row;
  return size === null || size === undefined
    ? { id, queue, body, reason, at: Number(at) }
    : { id, queue, body, reason, at: Number(at), size };
}

/** The dead letters of `queue`, oldest first. */
export async function listDead(
  context: BrokerContext,
  queue: string,
  options: { offset?: number; limit?: number } = {},
): Promise<DeadLetter[]> {
  const rows = await context.connection.query<DeadRow>(
    `SELECT queue, id, body, reason, at, size FROM ${context.tables.dead}
      WHERE queue = $1 ORDER BY seq OFFSET $2 LIMIT $3`,
    [queue, options.offset ?? 0, options.limit ?? null],
  );
  return rows.map(deadLetterOf);
}

/** Puts dead letters of `queue` back (those of `ids`, or all), delivery count 1; returns how many moved. */
export async function requeueDead(context: BrokerContext, queue: string, ids?: readonly string[]): Promise<number> {
  if (ids?.length === 0) return 0;
  const { dead, messages, now } = context.tables;
  const [row] = await context.connection.query<{ moved: string }>(
    `WITH raised AS (
        DELETE FROM ${dead} WHERE queue = $1 AND size IS NULL AND ($2::text[] IS NULL OR id = ANY($2::text[]))
        RETURNING id, queue, priority, body, limits, seq),
      back AS (
        INSERT INTO ${messages} (id, queue, priority, run_at, body, limits)
        SELECT id, queue, priority, ${now}, body, limits FROM raised ORDER BY seq
        ON CONFLICT (id) DO NOTHING
        RETURNING queue, run_at)
      SELECT (SELECT count(*) FROM back) AS moved, ${workNotice(context, 'back')} AS notified`,
    [queue, ids ?? null],
  );
  return Number(row?.moved ?? 0);
}

/** Deletes dead letters of `queue` for good (those of `ids`, or all); returns how many went. */
export async function discardDead(context: BrokerContext, queue: string, ids?: readonly string[]): Promise<number> {
  if (ids?.length === 0) return 0;
  const rows = await context.connection.query(
    `DELETE FROM ${context.tables.dead} WHERE queue = $1 AND ($2::text[] IS NULL OR id = ANY($2::text[])) RETURNING id`,
    [queue, ids ?? null],
  );
  return rows.length;
}
