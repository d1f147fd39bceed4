/**
 * Hearing and sending the app's notices from a test as the app does: plain pub/sub on one node or
 * Sentinel, sharded pub/sub on a cluster (SSUBSCRIBE on the master of each channel's slot, SPUBLISH).
 */
import { Cluster, type Redis } from 'ioredis';
import type { RedisClient } from '@celeriac/redis';

/** Subscriptions of a test; see {@link listenTo}. */
export interface NoticeListener {
  /**
   * Resolves once every notice published on the channels before this call reached the handler (a
   * round trip on each listening connection: Redis sends a connection's messages in order).
   */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** Publishes `message` on `channel` the way the app does. */
export function announce(redis: RedisClient, channel: string, message: string): Promise<unknown> {
  return redis instanceof Cluster ? redis.spublish(channel, message) : redis.publish(channel, message);
}

/** Subscribes to `channels` the way the app does; resolves once Redis confirmed every one. */
export async function listenTo(
  redis: RedisClient,
  channels: string[],
  onMessage: (channel: string, message: string) => void,
): Promise<NoticeListener> {
  const connections: Redis[] = [];
  if (redis instanceof Cluster) {
    await redis.ping();
    for (const channel of channels) {
      const slot = Number(await redis.cluster('KEYSLOT', channel));
      const owner = redis.slots[slot]?.[0];
      const node = redis.nodes('master').find((master) => `${master.options.host}:${master.options.port}` === owner);
      if (!node) throw new Error(`No master known for channel ${channel}`);
      const connection = node.duplicate();
      connection.on('smessage', onMessage);
      await connection.ssubscribe(channel);
      connections.push(connection);
    }
  } else {
    const connection = redis.duplicate();
    connection.on('message', onMessage);
    await connection.subscribe(...channels);
    connections.push(connection);
  }
  return {
    flush: async () => void (await Promise.all(connections.map((connection) => connection.ping()))),
    close: async () => void (await Promise.all(connections.map((connection) => connection.quit()))),
  };
}
