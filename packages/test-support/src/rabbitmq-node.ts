/**
 * A RabbitMQ node of a test's own, for settings that are one per server (`consumer_timeout` on
 * 3.10): started on loopback ports away from the machine's node on 5672, in a directory of its
 * own, stopped and removed afterwards.
 */
import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { rabbitmqctl } from './rabbitmq-fixture';

const run = promisify(execFile);

/** What a test asks of its node. */
export interface RabbitNodeOptions {
  /** Names the node (`celeriac-<name>@localhost`); one node of a name runs at a time. */
  readonly name: string;
  /** The AMQP port; the distribution port is 20,000 above it. */
  readonly port: number;
  /** Settings of the `rabbit` application, as Erlang terms (`{consumer_timeout, 3000}`). */
  readonly rabbit?: readonly string[];
}

/** A running test node. */
export interface RabbitNode {
  /** `amqp://guest:guest@127.0.0.1:<port>` (the default vhost). */
  readonly url: string;
  readonly nodeName: string;
  /** Stops the node and starts it again on the same data (durable queues and their messages stay). */
  restart(): Promise<void>;
  /** Kills the node's VM with SIGKILL, as a crashed machine would lose it. */
  kill(): void;
  /** Stops the node and removes its directory. */
  stop(): Promise<void>;
}

/** How long a node may take to start or stop on a loaded machine. */
export const RABBIT_NODE_TIMEOUT = 90_000;

/** Starts a node as `options` say and waits until it serves. */
export async function startRabbitNode(options: RabbitNodeOptions): Promise<RabbitNode> {
  const nodeName = `celeriac-${options.name}@localhost`;
  // One left by a run that was killed would hold the ports.
  await rabbitmqctl('-n', nodeName, 'stop').catch(() => undefined);
  const dir = mkdtempSync(join(tmpdir(), `celeriac-rabbit-${options.name}-`));
  writeFileSync(join(dir, 'rabbitmq.conf'), `listeners.tcp.default = 127.0.0.1:${options.port}\n`);
  writeFileSync(join(dir, 'advanced.config'), `[{rabbit, [${(options.rabbit ?? []).join(', ')}]}].\n`);
  writeFileSync(join(dir, 'enabled_plugins'), '[].\n');
  await ownedByRabbit(dir);
  const env = {
    ...process.env,
    RABBITMQ_NODENAME: nodeName,
    RABBITMQ_NODE_PORT: String(options.port),
    RABBITMQ_DIST_PORT: String(options.port + 20_000),
    RABBITMQ_MNESIA_BASE: join(dir, 'mnesia'),
    RABBITMQ_LOG_BASE: join(dir, 'log'),
    RABBITMQ_CONFIG_FILE: join(dir, 'rabbitmq'),
    RABBITMQ_ADVANCED_CONFIG_FILE: join(dir, 'advanced.config'),
    RABBITMQ_ENABLED_PLUGINS_FILE: join(dir, 'enabled_plugins'),
    RABBITMQ_PID_FILE: join(dir, 'pid'),
  };
  const start = async () => {
    await run('rabbitmq-server', ['-detached'], { env, timeout: RABBIT_NODE_TIMEOUT });
    // -detached returns before the node registers with epmd: wait on the pid file, then on the boot.
    await rabbitmqctl('-n', nodeName, 'wait', join(dir, 'pid'), '--timeout', '60');
  };
  await start();
  return {
    url: `amqp://guest:guest@127.0.0.1:${options.port}`,
    nodeName,
    restart: async () => {
      await rabbitmqctl('-n', nodeName, 'stop');
      await start();
    },
    kill: () => process.kill(Number(readFileSync(join(dir, 'pid'), 'utf8').trim()), 'SIGKILL'),
    stop: async () => {
      await rabbitmqctl('-n', nodeName, 'stop').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** As root, rabbitmq-server runs the node as the rabbitmq user, which must own its directory. */
async function ownedByRabbit(dir: string): Promise<void> {
  if (process.getuid?.() !== 0) return;
  const [uid, gid] = await Promise.all(
    ['-u', '-g'].map(async (flag) => Number((await run('id', [flag, 'rabbitmq'])).stdout.trim())),
  );
  for (const path of [dir, ...readdirSync(dir).map((file) => join(dir, file))])
    chownSync(path, uid as number, gid as number);
}

/** A RabbitMQ cluster of nodes started by a test. */
export interface RabbitCluster {
  readonly nodes: readonly RabbitNode[];
  /** One URL naming every node (`amqp://guest:guest@127.0.0.1:p1,127.0.0.1:p2,…/`), tried in turn. */
  readonly url: string;
  /** Stops every node and removes their directories. */
  stop(): Promise<void>;
}

/**
 * Starts `size` nodes on ports `port`, `port + 1`, … and joins them to the first. They share the
 * Erlang cookie of the user the nodes run as.
 */
export async function startRabbitCluster(name: string, port: number, size: number): Promise<RabbitCluster> {
  const nodes: RabbitNode[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((node) => node.stop()));
  };
  try {
    for (let index = 0; index < size; index += 1) {
      nodes.push(await startRabbitNode({ name: `${name}-${index}`, port: port + index }));
    }
    const [first, ...others] = nodes as [RabbitNode, ...RabbitNode[]];
    for (const node of others) {
      const ctl = (...args: string[]) => rabbitmqctl('-n', node.nodeName, ...args);
      await ctl('stop_app');
      await ctl('join_cluster', first.nodeName);
      await ctl('start_app');
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const hosts = nodes.map((_, index) => `127.0.0.1:${port + index}`).join(',');
  return { nodes, url: `amqp://guest:guest@${hosts}/`, stop };
}

/** The node that leads quorum queue `queue` (of the default vhost), asked of `node`. */
export async function quorumLeader(node: RabbitNode, queue: string): Promise<string> {
  const stdout = await rabbitmqctl('-n', node.nodeName, 'list_queues', '--formatter', 'json', 'name', 'leader');
  const rows = JSON.parse(stdout) as Array<{ name: string; leader: string }>;
  const row = rows.find((each) => each.name === queue);
  if (!row) throw new Error(`No queue ${queue} on ${node.nodeName}.`);
  return row.leader;
}
