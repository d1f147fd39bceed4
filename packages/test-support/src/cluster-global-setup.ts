/**
 * Starting and stopping the test cluster (redis-cluster.ts) around a jest run: for the `cluster`
 * project, and for every project when `CELERIAC_REDIS_TOPOLOGY=cluster` runs the whole suite on it.
 * The teardown stops only a cluster this run started.
 */
import { startTestCluster, stopTestCluster, type TestClusterState } from './redis-cluster';

const started: TestClusterState[] = [];

/** Starts the test cluster, or reuses one that is up. */
export async function startClusterForTests(): Promise<void> {
  started.push(await startTestCluster());
}

/** Stops what {@link startClusterForTests} started. */
export async function stopClusterForTests(): Promise<void> {
  await Promise.all(started.splice(0).map((state) => stopTestCluster(state)));
}
