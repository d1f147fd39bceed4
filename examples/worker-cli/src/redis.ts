/**
 * The demo's own Redis client: a quick check that Redis answers (a worker waits for Redis without a
 * word, so the demo asks first), and the cleanup of this run's keys, which touches nothing else.
 */
import { Redis } from 'ioredis';

/** Pings Redis once, without retries; returns the open client, or an error message. */
export async function openRedis(url: string): Promise<Redis | string> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  const errors: string[] = [];
  redis.on('error', (error: Error) => errors.push(error.message));
  try {
    await redis.connect();
    await redis.ping();
    return redis;
  } catch (error) {
    redis.disconnect();
    return errors[0] ?? (error as Error).message;
  }
}

/** UNLINKs the keys under `prefix:` (found with SCAN MATCH; nothing else is touched); returns how many went. */
export async function unlinkPrefix(redis: Redis, prefix: string): Promise<number> {
  let removed = 0;
  const stream = redis.scanStream({ match: `${prefix}:*`, count: 500 });
  for await (const keys of stream as AsyncIterable<string[]>) {
    if (keys.length > 0) removed += await redis.unlink(...keys);
  }
  return removed;
}
