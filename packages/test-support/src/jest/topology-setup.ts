/**
 * Jest global setup of the projects that run on the Redis topology `CELERIAC_REDIS_TOPOLOGY` names:
 * starts the test cluster or the Sentinel setup when the suite runs on it; nothing for `single`.
 */
import { startClusterForTests } from '../cluster-global-setup';
import { redisTopology } from '../redis-fixture';
import { startSentinelForTests } from '../sentinel-global-setup';

export default async function setup(): Promise<void> {
  const topology = redisTopology();
  if (topology === 'cluster') await startClusterForTests();
  if (topology === 'sentinel') await startSentinelForTests();
}
