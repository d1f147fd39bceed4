/**
 * Writes messages straight into a queue's keys, as a producer that bypasses Celeriac's calls (or an
 * attacker with write access to Redis) would: the body into the `messages` hash, the id into `ready`.
 */
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '@celeriac/redis';
import { KeySpace } from '@celeriac/redis/internal';

/** The JSON of a well-formed message of `task`, with `fields` over it (undefined removes a field). */
export function rawMessage(
  task: string,
  args: unknown[],
  fields: Record<string, unknown> = {},
): { id: string; body: string } {
  const id = randomUUID();
  const message: Record<string, unknown> = {
    version: 1,
    id,
    task,
    args: { json: args },
    queue: 'default',
    priority: 0,
    retries: 0,
    headers: {},
    publishedAt: Date.now(),
    ...fields,
  };
  return { id, body: JSON.stringify(message) };
}

/** Queues `body` under `id` on `queue`, ready now, and wakes a blocked worker. */
export async function injectReady(
  redis: RedisClient,
  prefix: string,
  queue: string,
  id: string,
  body: string,
): Promise<void> {
  const keys = new KeySpace(prefix).queue(queue);
  await redis.hset(keys.messages, id, body);
  // Priority 0 (the lowest) and a sequence of 0: after every message published normally.
  await redis.zadd(keys.ready, 255 * 2 ** 44, id);
  await redis.zadd(keys.marker, 0, 'wake');
}
