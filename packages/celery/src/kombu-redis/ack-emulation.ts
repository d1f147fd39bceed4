/**
 * kombu's ack emulation on Redis, as both Celery and Celeriac workers keep it: a taken message waits
 * in the `unacked` hash (delivery tag → `[payload, exchange, routing key]`), scored in `unacked_index`
 * by when it was taken. Acknowledging removes it; a message whose score is older than the visibility
 * timeout goes back to its queue, whoever took it. Celeriac workers renew the score of what they run
 * (a Python worker does not), so a long Celeriac task is not restored while its worker lives.
 */
import type { Redis } from 'ioredis';
import type { CeleryPayload } from '../protocol/payload';
import { boundQueues } from './bindings';
import { celeryScripts } from './celery-scripts';
import type { CeleryKeys } from './keys';

/** A message held in the ack emulation by this process. */
export interface HeldMessage {
  readonly tag: string;
  /** The payload as taken from the queue. */
  readonly payload: CeleryPayload;
  /** The queue it was taken from. */
  readonly queue: string;
}

/** Most lapsed entries restored by one sweep. */
const RESTORE_LIMIT = 100;

/** Epoch seconds, as kombu scores `unacked_index`. */
export function epochSeconds(ms: number = Date.now()): number {
  return ms / 1000;
}

/** Removes held messages from the ack emulation (kombu's `basic_ack`). */
export async function acknowledge(client: Redis, keys: CeleryKeys, tags: readonly string[]): Promise<void> {
  if (tags.length === 0) return;
  await client
    .multi()
    .zrem(keys.unackedIndex, ...tags)
    .hdel(keys.unacked, ...tags)
    .exec();
}

/** Sets the score of held messages (to now: a renewal; to a due time: an ETA wait). */
export async function rescore(
  client: Redis,
  keys: CeleryKeys,
  tags: readonly string[],
  seconds: number,
): Promise<void> {
  if (tags.length === 0) return;
  await client.zadd(keys.unackedIndex, 'XX', ...tags.flatMap((tag) => [seconds, tag]));
}

/**
 * Returns entries that lapsed (taken or renewed before `ceiling`, epoch seconds) to their queues,
 * marked redelivered as kombu marks them. Returns the task ids restored.
 */
export async function restoreLapsed(client: Redis, keys: CeleryKeys, ceiling: number): Promise<string[]> {
  const tags = await client.zrangebyscore(keys.unackedIndex, '-inf', ceiling, 'LIMIT', 0, RESTORE_LIMIT);
  if (tags.length === 0) return [];
  const entries = await client.hmget(keys.unacked, ...tags);
  const restored: string[] = [];
  for (const [index, tag] of tags.entries()) {
    const entry = entries[index];
    if (entry === null || entry === undefined) {
      // An index entry without its message (kombu removes the two in separate steps): drop it.
      await client.zrem(keys.unackedIndex, tag);
      continue;
    }
    const parsed = parseEntry(entry);
    if (!parsed) continue;
    const [payload, exchange, routingKey] = parsed;
    markRedelivered(payload);
    const queue = await destination(client, keys, exchange, routingKey);
    const done = await celeryScripts.run<number>(
      client,
      'restore',
      [keys.unacked, keys.unackedIndex, keys.queue(queue)],
      [tag, entry, ceiling, JSON.stringify(payload)],
    );
    if (done === 1) restored.push(payload.headers.id);
  }
  return restored;
}

/** Puts a payload back at the head of its queue (the end workers take first) and forgets its tag, in one step. */
export async function putBack(
  client: Redis,
  keys: CeleryKeys,
  held: HeldMessage,
  payload: CeleryPayload,
): Promise<void> {
  await client
    .multi()
    .zrem(keys.unackedIndex, held.tag)
    .hdel(keys.unacked, held.tag)
    .rpush(keys.queue(held.queue), JSON.stringify(payload))
    .exec();
}

/** Marks a payload redelivered, in the two places kombu does. */
export function markRedelivered(payload: CeleryPayload): void {
  if (typeof payload.headers === 'object' && payload.headers !== null) payload.headers.redelivered = true;
  const info = payload.properties?.delivery_info as { redelivered?: boolean } | undefined;
  if (typeof info === 'object' && info !== null) info.redelivered = true;
}

function parseEntry(entry: string): [CeleryPayload, string, string] | undefined {
  try {
    const value = JSON.parse(entry) as unknown;
    if (!Array.isArray(value) || typeof value[0] !== 'object') return undefined;
    return [value[0] as CeleryPayload, String(value[1] ?? ''), String(value[2] ?? '')];
  } catch {
    return undefined;
  }
}

/** The queue an exchange routes a routing key to: the key itself on the default exchange, else by its bindings. */
async function destination(client: Redis, keys: CeleryKeys, exchange: string, routingKey: string): Promise<string> {
  if (exchange === '') return routingKey;
  const [queue] = await boundQueues(client, keys, exchange, routingKey);
  return queue ?? routingKey;
}
