/**
 * Rate limits changed at run time (`app.control.rateLimit`): kept app-wide for listing, and copied
 * into the meta hash of every known queue, where the reserve script reads it (one hash slot a script).
 */
import type { RateSetting } from '@celeriac/core';
import type { Redis } from 'ioredis';
import type { KeySpace } from './keys';

/** Sets (or with undefined, clears) the rate of every scope of `task` in every known queue. */
export async function setRateLimit(
  client: Redis,
  keys: KeySpace,
  task: string,
  rate: RateSetting | undefined,
): Promise<void> {
  const queues = await client.smembers(keys.queues);
  const field = `rate-limit:${task}`;
  const value = rate ? JSON.stringify({ limit: rate.limit, per: rate.per, burst: rate.burst }) : undefined;
  const pipeline = client.pipeline();
  if (value === undefined) pipeline.hdel(keys.rateLimits, task);
  else pipeline.hset(keys.rateLimits, task, value);
  for (const queue of queues) {
    const meta = keys.queue(queue).meta;
    if (value === undefined) pipeline.hdel(meta, field);
    else pipeline.hset(meta, field, value);
  }
  const results = (await pipeline.exec()) ?? [];
  const failed = results.find(([error]) => error);
  if (failed?.[0]) throw failed[0];
}

/** The rates set at run time, by task name (an unreadable entry is left out). */
export async function listRateLimits(client: Redis, keys: KeySpace): Promise<Record<string, RateSetting>> {
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
