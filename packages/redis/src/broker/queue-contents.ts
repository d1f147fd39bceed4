/** What the Redis broker's queues hold: their names, counts by place, and purging what waits in one. */
import type { PurgedMessage, QueueStats } from '@celeriac/core';
import { queueScript, type BrokerContext } from './broker-context';

/** The names of the queues published to, sorted. */
export async function queueNames(context: BrokerContext): Promise<string[]> {
  return (await context.connection.client.smembers(context.keys.queues)).sort();
}

/** How many messages of `queue` are ready, delayed, leased and dead. */
export async function queueStats(context: BrokerContext, queue: string): Promise<QueueStats> {
  const keys = context.keys.queue(queue);
  const results =
    (await context.connection.client
      .pipeline()
      .zcard(keys.ready)
      .zcard(keys.delayed)
      .zcard(keys.active)
      .zcard(keys.dead)
      .exec()) ?? [];
  const [ready, delayed, active, dead] = results.map(([error, count]) => {
    if (error) throw error;
    return Number(count);
  });
  return { ready: ready ?? 0, delayed: delayed ?? 0, active: active ?? 0, dead: dead ?? 0 };
}

/** Removes the messages of `queue` that are not leased, and returns them. */
export async function purgeQueue(context: BrokerContext, queue: string): Promise<PurgedMessage[]> {
  const reply = await queueScript<string[]>(context, 'purge', queue, []);
  const removed: PurgedMessage[] = [];
  for (let index = 0; index < reply.length; index += 2)
    removed.push({ id: reply[index] as string, body: reply[index + 1] as string });
  return removed;
}
