/**
 * Reserving from the Redis broker's queues: one reserve script call a queue, in the caller's order,
 * until `count` deliveries; each leases what it takes in the queue's `active` set.
 */
import type { Delivery } from '@celeriac/core';
import { queueScript, type BrokerContext } from './broker-context';
import type { IdleHint } from './idle-hint';

/** The reserve script's reply: the next due time (or ''), then id, body, delivery number per message. */
export type ReserveReply = Array<string | number>;

/** Reserves up to `count` deliveries from `queues`, and notes in `hint` whether they are drained. */
export async function reserveFrom(
  context: BrokerContext,
  hint: IdleHint,
  { queues, count }: { queues: readonly string[]; count: number },
): Promise<Delivery[]> {
  const deliveries: Delivery[] = [];
  const now = Date.now();
  let nextDue: number | undefined;
  let drained = true;
  for (const queue of queues) {
    if (deliveries.length >= count) {
      drained = false;
      break;
    }
    const wanted = count - deliveries.length;
    const reply = await queueScript<ReserveReply>(context, 'reserve', queue, [
      now,
      wanted,
      context.settings.visibilityTimeout,
    ]);
    const taken = parseReserved(queue, reply);
    // '+': more are ready; otherwise the queue is empty and the reply tells the next due time, if any.
    if (reply[0] === '+') drained = false;
    else if (reply[0] !== '' && reply[0] !== undefined) nextDue = Math.min(nextDue ?? Infinity, Number(reply[0]));
    deliveries.push(...taken);
  }
  if (drained) hint.set(queues, nextDue);
  else hint.clear();
  return deliveries;
}

/** The deliveries in a reserve script's reply. */
export function parseReserved(queue: string, reply: ReserveReply): Delivery[] {
  const deliveries: Delivery[] = [];
  for (let i = 1; i < reply.length; i += 3) {
    deliveries.push({ id: String(reply[i]), queue, body: String(reply[i + 1]), deliveries: Number(reply[i + 2]) });
  }
  return deliveries;
}
