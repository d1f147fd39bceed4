/**
 * Moves of one leased message out of its lease: back to its queue (now or after a delay, optionally
 * with a new body), back as a lost run (counting a delivery), or into the dead-letter table. Each is
 * one statement, and matches the lease by id and delivery count, so a stale delivery moves nothing.
 */
import type { Delivery } from '@celeriac/core';
import type { BrokerContext } from './broker-context';
import { bury, releaseSlots, workNotice } from './fragments';

/** The reason a lost run past `maxDeliveries` is dead-lettered with, after the caller's own. */
export function pastMaxDeliveries(context: BrokerContext): string {
  return `delivered more than maxDeliveries (${context.settings.maxDeliveries}) times`;
}

/** Returns a leased message to its queue after `delay` ms, with `body` when given. */
export async function requeue(
  context: BrokerContext,
  delivery: Delivery,
  options: { delay?: number; body?: string } = {},
): Promise<void> {
  const { messages, now } = context.tables;
  await context.connection.query(
    `WITH back AS (
        UPDATE ${messages} SET lease_until = NULL, run_at = ${now} + $3, body = coalesce($4, body)
        WHERE id = $1 AND deliveries = $2 AND lease_until IS NOT NULL
        RETURNING id, queue, run_at, limits)
      SELECT ${workNotice(context, 'back')} AS notified, ${releaseSlots(context, 'back')} AS woken`,
    [delivery.id, delivery.deliveries, Math.max(0, options.delay ?? 0), options.body ?? null],
  );
}

/**
 * Returns a leased message whose run was lost to its queue with one more delivery counted, or, past
 * `maxDeliveries`, moves it to the dead-letter table with `reason`.
 */
export async function requeueLost(
  context: BrokerContext,
  delivery: Delivery,
  reason: string,
): Promise<'requeued' | 'dead'> {
  const { messages, now } = context.tables;
  const [row] = await context.connection.query<{ dead: string }>(
    `WITH lost AS (
        SELECT id FROM ${messages} WHERE id = $1 AND deliveries = $2 AND lease_until IS NOT NULL FOR UPDATE),
      back AS (
        UPDATE ${messages} AS m SET lease_until = NULL, run_at = ${now}, deliveries = m.deliveries + 1
        FROM lost WHERE m.id = lost.id AND m.deliveries < $3
        RETURNING m.id, m.queue, m.run_at, m.limits),
      gone AS (
        DELETE FROM ${messages} AS m USING lost WHERE m.id = lost.id AND m.deliveries >= $3 RETURNING m.*),
      buried AS (${bury(context, 'gone', '$4', '$5')})
      SELECT (SELECT count(*) FROM buried) AS dead, ${workNotice(context, 'back')} AS notified,
        ${releaseSlots(context, 'back')} + ${releaseSlots(context, 'gone')} AS woken`,
    [
      delivery.id,
      delivery.deliveries,
      context.settings.maxDeliveries,
      `${reason}; ${pastMaxDeliveries(context)}`,
      context.settings.maxMessageSize ?? 0,
    ],
  );
  return Number(row?.dead ?? 0) > 0 ? 'dead' : 'requeued';
}

/** Moves a leased message to the dead-letter table with `reason`. */
export async function deadLetter(context: BrokerContext, delivery: Delivery, reason: string): Promise<void> {
  const { messages } = context.tables;
  await context.connection.query(
    `WITH gone AS (
        DELETE FROM ${messages} WHERE id = $1 AND deliveries = $2 AND lease_until IS NOT NULL RETURNING *),
      buried AS (${bury(context, 'gone', '$3', '$4')})
      SELECT ${releaseSlots(context, 'gone')} AS woken`,
    [delivery.id, delivery.deliveries, reason, context.settings.maxMessageSize ?? 0],
  );
}
