/**
 * The example's own Redis client: checks that Redis answers before anything starts, and at the end
 * deletes exactly the keys of this run (SCAN MATCH <prefix>:*, then UNLINK), never anything else.
 */
import { Redis } from 'ioredis';

/** Connects once, without retrying; resolves with the client, or with why Redis did not answer. */
export async function connectRedis(url: string): Promise<{ redis: Redis } | { reason: string }> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  let lastError: Error | undefined;
  redis.on('error', (error: Error) => (lastError = error)); // says more than the failed connect() below
  try {
    await redis.connect();
    await redis.ping();
    return { redis };
  } catch (error) {
    redis.disconnect();
    return { reason: (lastError ?? (error as Error)).message };
  }
}

/** Deletes every key under `prefix:`; returns how many. */
export async function deleteKeys(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) deleted += await redis.unlink(...keys);
  } while (cursor !== '0');
  return deleted;
}

/** The URL without its password, for printing. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url;
  }
}
