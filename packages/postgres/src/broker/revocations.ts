/**
 * Revocations: remembered for `revokeTtl` in their own table; a revoke removes the message if it
 * still waits and NOTIFYs every listening worker, in one statement.
 */
import type { Revocation } from '@celeriac/core';
import type { BrokerContext } from './broker-context';

interface RevocationRow {
  id: string;
  terminate: boolean;
  signal: Revocation['signal'] | null;
  grace: number | null;
}

/** A revocation without the fields it does not set. */
function revocationOf(row: RevocationRow): Revocation {
  return {
    id: row.id,
    terminate: row.terminate,
    ...(row.signal !== null && { signal: row.signal }),
    ...(row.grace !== null && { grace: row.grace }),
  };
}

/** Records `revocation`, tells the listeners, and removes its message if it still waits. */
export async function revoke(
  context: BrokerContext,
  revocation: Revocation,
): Promise<{ removed: boolean; body?: string }> {
  const { messages, revocations, now } = context.tables;
  const [row] = await context.connection.query<{ body: string | null }>(
    `WITH recorded AS (
        INSERT INTO ${revocations} (id, terminate, signal, grace, expires_at)
        VALUES ($1, $2, $3, $4, ${now} + $5)
        ON CONFLICT (id) DO UPDATE SET terminate = excluded.terminate, signal = excluded.signal,
          grace = excluded.grace, expires_at = excluded.expires_at),
      swept AS (DELETE FROM ${revocations} WHERE expires_at <= ${now} AND id <> $1),
      removed AS (DELETE FROM ${messages} WHERE id = $1 AND lease_until IS NULL RETURNING body)
      SELECT (SELECT body FROM removed) AS body, pg_notify($6, $7) AS notified`,
    [
      revocation.id,
      revocation.terminate,
      revocation.signal ?? null,
      revocation.grace ?? null,
      context.settings.revokeTtl,
      context.channels.revoke,
      JSON.stringify(revocation),
    ],
  );
  const body = row?.body ?? undefined;
  return body === undefined ? { removed: false } : { removed: true, body };
}

/** The revocations still remembered. */
export async function listRevoked(context: BrokerContext): Promise<Revocation[]> {
  const { revocations, now } = context.tables;
  const rows = await context.connection.query<RevocationRow>(
    `SELECT id, terminate, signal, grace FROM ${revocations} WHERE expires_at > ${now}`,
  );
  return rows.map(revocationOf);
}

/** Calls `listener` for every revocation from now on; returns the unsubscribe function. */
export function onRevoke(
  context: BrokerContext,
  listener: (revocation: Revocation) => void,
): Promise<() => Promise<void>> {
  return context.connection.listener.listen(context.channels.revoke, (payload) => {
    const revocation = parsed(payload);
    if (revocation) listener(revocation);
  });
}

function parsed(payload: string): Revocation | undefined {
  try {
    const value = JSON.parse(payload) as Partial<Revocation>;
    return typeof value.id === 'string' && typeof value.terminate === 'boolean' ? (value as Revocation) : undefined;
  } catch {
    return undefined;
  }
}
