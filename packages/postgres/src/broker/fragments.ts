/**
 * SQL fragments several broker statements share: the work notice sent once per statement, and the
 * move of deleted messages into the dead-letter table.
 */
import type { BrokerContext } from './broker-context';

/**
 * A select-list item that lets the statement's transaction commit without waiting for the disk.
 * For acks and lease renewals only: one lost in a server crash makes its task run again (at least
 * once still holds), while publishes keep the server's `synchronous_commit`, so no accepted task is
 * lost. Up to three `wal_writer_delay`s of acks (600 ms by default) can be lost that way.
 */
export const ASYNC_COMMIT = `set_config('synchronous_commit', 'off', true) AS async_commit`;

/** NOTIFY's payload limit is 8000 bytes; past this the notice says "every queue" instead. */
const MAX_WORK_PAYLOAD = 7_000;

/** How much of a body over `maxMessageSize` a dead letter keeps, for the operator to see what it was. */
export const DEAD_PREVIEW_CHARS = 1_024;

/**
 * A scalar subquery that sends one notification on the work channel for the rows of CTE `rows`
 * (columns `queue`, `run_at`): its payload lists each queue once with its earliest due time (0
 * when due now), so a waiting worker wakes now or sets its timer. None is sent when `rows` is empty. Inside a
 * transaction the notification goes out at COMMIT (and never on ROLLBACK).
 */
export function workNotice(context: BrokerContext, rows: string): string {
  // Due now is sent as 0: a waiter ends at once, whatever the skew between its clock and the server's.
  const at = `CASE WHEN at <= ${context.tables.now} THEN 0 ELSE at END`;
  const payload = `(SELECT json_agg(json_build_object('q', queue, 'at', ${at}))::text AS p
      FROM (SELECT queue, min(run_at) AS at FROM ${rows} GROUP BY queue) AS due)`;
  return `(SELECT count(*) FROM ${payload} AS notice,
      LATERAL pg_notify('${context.channels.work}',
        CASE WHEN length(notice.p) < ${MAX_WORK_PAYLOAD} THEN notice.p ELSE '*' END) AS sent
      WHERE notice.p IS NOT NULL)`;
}

/**
 * An INSERT moving the rows of CTE `gone` (columns of `messages`) into the dead-letter table with
 * reason `reason` (an SQL expression). A body over `maxBytes` (an SQL expression, 0 for no limit)
 * keeps only a preview and its size, so dead letters never hold more than the limit each.
 */
export function bury(context: BrokerContext, gone: string, reason: string, maxBytes: string): string {
  const { dead, now } = context.tables;
  const over = `(${maxBytes} > 0 AND octet_length(gone.body) > ${maxBytes})`;
  return `INSERT INTO ${dead} (queue, id, priority, body, reason, at, size, limits)
    SELECT gone.queue, gone.id, gone.priority,
      CASE WHEN ${over} THEN left(gone.body, ${DEAD_PREVIEW_CHARS}) ELSE gone.body END,
      ${reason}, ${now}, CASE WHEN ${over} THEN octet_length(gone.body) END, gone.limits
    FROM ${gone} AS gone
    ON CONFLICT (queue, id) DO UPDATE SET body = excluded.body, reason = excluded.reason, at = excluded.at,
      size = excluded.size, limits = excluded.limits, priority = excluded.priority
    RETURNING queue, id, body, reason, at, size`;
}

/** A dead-letter row as read back. */
export interface DeadRow {
  queue: string;
  id: string;
  body: string;
  reason: string;
  at: string;
  size: number | null;
}

/**
 * A scalar subquery freeing the concurrency slots of the leases that ended in CTE `rows` (columns
 * `id`, `limits`), waking the oldest held task of each freed scope (with its work notice).
 */
export function releaseSlots(context: BrokerContext, rows: string): string {
  return `(SELECT ${context.tables.releaseSlots}(
      array(SELECT id FROM ${rows} WHERE limits ? 'concurrency'), '${context.channels.work}'))`;
}
