/** Short-lived connections to a loopback Redis on a given port, for servers the tests start themselves. */
import { Redis } from 'ioredis';

const HOST = '127.0.0.1';

/** True when the Redis (or Sentinel) on `port` answers PING (a Redis still loading its data does not). */
export async function answers(port: number): Promise<boolean> {
  try {
    return (await onPort(port, (client) => client.ping())) === 'PONG';
  } catch {
    return false;
  }
}

/** Runs one call on a short-lived connection that does not retry. */
export async function onPort<T>(port: number, call: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis({
    ...{ host: HOST, port, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 },
    // ioredis waits this long for the socket of a refused connection to close, which it already did.
    disconnectTimeout: 10,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await call(client);
  } finally {
    client.disconnect();
  }
}
