/**
 * `durability: 'replicated'`: a write counts as done once replicas hold it. Redis replicates
 * asynchronously; `WAIT n timeout` on the connection that wrote answers once `n` replicas
 * acknowledged everything this connection wrote before it, or when the timeout passes.
 */
import { CeleriacError, type ReplicationSettings } from '@celeriac/core';
import { singleNode, type RedisClient } from './redis-client';

/**
 * Resolves once `replication.replicas` replicas hold every write `client` made so far; at once when
 * `replication` is undefined (`durability: 'async'`). Call it after the writes' replies came back:
 * a script ioredis had to send again (NOSCRIPT) would otherwise follow the WAIT.
 * @throws CeleriacError `CELERIAC_NOT_REPLICATED` when too few replicas confirmed in time.
 */
export async function awaitReplicas(
  client: RedisClient,
  replication: ReplicationSettings | undefined,
  what: string,
): Promise<void> {
  if (!replication) return;
  const { replicas, timeout } = replication;
  const confirmed = await singleNode(client, "durability: 'replicated'").wait(replicas, timeout);
  if (confirmed >= replicas) return;
  throw new CeleriacError(
    'CELERIAC_NOT_REPLICATED',
    `The Redis master stored ${what}, but ${confirmed} of the ${replicas} replica(s) asked for confirmed it within ` +
      `${timeout} ms (durability: 'replicated'), so a failover now could lose it. Check the replicas ` +
      `(INFO replication on the master) or raise replicationTimeout.`,
  );
}

/**
 * Checks at start that `durability: 'replicated'` can be kept on `client`: WAIT answers for the one
 * connection that wrote, and a cluster client writes through a connection per master.
 * @throws CeleriacError `CELERIAC_INVALID_OPTION` on Redis Cluster.
 */
export function assertReplicable(client: RedisClient, replication: ReplicationSettings | undefined): void {
  if (replication) singleNode(client, "durability: 'replicated'");
}
