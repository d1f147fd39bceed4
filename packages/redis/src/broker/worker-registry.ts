/** The workers' records on the Redis broker: one key a worker, written by its heartbeat with a TTL. */
import type { WorkerInfo } from '@celeriac/core';
import { corked } from '../connection/connection';
import { groupBySlot } from '../connection/key-slot';
import { isCluster, scanKeys } from '../connection/redis-client';
import type { BrokerContext } from './broker-context';

/** Writes a worker's record, kept `ttl` ms unless written again. */
export async function writeHeartbeat(context: BrokerContext, info: WorkerInfo, ttl: number): Promise<void> {
  await context.connection.client.set(
    context.keys.worker(info.hostname),
    JSON.stringify(info),
    'PX',
    Math.max(1, Math.round(ttl)),
  );
}

/** Deletes a worker's record (it stopped). */
export async function forgetWorker(context: BrokerContext, hostname: string): Promise<void> {
  await context.connection.client.del(context.keys.worker(hostname));
}

/** The records of the workers alive now. */
export async function listWorkers(context: BrokerContext): Promise<WorkerInfo[]> {
  const { client } = context.connection;
  const keys = await scanKeys(client, context.keys.worker('*'));
  // Heartbeats spread over a cluster's slots: one MGET per slot.
  const groups = isCluster(client) ? groupBySlot(keys, (key) => key) : keys.length > 0 ? [keys] : [];
  const infos = (await Promise.all(corked(client, () => groups.map((group) => client.mget(...group))))).flat();
  return infos.flatMap((info) => (info ? [JSON.parse(info) as WorkerInfo] : []));
}
