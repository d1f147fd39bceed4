/**
 * Notifications whose payload may be over NOTIFY's 8000-byte limit (control requests and replies):
 * a small one travels whole (`=` then the text), a large one is stored in the notices table and the
 * notification carries its row id (`#` then the id); receivers read it back. Stored notices are
 * deleted once older than a minute.
 */
import type { BrokerContext } from './broker-context';

/** Payloads up to this many bytes travel in the notification itself. */
const INLINE_BYTES = 7_900;
/** How long a stored notice is kept for its receivers to read, in ms. */
const NOTICE_TTL_MS = 60_000;

/** Sends `payload` on `channel`, whatever its size. */
export async function notify(context: BrokerContext, channel: string, payload: string): Promise<void> {
  if (Buffer.byteLength(payload) <= INLINE_BYTES) {
    await context.connection.query('SELECT pg_notify($1, $2)', [channel, `=${payload}`]);
    return;
  }
  const { notices, now } = context.tables;
  await context.connection.query(
    `WITH swept AS (DELETE FROM ${notices} WHERE at < ${now} - $3),
      stored AS (INSERT INTO ${notices} (payload, at) VALUES ($2, ${now}) RETURNING id)
      SELECT pg_notify($1, '#' || id) FROM stored`,
    [channel, payload, NOTICE_TTL_MS],
  );
}

/** The payload a notification sent by {@link notify} carries, or undefined when it is gone or not one. */
export async function noticePayload(context: BrokerContext, notification: string): Promise<string | undefined> {
  if (notification.startsWith('=')) return notification.slice(1);
  if (!notification.startsWith('#')) return undefined;
  const [row] = await context.connection.query<{ payload: string }>(
    `SELECT payload FROM ${context.tables.notices} WHERE id = $1`,
    [notification.slice(1)],
  );
  return row?.payload;
}
