/** Closing an ioredis client whatever its state. */
import type { Redis } from 'ioredis';

/** Quits politely when connected; otherwise stops reconnecting at once (QUIT would wait for a connection). */
export async function closeClient(client: Redis): Promise<void> {
  if (client.status !== 'ready') return client.disconnect();
  await client.quit().catch(() => client.disconnect());
}
