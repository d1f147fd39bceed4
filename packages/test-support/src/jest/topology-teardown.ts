/** Jest global teardown of the topology projects (see topology-setup.ts): stops what it started. */
import { stopClusterForTests } from '../cluster-global-setup';
import { stopSentinelForTests } from '../sentinel-global-setup';

export default async function teardown(): Promise<void> {
  await Promise.all([stopClusterForTests(), stopSentinelForTests()]);
}
