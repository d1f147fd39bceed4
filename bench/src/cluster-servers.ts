/**
 * Fresh Redis servers for the topology benchmark, on loopback ports of their own: one single node and
 * a Redis Cluster of three masters (no replicas). Fresh servers make Redis's own CPU figures (INFO
 * cpu) this benchmark's alone; the shared Redis on 6379 and the test cluster are not touched.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Redis from 'ioredis';

const run = promisify(execFile);

/** The servers started, and how to stop them. */
export interface BenchServers {
  singleUrl: string;
  clusterUrl: string;
  /** The single node's port, then the three masters'. */
  singlePort: number;
  clusterPorts: number[];
  stop(): Promise<void>;
}

/** Starts a redis-server on `port` in `dir`; resolves once it answers PING. */
async function startServer(port: number, dir: string, cluster: boolean): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  if (cluster) args.push('--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`);
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const client = new Redis({ port, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.ping();
      client.disconnect();
      return child;
    } catch {
      client.disconnect();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error(`redis-server on port ${port} did not answer`);
}

/** Starts the single node on `base + 10` and the cluster's masters on `base`..`base + 2`. */
export async function startBenchServers(base = 7300): Promise<BenchServers> {
  const dir = mkdtempSync(join(tmpdir(), 'celeriac-bench-cluster-'));
  const clusterPorts = [base, base + 1, base + 2];
  const singlePort = base + 10;
  const children = await Promise.all([
    startServer(singlePort, dir, false),
    ...clusterPorts.map((port) => startServer(port, dir, true)),
  ]);
  await run('redis-cli', [
    '--cluster',
    'create',
    ...clusterPorts.map((port) => `127.0.0.1:${port}`),
    '--cluster-replicas',
    '0',
    '--cluster-yes',
  ]);
  // Every master must agree the cluster is whole before clients connect.
  for (const port of clusterPorts) {
    for (;;) {
      const { stdout } = await run('redis-cli', ['-p', String(port), 'cluster', 'info']);
      if (stdout.includes('cluster_state:ok')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    singleUrl: `redis://127.0.0.1:${singlePort}/0`,
    clusterUrl: `redis+cluster://${clusterPorts.map((port) => `127.0.0.1:${port}`).join(',')}`,
    singlePort,
    clusterPorts,
    async stop() {
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              child.once('exit', () => resolve());
              child.kill('SIGTERM');
            }),
        ),
      );
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
