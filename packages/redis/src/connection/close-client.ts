/** Closing an ioredis client whatever its state. */
import type { RedisClient } from './redis-client';

/** Quits politely when connected; otherwise stops reconnecting at once (QUIT would wait for a connection). */
export async function closeClient(client: RedisClient): Promise<void> {
  if (client.status !== 'ready') return client.disconnect();
  await client.quit().catch(() => client.disconnect());
}
