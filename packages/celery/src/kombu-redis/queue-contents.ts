/**
 * What a Celery queue holds, read from kombu's lists and ack emulation: its counts by place, and
 * its waiting messages taken out (purge), as Celeriac task messages.
 */
import type { Codec, PurgedMessage, QueueStats } from '@celeriac/core';
import { encodeMessage } from '@celeriac/core/internal';
import type { Redis } from 'ioredis';
import { fromCeleryPayload } from '../protocol/message';
import type { CeleryPayload } from '../protocol/payload';
import type { CeleryKeys } from './keys';

/**
 * A queue's counts. `delayed` is what this process holds for an eta (kombu keeps no delayed place):
 * those are in the ack emulation too, and count as delayed, not active.
 */
export async function queueStats(client: Redis, keys: CeleryKeys, queue: string, delayed: number): Promise<QueueStats> {
  const pipeline = client.pipeline();
  for (const list of keys.queueLists(queue)) pipeline.llen(list);
  pipeline.hvals(keys.unacked);
  pipeline.llen(keys.dead(queue));
  const replies = ((await pipeline.exec()) ?? []).map(([, value]) => value);
  const lengths = replies.slice(0, 4) as number[];
  const entries = (replies[4] ?? []) as string[];
  // kombu writes `[message, exchange, routing key]` with ", " between items, Celeriac without the space.
  const routedHere = `,${JSON.stringify(queue)}]`;
  const held = entries.filter((entry) => entry.replace(/,\s+(?=[^,]*\]$)/, ',').endsWith(routedHere)).length;
  return {
    ready: lengths.reduce((sum, length) => sum + length, 0),
    delayed,
    active: Math.max(0, held - delayed),
    dead: Number(replies[5] ?? 0),
  };
}

/** Takes every waiting message out of a queue's lists; returns those Celeriac can read. */
export async function purgeQueue(
  client: Redis,
  keys: CeleryKeys,
  codec: Codec,
  queue: string,
): Promise<PurgedMessage[]> {
  const lists = keys.queueLists(queue);
  const multi = client.multi();
  for (const list of lists) multi.lrange(list, 0, -1);
  multi.del(...lists);
  const replies = ((await multi.exec()) ?? []).map(([, value]) => value);
  const raws = (replies.slice(0, lists.length) as string[][]).flat();
  return raws.flatMap((raw) => {
    try {
      const message = fromCeleryPayload(codec, JSON.parse(raw) as CeleryPayload, queue);
      return [{ id: message.id, body: encodeMessage(codec, message) }];
    } catch {
      return [];
    }
  });
}
