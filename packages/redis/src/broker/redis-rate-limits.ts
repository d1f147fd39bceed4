/**
 * Rate limits changed at run time (`app.control.rateLimit`): kept app-wide for listing, and copied
 * into the meta hash of every known queue, where the reserve script reads it (one hash slot a script).
 */
import type { RateSetting } from '@celeriac/core';
import { corked } from '../connection/connection';
import type { KeySpace } from '../keys';
import type { RedisClient } from '../connection/redis-client';

/** Sets (or with undefined, clears) the rate of every scope of `task` in every known queue. */
export async function setRateLimit(
  client: RedisClient,
  keys: KeySpace,
  task: string,
  rate: RateSetting | undefined,
): Promise<void> {
  const queues = await client.smembers(keys.queues);
  const field = `rate-limit:${task}`;
  const value = rate ? JSON.stringify({ limit: rate.limit, per: rate.per, burst: rate.burst }) : undefined;
  // One command a hash, in one write (the queues' hashes are in different slots on a cluster).
  await Promise.all(
    corked(client, () =>
      [keys.rateLimits, ...queues.map((queue) => keys.queue(queue).meta)].map((hash, index) => {
        const name = index === 0 ? task : field;
        return value === undefined ? client.hdel(hash, name) : client.hset(hash, name, value);
      }),
    ),
  );
}

/** The rates set at run time, by task name (an unreadable entry is left out). */
export async function listRateLimits(client: RedisClient, keys: KeySpace): Promise<Record<string, RateSetting>> {
  const stored = await client.hgetall(keys.rateLimits);
  const rates: Record<string, RateSetting> = {};
  for (const [task, text] of Object.entries(stored)) {
    try {
      const { limit, per, burst } = JSON.parse(text) as RateSetting;
      rates[task] = { limit, per, burst };
    } catch {
      // Written by something else: not a rate this app set.
    }
  }
  return rates;
}
