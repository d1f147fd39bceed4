/**
 * `durability: 'replicated'`: a write counts as done once replicas hold it. Redis replicates
 * asynchronously; `WAIT n timeout` on the connection that wrote answers once `n` replicas
 * acknowledged everything this connection wrote before it, or when the timeout passes. A cluster
 * client writes through one connection per master, so it waits on each of them.
 */
import { CeleriacError, type ReplicationSettings } from '@celeriac/core';
import { isCluster, type RedisClient } from './redis-client';

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
  // A master this client wrote nothing to answers at once, with the number of its replicas.
  const nodes = isCluster(client) ? client.nodes('master') : [client];
  const confirmations = await Promise.all(nodes.map((node) => node.wait(replicas, timeout)));
  const confirmed = nodes.length === 0 ? 0 : Math.min(...confirmations);
  if (confirmed >= replicas) return;
  throw new CeleriacError(
    'CELERIAC_NOT_REPLICATED',
    `The Redis master stored ${what}, but ${confirmed} of the ${replicas} replica(s) asked for confirmed it within ` +
      `${timeout} ms (durability: 'replicated'), so a failover now could lose it. Check the replicas ` +
      `(INFO replication on the master) or raise replicationTimeout.`,
  );
}
