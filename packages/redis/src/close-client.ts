/** Closing an ioredis client whatever its state. */
import type { Redis } from 'ioredis';

/**
 * Quits politely when connected; otherwise stops reconnecting at once (QUIT would wait for a connection).
 * Either way it ends with `disconnect()`: after QUIT, ioredis leaves a Sentinel client's failover
 * detector (its connections to the Sentinels) open; `disconnect()` closes it.
 */
export async function closeClient(client: Redis): Promise<void> {
  if (client.status === 'ready') await client.quit().catch(() => undefined);
  client.disconnect();
}
