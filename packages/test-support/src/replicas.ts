/**
 * The replicas of a test master, found through its `INFO replication`, and a way to make them stop
 * confirming writes for a while: the test servers run on this machine, so their processes are
 * stopped (SIGSTOP) and continued (SIGCONT), which Redis sees as a replica that went quiet.
 */
import { Redis } from 'ioredis';
import { type RedisClient } from '@celeriac/redis';
import { isCluster } from '@celeriac/redis/internal';
import { masterFor } from '../../redis/src/connection/redis-client';

/** `host:port` of each replica `master` reports (none on the shared single node). */
export async function replicaAddresses(master: Redis): Promise<{ host: string; port: number }[]> {
  const info = await master.info('replication');
  return [...info.matchAll(/^slave\d+:ip=([^,]+),port=(\d+)/gm)].map(([, host, port]) => ({
    host: host!,
    port: Number(port),
  }));
}

/**
 * The connection of `client` to the master that holds `key`: on a cluster, the master of its slot;
 * else the client itself.
 */
export async function masterHolding(client: RedisClient, key: string): Promise<Redis> {
  if (!isCluster(client)) return client;
  await client.ping();
  const master = masterFor(client, key);
  if (!master) throw new Error(`The test cluster has no master for ${key}.`);
  return master;
}

/**
 * Runs `body` while every replica of `master` is stopped, so that no write on `master` is confirmed
 * by a replica meanwhile; the replicas continue afterwards, whatever `body` did.
 */
export async function withReplicasStopped<T>(master: Redis, body: () => Promise<T>): Promise<T> {
  const pids = await Promise.all(
    (await replicaAddresses(master)).map(async (address) => {
      const replica = new Redis(address);
      try {
        return Number(/^process_id:(\d+)/m.exec(await replica.info('server'))?.[1]);
      } finally {
        replica.disconnect();
      }
    }),
  );
  for (const pid of pids) process.kill(pid, 'SIGSTOP');
  try {
    return await body();
  } finally {
    for (const pid of pids) process.kill(pid, 'SIGCONT');
  }
}
