/**
 * Debounce: a lock row per key names the task waiting out the key's window. It is honoured only
 * while that task still waits for its start (its row is not leased, not due, not held for a limit
 * nor booked for a rate): a send of the key then names it (`debounceInto`), and the sender's
 * replacement (`replaces`) swaps its body and start time in place.
 */
import type { DebounceWindow, Envelope, PublishOutcome, TransactionClient } from '@celeriac/core';
import { HELD } from '../migrations/102-flow-control';
import type { BrokerContext } from './broker-context';
import { workNotice } from './fragments';
import { publishOn } from './insert-messages';
import { lockKey } from './key-lock';

/** The SQL test that row `m` still waits out its window. */
const WAITING = (now: string) => `m.lease_until IS NULL AND m.run_at > ${now} AND m.run_at < ${HELD} AND NOT m.booked`;

/** Publishes a debounced envelope, or a replacement of the waiting task's message. */
export async function publishDebounced(
  context: BrokerContext,
  client: TransactionClient,
  envelope: Envelope,
  debounce: DebounceWindow,
): Promise<PublishOutcome | undefined> {
  await lockKey(context, client, 'debounce', debounce.key);
  if (envelope.replaces) {
    if (await replace(context, client, envelope)) return { duplicateOf: envelope.id };
    const holder = await waitingHolder(context, client, debounce);
    return holder === undefined || holder === envelope.id ? 'missed' : { debounceInto: holder };
  }
  const holder = await waitingHolder(context, client, debounce);
  if (holder !== undefined) return { debounceInto: holder };
  const [outcome] = await publishOn(context, [envelope], client);
  if (outcome !== 'published') return outcome;
  const { debounceLocks, now } = context.tables;
  await client.query(
    `INSERT INTO ${debounceLocks} (key, id, expires_at) VALUES ($1, $2, coalesce($3, ${now}) + $4)
      ON CONFLICT (key) DO UPDATE SET id = excluded.id, expires_at = excluded.expires_at`,
    [debounce.key, envelope.id, envelope.eta ?? null, debounce.window],
  );
  return 'published';
}

/** The id of the task waiting out `debounce`'s window, if one still does. */
async function waitingHolder(
  context: BrokerContext,
  client: TransactionClient,
  debounce: DebounceWindow,
): Promise<string | undefined> {
  const { debounceLocks, messages, now } = context.tables;
  const { rows } = await client.query(
    `SELECT l.id FROM ${debounceLocks} AS l JOIN ${messages} AS m ON m.id = l.id
      WHERE l.key = $1 AND l.expires_at > ${now} AND ${WAITING(now)}`,
    [debounce.key],
  );
  return (rows[0] as { id: string } | undefined)?.id;
}

/** Swaps the waiting task's body and start time; false when it no longer waits. */
async function replace(context: BrokerContext, client: TransactionClient, envelope: Envelope): Promise<boolean> {
  const { messages, debounceLocks, now } = context.tables;
  const { rows } = await client.query(
    `WITH replaced AS (
        UPDATE ${messages} AS m SET body = $2, run_at = coalesce($3, ${now})
        WHERE m.id = $1 AND ${WAITING(now)}
        RETURNING m.id, m.queue, m.run_at),
      extended AS (
        UPDATE ${debounceLocks} AS l SET expires_at = replaced.run_at + $4 FROM replaced WHERE l.id = replaced.id)
      SELECT (SELECT count(*) FROM replaced) AS replaced, ${workNotice(context, 'replaced')} AS notified`,
    [envelope.id, envelope.body, envelope.eta ?? null, envelope.limits?.debounce?.window ?? 0],
  );
  return Number((rows[0] as { replaced: string } | undefined)?.replaced ?? 0) > 0;
}
