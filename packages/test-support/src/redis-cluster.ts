/**
 * A local Redis Cluster for the tests: three masters with one replica each on six loopback ports from
 * a base (7000-7005 for the cluster the suites share; the failover test starts its own on 7100-7105),
 * started with `redis-server --cluster-enabled yes` and joined with `redis-cli --cluster create`.
 * One already up (cluster_state:ok on every port) is reused and left running; one started here is
 * stopped by {@link stopTestCluster}. The shared Redis on 6379 is never touched.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { untilTrue } from './until';

const run = promisify(execFile);

/** The first port of the cluster the suites share. */
export const CLUSTER_BASE_PORT = 7000;

/** The six ports of a test cluster from `base`: the first three start as masters, the rest as their replicas. */
export function clusterPorts(base: number = CLUSTER_BASE_PORT): number[] {
  return Array.from({ length: 6 }, (_, index) => base + index);
}

/** The URL of a test cluster (its masters as startup nodes). */
export function clusterUrl(base: number = CLUSTER_BASE_PORT): string {
  return `redis+cluster://${clusterPorts(base)
    .slice(0, 3)
    .map((port) => `127.0.0.1:${port}`)
    .join(',')}`;
}

/** The ports of the shared test cluster: 7000-7002 start as masters, 7003-7005 as their replicas. */
export const CLUSTER_PORTS = clusterPorts();

/** The URL of the shared test cluster. */
export const CLUSTER_URL = clusterUrl();

/** What {@link startTestCluster} did: started the servers on `ports` (in `dir`) or found them running. */
export interface TestClusterState {
  ports: number[];
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
async function clusterOk(ports: readonly number[]): Promise<boolean> {
  const infos = await Promise.all(ports.map((port) => cli(port, 'cluster', 'info')));
  return infos.every((info) => info?.includes('cluster_state:ok') && info.includes('cluster_slots_assigned:16384'));
}

/** Resolves once `check` is true; throws after `ms`. */
function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  return untilTrue(check, `the test cluster to ${what}`, ms);
}

/** Starts the test cluster on the six ports from `base` unless one is up there already. */
export async function startTestCluster(base: number = CLUSTER_BASE_PORT): Promise<TestClusterState> {
  const ports = clusterPorts(base);
  if (await clusterOk(ports)) return { ports, started: false };
  const dir = mkdtempSync(join(tmpdir(), 'celeriac-cluster-'));
  await Promise.all(ports.map((port) => startClusterNode(port, join(dir, String(port)))));
  await until(async () => (await Promise.all(ports.map((port) => cli(port, 'ping')))).every(Boolean), 10_000, 'answer');
  await run(
    'redis-cli',
    ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '1', '--cluster-yes'],
    { timeout: 30_000 },
  );
  await until(() => clusterOk(ports), 30_000, 'reach cluster_state:ok');
  return { ports, started: true, dir };
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

/** Resolves once every node of the test cluster from `base` answers and reports cluster_state:ok. */
export function untilClusterOk(ms = 30_000, base: number = CLUSTER_BASE_PORT): Promise<void> {
  const ports = clusterPorts(base);
  return until(() => clusterOk(ports), ms, 'reach cluster_state:ok');
}

/** Stops a cluster that {@link startTestCluster} started (one found running is left alone). */
export async function stopTestCluster(state: TestClusterState): Promise<void> {
  if (!state.started) return;
  await Promise.all(state.ports.map((port) => cli(port, 'shutdown', 'nosave')));
  if (state.dir) rmSync(state.dir, { recursive: true, force: true });
}
