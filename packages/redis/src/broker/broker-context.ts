/** What the parts of the Redis broker share, and how they run a queue's script on its keys. */
import type { BrokerSettings, Delivery } from '@celeriac/core';
import type { RedisConnection } from '../connection/connection';
import type { RedisFailedRegistry } from './failed-registry';
import { queueKeyList, type KeySpace } from '../keys';
import type { QueueScript } from '../scripting/script-keys';
import { runScript } from '../scripting/scripts';

/** The connection, key layout, settings and state one Redis broker's parts work with. */
export interface BrokerContext {
  readonly connection: RedisConnection;
  readonly keys: KeySpace;
  readonly settings: BrokerSettings;
  /** The failed-task registry, written atomically with the acks of tasks that failed for good. */
  readonly failed: RedisFailedRegistry;
  /** True once the broker is closed: a wait it ends then is not a lost connection. */
  isClosed(): boolean;
}

/** Runs a queue script with the keys of `queue`. */
export function queueScript<T = unknown>(
  context: BrokerContext,
  name: QueueScript,
  queue: string,
  args: ReadonlyArray<string | number>,
): Promise<T> {
  return runScript<T>(context.connection.client, name, queueKeyList(context.keys.queue(queue)), args);
}

/** Deliveries by queue: a queue's scripts take its own deliveries (one hash tag on a cluster). */
export function groupByQueue(deliveries: readonly Delivery[]): Map<string, Delivery[]> {
  const byQueue = new Map<string, Delivery[]>();
  for (const delivery of deliveries) {
    const list = byQueue.get(delivery.queue) ?? [];
    list.push(delivery);
    byQueue.set(delivery.queue, list);
  }
  return byQueue;
}
