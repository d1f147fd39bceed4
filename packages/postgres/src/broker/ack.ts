/**
 * Acks: a batch is one DELETE (finished rows leave the hot table at once). Deliveries that failed
 * for good go into the failed-task registry in the same statement; a later delivery acked as done
 * drops the entry an earlier one kept.
 */
import type { Delivery, Failure } from '@celeriac/core';
import type { BrokerContext } from './broker-context';
import { trimFailed } from './failed-registry';
import { ASYNC_COMMIT, releaseSlots } from './fragments';

/** The failures among `deliveries`, as the statement's arrays (ids, tasks, errors, attempts). */
function failureArrays(deliveries: readonly Delivery[], failures: ReadonlyMap<string, Failure> | undefined) {
  const failed = deliveries.filter((delivery) => failures?.has(delivery.id));
  return [
    failed.map((delivery) => delivery.id),
    failed.map((delivery) => failures?.get(delivery.id)?.task),
    failed.map((delivery) => JSON.stringify(failures?.get(delivery.id)?.error)),
    failed.map((delivery) => failures?.get(delivery.id)?.attempts),
  ];
}

/** Settles leased `deliveries` as done, keeping those in `failures` in the registry (when it keeps any). */
export async function ack(
  context: BrokerContext,
  deliveries: readonly Delivery[],
  failures?: ReadonlyMap<string, Failure>,
): Promise<void> {
  if (deliveries.length === 0) return;
  const { messages, failed, now } = context.tables;
  const ttl = context.settings.failedTtl ?? 0;
  const [failedIds, tasks, errors, attempts] = failureArrays(deliveries, failures);
  const keeping = ttl > 0 && (failedIds?.length ?? 0) > 0;
  await context.connection.query(
    `WITH done AS (
        DELETE FROM ${messages} AS m USING unnest($1::text[], $2::integer[]) AS d(id, deliveries)
        WHERE m.id = d.id AND m.deliveries = d.deliveries AND m.lease_until IS NOT NULL
        RETURNING m.id, m.queue, m.body, m.deliveries, m.limits),
      kept AS (
        INSERT INTO ${failed} (queue, id, body, task, error, attempts, at, expires_at)
        SELECT done.queue, done.id, done.body, f.task, f.error, f.attempts, ${now}, ${now} + $7
        FROM done JOIN unnest($3::text[], $4::text[], $5::jsonb[], $6::integer[]) AS f(id, task, error, attempts)
          USING (id)
        WHERE $7 > 0
        ON CONFLICT (queue, id) DO UPDATE SET body = excluded.body, task = excluded.task, error = excluded.error,
          attempts = excluded.attempts, at = excluded.at, expires_at = excluded.expires_at),
      dropped AS (
        DELETE FROM ${failed} AS kept USING done
        WHERE kept.queue = done.queue AND kept.id = done.id AND done.deliveries > 1 AND done.id <> ALL($3::text[]))
      SELECT count(*) AS acked, ${releaseSlots(context, 'done')} AS woken, ${ASYNC_COMMIT} FROM done`,
    [deliveries.map((d) => d.id), deliveries.map((d) => d.deliveries), failedIds, tasks, errors, attempts, ttl],
  );
  if (keeping) await trimFailed(context, [...new Set(deliveries.map((d) => d.queue))]);
}

/**
 * Writes the registry entries of leased deliveries that failed for good, before their FAILURE records
 * are stored; a delivery whose lease was lost (a later delivery holds it) writes nothing.
 */
export async function keepFailed(
  context: BrokerContext,
  deliveries: readonly Delivery[],
  failures: ReadonlyMap<string, Failure>,
): Promise<void> {
  const ttl = context.settings.failedTtl ?? 0;
  const [failedIds, tasks, errors, attempts] = failureArrays(deliveries, failures);
  if (ttl <= 0 || failedIds?.length === 0) return;
  const { messages, failed, now } = context.tables;
  const delivered = new Map(deliveries.map((d) => [d.id, d.deliveries]));
  await context.connection.query(
    `INSERT INTO ${failed} (queue, id, body, task, error, attempts, at, expires_at)
      SELECT m.queue, m.id, m.body, f.task, f.error, f.attempts, ${now}, ${now} + $6
      FROM unnest($1::text[], $2::text[], $3::jsonb[], $4::integer[], $5::integer[])
        AS f(id, task, error, attempts, deliveries)
      JOIN ${messages} AS m ON m.id = f.id AND m.deliveries = f.deliveries AND m.lease_until IS NOT NULL
      ON CONFLICT (queue, id) DO UPDATE SET body = excluded.body, task = excluded.task, error = excluded.error,
        attempts = excluded.attempts, at = excluded.at, expires_at = excluded.expires_at`,
    [failedIds, tasks, errors, attempts, failedIds?.map((id) => delivered.get(id as string)), ttl],
  );
  await trimFailed(context, [...new Set(deliveries.map((d) => d.queue))]);
}
