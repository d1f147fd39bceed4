/**
 * Leases: renewal by live workers, and recovery of lapsed ones by any live worker (no monitor
 * process): a lapsed message goes back to its queue with one more delivery counted, or, past
 * `maxDeliveries`, into the dead-letter table with a reason.
 */
import type { Delivery, RecoveryReport } from '@celeriac/core';
import type { BrokerContext } from './broker-context';
import { ASYNC_COMMIT, bury, type DeadRow, releaseSlots, workNotice } from './fragments';
import { pastMaxDeliveries } from './requeue';
import { deadLetterOf } from './dead-letters';

/** Pushes the lease deadline of running `deliveries` to now + visibility timeout. */
export async function extendLeases(context: BrokerContext, deliveries: readonly Delivery[]): Promise<void> {
  if (deliveries.length === 0) return;
  const { messages, now } = context.tables;
  await context.connection.query(
    `UPDATE ${messages} AS m SET lease_until = ${now} + $3
      FROM unnest($1::text[], $2::integer[]) AS d(id, deliveries)
      WHERE m.id = d.id AND m.deliveries = d.deliveries AND m.lease_until IS NOT NULL
      RETURNING ${ASYNC_COMMIT}`,
    [deliveries.map((d) => d.id), deliveries.map((d) => d.deliveries), context.settings.visibilityTimeout],
  );
}

/** Returns the lapsed leases of `queues`, or dead-letters those past `maxDeliveries`; one statement. */
export async function recoverLapsed(context: BrokerContext, queues: readonly string[]): Promise<RecoveryReport> {
  if (queues.length === 0) return { requeued: [], dead: [] };
  const { messages, now } = context.tables;
  const rows = await context.connection.query<{ requeued: string[]; dead: DeadRow[] }>(
    `WITH lapsed AS (
        SELECT id FROM ${messages}
        WHERE queue = ANY($1::text[]) AND lease_until IS NOT NULL AND lease_until <= ${now}
        FOR UPDATE SKIP LOCKED),
      back AS (
        UPDATE ${messages} AS m SET lease_until = NULL, run_at = ${now}, deliveries = m.deliveries + 1
        FROM lapsed WHERE m.id = lapsed.id AND m.deliveries < $2
        RETURNING m.id, m.queue, m.run_at, m.seq, m.limits),
      gone AS (
        DELETE FROM ${messages} AS m USING lapsed WHERE m.id = lapsed.id AND m.deliveries >= $2 RETURNING m.*),
      buried AS (${bury(context, 'gone', '$3', '$4')})
      SELECT coalesce((SELECT array_agg(id ORDER BY seq) FROM back), '{}') AS requeued,
        coalesce((SELECT json_agg(buried) FROM buried), '[]') AS dead,
        ${workNotice(context, 'back')} AS notified,
        ${releaseSlots(context, 'back')} + ${releaseSlots(context, 'gone')} AS woken`,
    [
      queues,
      context.settings.maxDeliveries,
      `its lease lapsed: ${pastMaxDeliveries(context)}`,
      context.settings.maxMessageSize ?? 0,
    ],
  );
  const [row] = rows;
  return { requeued: row?.requeued ?? [], dead: (row?.dead ?? []).map(deadLetterOf) };
}
