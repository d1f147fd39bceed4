/**
 * Dead letters on the Redis broker: a delivery that must not run again is moved to its queue's
 * `dead` set with the reason; operators list them, send them back to the queue or discard them.
 */
import type { DeadLetter, Delivery } from '@celeriac/core';
import { queueScript, type BrokerContext } from './broker-context';

/** Moves a leased delivery to its queue's dead letters, with `reason`. */
export async function deadLetter(context: BrokerContext, delivery: Delivery, reason: string): Promise<void> {
  await queueScript(context, 'deadLetter', delivery.queue, [
    delivery.id,
    delivery.deliveries,
    Date.now(),
    reason,
    context.settings.maxMessageSize ?? 0,
  ]);
}

/** A page of the dead letters of `queue`, oldest first. */
export async function listDead(
  context: BrokerContext,
  queue: string,
  options: { offset?: number; limit?: number } = {},
): Promise<DeadLetter[]> {
  const { client } = context.connection;
  const keys = context.keys.queue(queue);
  const offset = options.offset ?? 0;
  const ids = await client.zrange(keys.dead, offset, offset + (options.limit ?? 100) - 1);
  if (ids.length === 0) return [];
  const infos = await client.hmget(keys.deadInfo, ...ids);
  return ids.flatMap((id, index) => {
    const info = infos[index];
    if (!info) return [];
    const parsed = deadInfoOf(info);
    const letter: DeadLetter = { id, queue, body: parsed.body, reason: parsed.reason, at: parsed.at };
    return [parsed.size === undefined ? letter : { ...letter, size: parsed.size }];
  });
}

/** Sends dead letters of `queue` back to it (all without `ids`); how many went. */
export async function requeueDead(context: BrokerContext, queue: string, ids?: readonly string[]): Promise<number> {
  // No ids means all to the script; an empty list means none.
  if (ids?.length === 0) return 0;
  return queueScript<number>(context, 'requeueDead', queue, ids ?? []);
}

/** Deletes dead letters of `queue` (all without `ids`); how many went. */
export async function discardDead(context: BrokerContext, queue: string, ids?: readonly string[]): Promise<number> {
  if (ids?.length === 0) return 0;
  return queueScript<number>(context, 'discardDead', queue, ids ?? []);
}

/** A dead letter's stored details; text written there by something else is shown as it is, not thrown on. */
function deadInfoOf(text: string): { body: string; reason: string; at: number; size?: number } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const fields = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  const info: { body: string; reason: string; at: number; size?: number } = {
    body: typeof fields.body === 'string' ? fields.body : text,
    reason: typeof fields.reason === 'string' ? fields.reason : 'unreadable dead-letter record',
    at: typeof fields.at === 'number' ? fields.at : 0,
  };
  if (typeof fields.size === 'number') info.size = fields.size;
  return info;
}
