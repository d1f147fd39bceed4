/**
 * The two kinds of client a connection holds: one Redis node, or a Redis Cluster. Their commands are
 * the same; what differs is that a cluster serves each key's slot from one master, so a call that
 * spans slots is split (see key-slot.ts), and a scan visits every master.
 */
import { CeleriacError } from '@celeriac/core';
import { Cluster, Redis } from 'ioredis';
import { keySlot } from './key-slot';

/** A client of one Redis node or of a Redis Cluster. */
export type RedisClient = Redis | Cluster;

/** True for an ioredis `Redis` or `Cluster` client (of the ioredis this package uses). */
export function isRedisClient(value: unknown): value is RedisClient {
  return value instanceof Redis || value instanceof Cluster;
}

/**
 * Checks a client made by the caller before the app uses it.
 * @throws CeleriacError `CELERIAC_INVALID_OPTION` for a client with a `keyPrefix` (the app's `prefix`
 * names its keys: ioredis would prefix the keys of a script call but not those the script builds).
 */
export function checkGivenClient(client: RedisClient): void {
  const options = isCluster(client) ? { ...client.options, ...client.options.redisOptions } : client.options;
  if (!options.keyPrefix) return;
  throw new CeleriacError(
    'CELERIAC_INVALID_OPTION',
    `The ioredis client given to the app has keyPrefix ${JSON.stringify(options.keyPrefix)}. Create it without ` +
      `keyPrefix and set the app's prefix option instead.`,
  );
}

/** True when `client` talks to a Redis Cluster. */
export function isCluster(client: RedisClient): client is Cluster {
  return client instanceof Cluster;
}

/**
 * Publishes `message` on `channel`. On a cluster it is sharded pub/sub (SPUBLISH): the notice goes to
 * the master of the channel's slot and stays on that shard, where the `Subscriber` listens, instead
 * of being forwarded to every node. The cluster client routes SPUBLISH by the channel's slot, so each
 * channel's notices go through one connection, in order (a task's progress states), as on one node.
 */
export function publish(client: RedisClient, channel: string, message: string): Promise<unknown> {
  return isCluster(client) ? client.spublish(channel, message) : client.publish(channel, message);
}

/** The command that publishes a notice from a script, matching {@link publish}. */
export function publishCommand(client: RedisClient): 'SPUBLISH' | 'PUBLISH' {
  return isCluster(client) ? 'SPUBLISH' : 'PUBLISH';
}

/**
 * The connection of `cluster` to the master serving `key`, once the cluster knows its slots. Commands
 * the cluster sends for `key` go through this connection, so CLIENT ID on it names theirs.
 */
export function masterFor(cluster: Cluster, key: string): Redis | undefined {
  const nodeKey = cluster.slots[keySlot(key)]?.[0];
  if (nodeKey === undefined) return undefined;
  return cluster.nodes('master').find((node) => `${node.options.host}:${node.options.port}` === nodeKey);
}

/** Every key matching `pattern`, from every master of a cluster (SCAN sees one node's keys). */
export async function scanKeys(client: RedisClient, pattern: string): Promise<string[]> {
  // A cluster client knows its masters once connected.
  if (isCluster(client) && client.status !== 'ready') await client.ping();
  const found: string[] = [];
  for (const node of isCluster(client) ? client.nodes('master') : [client]) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      found.push(...keys);
    } while (cursor !== '0');
  }
  return found;
}

/**
 * `client` as one node's client, for what runs on a single Redis (or Sentinel) only.
 * @throws CeleriacError `CELERIAC_INVALID_OPTION`, naming `what`, for a Redis Cluster client.
 */
export function singleNode(client: RedisClient, what: string): Redis {
  if (!isCluster(client)) return client;
  throw new CeleriacError(
    'CELERIAC_INVALID_OPTION',
    `${what} runs on a single Redis or on Sentinel, not on Redis Cluster. Use a redis:// or ` +
      `redis+sentinel:// URL for this app.`,
  );
}
