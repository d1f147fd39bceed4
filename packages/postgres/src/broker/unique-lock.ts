/**
 * Unique tasks: a lock row per key names the task holding it. A lock is alive while its holder's
 * row says so: still stored ('queued-or-running'), waiting ('queued'), leased ('running'); a
 * throttle ('window') holds for its ttl whatever became of its task. So a task acked, revoked,
 * purged or dead-lettered frees its key without a step of its own.
 */
import type { Envelope, PublishOutcome, TransactionClient, UniqueLock } from '@celeriac/core';
import type { BrokerContext } from './broker-context';
import { publishOn } from './insert-messages';
import { lockKey } from './key-lock';

/** The holder of a unique key as read under its lock. */
interface HolderRow {
  id: string;
  alive: boolean;
}

/** Stores `envelope` unless a live task holds its unique key (the outcome then names that task). */
export async function publishUnique(
  context: BrokerContext,
  client: TransactionClient,
  envelope: Envelope,
  unique: UniqueLock,
): Promise<PublishOutcome | undefined> {
  const { uniqueLocks, messages, now } = context.tables;
  await lockKey(context, client, 'unique', unique.key);
  const { rows } = await client.query(
    `SELECT l.id, l.expires_at > ${now} AND CASE l.mode
          WHEN 'window' THEN true
          WHEN 'running' THEN m.lease_until IS NOT NULL
          WHEN 'queued' THEN m.id IS NOT NULL AND m.lease_until IS NULL
          ELSE m.id IS NOT NULL END AS alive
      FROM ${uniqueLocks} AS l LEFT JOIN ${messages} AS m ON m.id = l.id
      WHERE l.key = $1`,
    [unique.key],
  );
  const holder = rows[0] as HolderRow | undefined;
  if (holder?.alive) return { duplicateOf: holder.id };
  const [outcome] = await publishOn(context, [envelope], client);
  if (outcome !== 'published') return outcome;
  await client.query(
    `INSERT INTO ${uniqueLocks} (key, id, mode, expires_at) VALUES ($1, $2, $3, ${now} + $4)
      ON CONFLICT (key) DO UPDATE SET id = excluded.id, mode = excluded.mode, expires_at = excluded.expires_at`,
    [unique.key, envelope.id, unique.while, unique.ttl],
  );
  return 'published';
}
