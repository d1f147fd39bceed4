/**
 * A Sentinel setup on loopback for the tests: a master on 6390, a replica on 6391 and three Sentinels
 * on 26390-26392 watching them as `celeriac-test` (quorum 2, a master is down after 1 s). Servers
 * run daemonized from generated config files in one temp folder, keep nothing on disk, and are
 * reused while all of them answer. After a failover the master is whichever one Sentinel names.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { answers, onPort } from './on-port';

/** The name the Sentinels know the master by. */
export const SENTINEL_MASTER = 'celeriac-test';
/** The ports of the two Redis servers (first the initial master). */
export const SENTINEL_SERVER_PORTS = [6390, 6391] as const;
/** The ports of the three Sentinels. */
export const SENTINEL_PORTS = [26390, 26391, 26392] as const;
/** The URL an app uses to reach the master through the Sentinels. */
export const SENTINEL_URL = `redis+sentinel://${SENTINEL_PORTS.map((port) => `127.0.0.1:${port}`).join(',')}/${SENTINEL_MASTER}`;

const HOST = '127.0.0.1';
const FOLDER = join(tmpdir(), 'celeriac-test-sentinel');
const run = promisify(execFile);

/**
 * Starts the setup unless all of it answers and is healthy already; resolves once a failover is
 * possible, with whether it started the servers.
 */
export async function startSentinelServers(): Promise<boolean> {
  const ports = [...SENTINEL_SERVER_PORTS, ...SENTINEL_PORTS];
  const answering = await Promise.all(ports.map((port) => answers(port)));
  if (answering.every(Boolean) && (await healthy())) return false;
  await stopSentinelServers();
  rmSync(FOLDER, { recursive: true, force: true });
  mkdirSync(FOLDER, { recursive: true });
  const [master, replica] = SENTINEL_SERVER_PORTS;
  await startServer(master);
  await startServer(replica, master);
  for (const port of SENTINEL_PORTS) await startSentinel(port, master);
  await until(healthy, 'the Sentinels to see the master, its replica and each other');
  return true;
}

/** Stops every server of the setup this folder has a pid file for (kill -9: nothing is kept anyway). */
export async function stopSentinelServers(): Promise<void> {
  for (const port of [...SENTINEL_SERVER_PORTS, ...SENTINEL_PORTS]) {
    const pid = pidOf(port);
    if (pid === undefined) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
    await until(async () => !(await answers(port)), `port ${port} to close`);
  }
}

/** The master's port, as the Sentinels name it now. */
export async function sentinelMasterPort(): Promise<number> {
  const reply = await onPort(SENTINEL_PORTS[0], (client) =>
    client.call('SENTINEL', 'get-master-addr-by-name', SENTINEL_MASTER),
  );
  return Number((reply as [string, string])[1]);
}

/** Kills the current master with SIGKILL; resolves with its port once it stopped answering. */
export async function killSentinelMaster(): Promise<number> {
  const port = await sentinelMasterPort();
  const pid = pidOf(port);
  if (pid === undefined) throw new Error(`No pid file for the Redis on port ${port} in ${FOLDER}`);
  process.kill(pid, 'SIGKILL');
  await until(async () => !(await answers(port)), `port ${port} to close`);
  return port;
}

/**
 * A switchover: asks a Sentinel to fail over while the master runs (Sentinel then turns it into a
 * replica); resolves with the old master's port once the request was accepted.
 */
export async function switchSentinelMaster(): Promise<number> {
  const port = await sentinelMasterPort();
  await onPort(SENTINEL_PORTS[0], (client) => client.call('SENTINEL', 'FAILOVER', SENTINEL_MASTER));
  return port;
}

/** Resolves once the setup can fail over again: a master, and a replica in sync that every Sentinel sees. */
export async function untilSentinelsHealthy(): Promise<void> {
  await until(healthy, 'the Sentinels to see a master and a replica in sync');
}

/** Resolves once the Sentinels name a master other than the one on `oldPort`; with its port. */
export async function sentinelFailover(oldPort: number): Promise<number> {
  await until(async () => (await sentinelMasterPort().catch(() => oldPort)) !== oldPort, 'the Sentinels to fail over');
  return sentinelMasterPort();
}

/**
 * Starts a killed server again, as a replica of the current master, and resolves once the setup
 * can fail over again (Sentinels see it as a replica, and it is in sync).
 */
export async function restartSentinelServer(port: number): Promise<void> {
  await startServer(port, await sentinelMasterPort());
  await untilSentinelsHealthy();
}

/** True when the Sentinels agree on a master with one replica in sync and each sees the two others. */
async function healthy(): Promise<boolean> {
  try {
    const masterPort = await sentinelMasterPort();
    const replicaPort = SENTINEL_SERVER_PORTS.find((port) => port !== masterPort) as number;
    const checks = await Promise.all(
      SENTINEL_PORTS.map(async (port) => {
        const fields = await onPort(port, (client) => client.call('SENTINEL', 'master', SENTINEL_MASTER));
        const master = toObject(fields as string[]);
        const replicas = (await onPort(port, (client) =>
          client.call('SENTINEL', 'replicas', SENTINEL_MASTER),
        )) as string[][];
        return (
          replicas.every((replica) => toObject(replica).flags === 'slave') &&
          Number(master.port) === masterPort &&
          master.flags === 'master' &&
          Number(master['num-slaves']) === 1 &&
          Number(master['num-other-sentinels']) === 2
        );
      }),
    );
    const replication = await onPort(replicaPort, (client) => client.info('replication'));
    return checks.every(Boolean) && replication.includes('master_link_status:up');
  } catch {
    return false;
  }
}

async function startServer(port: number, replicaOf?: number): Promise<void> {
  const args = [
    ...['--port', String(port), '--bind', HOST, '--save', '', '--appendonly', 'no', '--daemonize', 'yes'],
    ...['--dir', FOLDER, '--pidfile', pidFile(port), '--logfile', join(FOLDER, `redis-${port}.log`)],
    ...(replicaOf === undefined ? [] : ['--replicaof', HOST, String(replicaOf)]),
  ];
  await run('redis-server', args);
  await until(() => answers(port), `the Redis on port ${port} to answer`);
}

async function startSentinel(port: number, masterPort: number): Promise<void> {
  const config = join(FOLDER, `sentinel-${port}.conf`);
  writeFileSync(
    config,
    [
      `port ${port}`,
      `bind ${HOST}`,
      'daemonize yes',
      `pidfile ${pidFile(port)}`,
      `logfile ${join(FOLDER, `sentinel-${port}.log`)}`,
      `dir ${FOLDER}`,
      `sentinel monitor ${SENTINEL_MASTER} ${HOST} ${masterPort} 2`,
      `sentinel down-after-milliseconds ${SENTINEL_MASTER} 1000`,
      `sentinel failover-timeout ${SENTINEL_MASTER} 5000`,
      '',
    ].join('\n'),
  );
  await run('redis-server', [config, '--sentinel']);
  await until(() => answers(port), `the Sentinel on port ${port} to answer`);
}

function pidFile(port: number): string {
  return join(FOLDER, `${port}.pid`);
}

function pidOf(port: number): number | undefined {
  try {
    return Number(readFileSync(pidFile(port), 'utf8').trim()) || undefined;
  } catch {
    return undefined;
  }
}

function toObject(fields: readonly string[]): Record<string, string> {
  const object: Record<string, string> = {};
  for (let index = 0; index + 1 < fields.length; index += 2)
    object[fields[index] as string] = fields[index + 1] as string;
  return object;
}

/** Polls a condition of external processes (no event to wait on) every 50 ms, for at most 30 s. */
async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what} (logs in ${FOLDER})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
