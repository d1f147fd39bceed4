/**
 * Kombu's exchange bindings on Redis: a set per exchange, `_kombu.binding.<exchange>`, of
 * `routing key␆␖pattern␆␖queue` members. A direct exchange routes a message to the queues bound
 * under its routing key.
 */
import type { Redis } from 'ioredis';
import { PRIORITY_SEPARATOR, type CeleryKeys } from './keys';

/** The queues a direct exchange routes `routingKey` to, as its bindings say now. */
export async function boundQueues(
  client: Redis,
  keys: CeleryKeys,
  exchange: string,
  routingKey: string,
): Promise<string[]> {
  const queues: string[] = [];
  for (const binding of await client.smembers(keys.binding(exchange))) {
    // Kombu joins the three fields with the same separator as a queue and its priority step.
    const [key, , queue] = binding.split(PRIORITY_SEPARATOR);
    if (key === routingKey && queue) queues.push(queue);
  }
  return queues;
}
