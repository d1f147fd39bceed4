/**
 * A local Redis Cluster for the tests: three masters with one replica each on 127.0.0.1:7000-7005,
 * started with `redis-server --cluster-enabled yes` and joined with `redis-cli --cluster create`.
 * One already up (cluster_state:ok on every port) is reused and left running; one started here is
 * stopped by {@link stopTestCluster}. The shared Redis on 6379 is never touched.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The cluster's ports: 7000-7002 start as masters, 7003-7005 as their replicas. */
export const CLUSTER_PORTS = [7000, 7001, 7002, 7003, 7004, 7005] as const;

/** The URL of the test cluster. */
export const CLUSTER_URL = `redis+cluster://${CLUSTER_PORTS.slice(0, 3)
  .map((port) => `127.0.0.1:${port}`)
  .join(',')}`;

/** What {@link startTestCluster} did: started the servers (in `dir`) or found them running. */
export interface TestClusterState {
  started: boolean;
  dir?: string;
}

/** Runs redis-cli against one port; resolves with its output, or undefined when it fails. */
async function cli(port: number, ...args: string[]): Promise<string | undefined> {
  try {
    const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 10_000 });
    return stdout;
  } catch {
    return undefined;
  }
}

/** True when every node answers and reports cluster_state:ok with every slot assigned. */
async function clusterOk(): Promise<boolean> {
  const infos = await Promise.all(CLUSTER_PORTS.map((port) => cli(port, 'cluster', 'info')));
  return infos.every((info) => info?.includes('cluster_state:ok') && info.includes('cluster_slots_assigned:16384'));
}

/** Resolves once `check` is true; throws after `ms`. */
async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`The test cluster did not ${what} within ${ms} ms.`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Starts the test cluster unless one is up already. */
export async function startTestCluster(): Promise<TestClusterState> {
  if (await clusterOk()) return { started: false };
  const dir = mkdtempSync(join(tmpdir(), 'celeriac-cluster-'));
  for (const port of CLUSTER_PORTS) await startClusterNode(port, join(dir, String(port)));
  await until(
    async () => (await Promise.all(CLUSTER_PORTS.map((port) => cli(port, 'ping')))).every(Boolean),
    10_000,
    'answer',
  );
  await run(
    'redis-cli',
    [
      '--cluster',
      'create',
      ...CLUSTER_PORTS.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      '1',
      '--cluster-yes',
    ],
    { timeout: 30_000 },
  );
  await until(clusterOk, 30_000, 'reach cluster_state:ok');
  return { started: true, dir };
}

/**
 * Starts one node of the test cluster in `dir` (its `nodes.conf` there: a node started again in the
 * same directory rejoins the cluster, as a replica if a failover promoted another master meanwhile).
 */
export async function startClusterNode(port: number, dir: string): Promise<void> {
  await run('mkdir', ['-p', dir]);
  await run('redis-server', [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    'nodes.conf',
    // Quick failover in the failover test: a killed master's replica is promoted after about this long.
    '--cluster-node-timeout',
    '2000',
    '--save',
    '',
    '--appendonly',
    'no',
    '--daemonize',
    'yes',
    '--dir',
    dir,
  ]);
}

/** Resolves once every node of the test cluster answers and reports cluster_state:ok. */
export function untilClusterOk(ms = 30_000): Promise<void> {
  return until(clusterOk, ms, 'reach cluster_state:ok');
}

/** Stops a cluster that {@link startTestCluster} started (one found running is left alone). */
export async function stopTestCluster(state: TestClusterState): Promise<void> {
  if (!state.started) return;
  await Promise.all(CLUSTER_PORTS.map((port) => cli(port, 'shutdown', 'nosave')));
  if (state.dir) rmSync(state.dir, { recursive: true, force: true });
}
