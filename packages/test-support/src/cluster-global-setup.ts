/**
 * Jest global setup: starts the test cluster (redis-cluster.ts) for the `cluster` project, and for
 * every project when `CELERIAC_REDIS_TOPOLOGY=cluster` runs the whole suite on it. Its teardown
 * stops a cluster this run started.
 */
import { startTestCluster, stopTestCluster, type TestClusterState } from './redis-cluster';

/** The part of jest's project config read here. */
interface ProjectConfig {
  displayName?: { name: string } | string;
}

const started: TestClusterState[] = [];

/** Starts the cluster when this project runs on it. */
export async function setup(_global: unknown, project: ProjectConfig): Promise<void> {
  const name = typeof project.displayName === 'string' ? project.displayName : project.displayName?.name;
  if (name !== 'cluster' && process.env.CELERIAC_REDIS_TOPOLOGY !== 'cluster') return;
  started.push(await startTestCluster());
}

/** Stops what {@link setup} started. */
export async function teardown(): Promise<void> {
  await Promise.all(started.splice(0).map((state) => stopTestCluster(state)));
}
