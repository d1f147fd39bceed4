/**
 * Revocations on the Redis broker: a revoke is noted in a sorted set (kept `revokeTtl`), announced on
 * a channel for running workers, and removes the message from any queue it still waits in.
 */
import type { Revocation } from '@celeriac/core';
import { publish } from '../connection/redis-client';
import { scriptKeys } from '../scripting/script-keys';
import { runScript } from '../scripting/scripts';
import { unavailable } from '../connection/unavailable';
import { queueScript, type BrokerContext } from './broker-context';

/** Notes and announces `revocation`, and takes its message out of the queue it waits in, if any. */
export async function revoke(
  context: BrokerContext,
  revocation: Revocation,
): Promise<{ removed: boolean; body?: string }> {
  const { connection, keys, settings } = context;
  const { client } = connection;
  const now = Date.now();
  const payload = JSON.stringify(revocation);
  await runScript(client, 'revokeNote', scriptKeys('revokeNote', keys), [
    revocation.id,
    now + settings.revokeTtl,
    payload,
    now,
  ]);
  await publish(client, keys.revokeChannel, payload).catch((error: unknown) => {
    throw unavailable(error, `announce the revocation on channel ${keys.revokeChannel}`, connection);
  });
  const queues = await client.smembers(keys.queues);
  const removed = await Promise.all(
    queues.map((queue) => queueScript<string | number>(context, 'revoke', queue, [revocation.id])),
  );
  const body = removed.find((reply): reply is string => typeof reply === 'string');
  return body === undefined ? { removed: false } : { removed: true, body };
}

/** The revocations not expired yet. */
export async function listRevoked(context: BrokerContext): Promise<Revocation[]> {
  const { client } = context.connection;
  const { keys } = context;
  const ids = await client.zrangebyscore(keys.revoked, Date.now(), '+inf');
  if (ids.length === 0) return [];
  const infos = await client.hmget(keys.revokedInfo, ...ids);
  return ids.map((id, index) => {
    const info = infos[index];
    return info ? revocationOf(id, info) : { id, terminate: false };
  });
}

/** Calls `listener` with every revocation announced from now on; resolves to the unsubscribe function. */
export async function onRevoke(
  context: BrokerContext,
  listener: (revocation: Revocation) => void,
): Promise<() => Promise<void>> {
  const { subscriber } = context.connection;
  // Announcements missed while the subscriber reconnected are read back from the stored list.
  const stopRecheck = subscriber.onReconnect(() => {
    listRevoked(context).then(
      (revocations) => revocations.forEach(listener),
      () => undefined,
    );
  });
  const unsubscribe = await subscriber.subscribe(context.keys.revokeChannel, (message) => {
    // A malformed announcement is ignored; the stored list stays authoritative.
    const revocation = revocationOf(undefined, message);
    if (revocation) listener(revocation);
  });
  return async () => {
    stopRecheck();
    await unsubscribe();
  };
}

/**
 * A stored or announced revocation of `id` (taken from the text when undefined). Text written into
 * Redis by something else must not stop a worker from starting: a stored one that does not parse
 * still revokes its id, without terminate; an announcement without an id is dropped.
 */
function revocationOf(id: string, text: string): Revocation;
function revocationOf(id: undefined, text: string): Revocation | undefined;
function revocationOf(id: string | undefined, text: string): Revocation | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const fields =
    typeof parsed === 'object' && parsed !== null ? (parsed as Partial<Record<keyof Revocation, unknown>>) : {};
  const revoked = id ?? (typeof fields.id === 'string' && fields.id.length > 0 ? fields.id : undefined);
  if (revoked === undefined) return undefined;
  return { ...(fields as object), id: revoked, terminate: fields.terminate === true };
}
