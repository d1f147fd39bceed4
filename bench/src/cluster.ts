/**
 * One Redis node against a Redis Cluster of three masters, on fresh servers of their own
 * (cluster-servers.ts): throughput with worker processes at c=100 on three queues (one per master on
 * the cluster), Redis's CPU per task from its own INFO figures, and the round trip one task at a
 * time. Usage: `npm run bench:cluster` (BENCH_ROUNDS: 3; BENCH_JOBS: 30,000 a run; BENCH_WORKERS: 2
 * processes; BENCH_TRIPS: 2,000 round trips).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Celeriac } from 'celeriac';
import Redis from 'ioredis';
import { startBenchServers, type BenchServers } from './cluster-servers';
import { redisCpuMicros } from './process-cpu';
import { commandCounts } from './redis-stats';
import { median, percentile } from './stats';

const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const jobs = Number(process.env.BENCH_JOBS ?? 30_000);
const workerCount = Number(process.env.BENCH_WORKERS ?? 2);
const trips = Number(process.env.BENCH_TRIPS ?? 2_000);

type Topology = 'single' | 'cluster';

interface Sample {
  jobsPerSecond: number;
  /** Redis CPU per task, all nodes summed, and on the busiest node (µs). */
  redisCpu: number;
  busiestNodeCpu: number;
  /** Redis commands per task, all nodes (scripts count their inner commands), and the top ones. */
  commands: number;
  topCommands: string;
  p50: number;
  p99: number;
}

/** Three queue names whose keys sit on three different masters (any three on one node). */
async function spreadQueues(servers: BenchServers, topology: Topology, prefix: string): Promise<string[]> {
  if (topology === 'single') return ['q0', 'q1', 'q2'];
  const node = new Redis(servers.clusterPorts[0] ?? 7300);
  const slots = (await node.cluster('SLOTS')) as unknown as Array<[number, number, [string, number]]>;
  const owner = (slot: number) => slots.find(([from, to]) => slot >= from && slot <= to)?.[2][1];
  const byMaster = new Map<number | undefined, string>();
  for (let i = 0; byMaster.size < 3 && i < 1_000; i += 1) {
    const slot = (await node.cluster('KEYSLOT', `{${prefix}:q${i}}`)) as number;
    if (!byMaster.has(owner(slot))) byMaster.set(owner(slot), `q${i}`);
  }
  node.disconnect();
  return [...byMaster.values()];
}

/** The nodes whose CPU counts: the single node, or the three masters. */
function nodesOf(servers: BenchServers, topology: Topology): Redis[] {
  const ports = topology === 'single' ? [servers.singlePort] : servers.clusterPorts;
  return ports.map((port) => new Redis(port));
}

async function startWorker(url: string, prefix: string, queues: string[], concurrency: number): Promise<ChildProcess> {
  const child = fork(join(__dirname, 'cluster-worker.js'), [url, prefix, queues.join(','), String(concurrency)]);
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`cluster-worker exited with ${code} before it was ready`)));
  });
  return child;
}

function processedBy(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (message) => resolve((message as { processed: number }).processed));
    child.send('count');
  });
}

async function stopWorker(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.send('stop');
  await exited;
}

/** Sends `jobs` tasks over the queues while the workers run; resolves with jobs/s and Redis CPU per task. */
async function throughput(servers: BenchServers, topology: Topology, round: number) {
  const url = topology === 'single' ? servers.singleUrl : servers.clusterUrl;
  const prefix = `bench-topology-${round}-${topology}`;
  const queues = await spreadQueues(servers, topology, prefix);
  const workers = await Promise.all(Array.from({ length: workerCount }, () => startWorker(url, prefix, queues, 100)));
  const app = new Celeriac({ broker: url, prefix });
  const noop = app.task('bench.noop', (i: number) => i);
  const nodes = nodesOf(servers, topology);
  const before = await Promise.all(nodes.map((node) => redisCpuMicros(node)));
  const commandsBefore = await Promise.all(nodes.map((node) => commandCounts(node)));
  const start = process.hrtime.bigint();
  const perQueue = Math.ceil(jobs / queues.length);
  const sends: Array<Promise<unknown>> = [];
  for (let sent = 0; sent < perQueue; sent += 1_000) {
    const batch = Array.from({ length: Math.min(1_000, perQueue - sent) }, (_, i) => [sent + i] as [number]);
    for (const queue of queues) sends.push(...noop.delayMany(batch, { queue }).map((result) => result.sent));
  }
  await Promise.all(sends);
  const total = perQueue * queues.length;
  for (;;) {
    const counts = await Promise.all(workers.map(processedBy));
    if (counts.reduce((sum, count) => sum + count, 0) >= total) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const after = await Promise.all(nodes.map((node) => redisCpuMicros(node)));
  const commandsAfter = await Promise.all(nodes.map((node) => commandCounts(node)));
  const perCommand = new Map<string, number>();
  commandsAfter.forEach((counts, index) => {
    for (const [name, calls] of counts) {
      const delta = calls - (commandsBefore[index]?.get(name) ?? 0);
      if (delta > 0) perCommand.set(name, (perCommand.get(name) ?? 0) + delta / total);
    }
  });
  const perNode = after.map((value, index) => (value - (before[index] ?? 0)) / total);
  await Promise.all(workers.map(stopWorker));
  await app.close();
  for (const node of nodes) node.disconnect();
  return {
    jobsPerSecond: total / seconds,
    redisCpu: perNode.reduce((sum, value) => sum + value, 0),
    busiestNodeCpu: Math.max(...perNode),
    commands: [...perCommand.values()].reduce((sum, value) => sum + value, 0),
    topCommands: [...perCommand]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 6)
      .map(([name, value]) => `${name} ${value.toFixed(2)}`)
      .join(', '),
  };
}

/** One task at a time, worker apart at c=1: p50 and p99 in ms. */
async function roundTrips(servers: BenchServers, topology: Topology, round: number) {
  const url = topology === 'single' ? servers.singleUrl : servers.clusterUrl;
  const prefix = `bench-topology-rt-${round}-${topology}`;
  const [queue = 'q0'] = await spreadQueues(servers, topology, prefix);
  const worker = await startWorker(url, prefix, [queue], 1);
  const app = new Celeriac({ broker: url, prefix });
  const noop = app.task('bench.noop', (i: number) => i);
  for (let i = 0; i < 500; i += 1) await noop.applyAsync([i], { queue });
  const samples: number[] = [];
  for (let i = 0; i < trips; i += 1) {
    const start = process.hrtime.bigint();
    await noop.applyAsync([i], { queue });
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  await stopWorker(worker);
  await app.close();
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99) };
}

async function main(): Promise<void> {
  const servers = await startBenchServers();
  const samples: Record<Topology, Sample[]> = { single: [], cluster: [] };
  try {
    for (let round = 0; round < rounds; round += 1) {
      for (const topology of ['single', 'cluster'] as const) {
        console.error(`round ${round + 1}: ${topology}`);
        samples[topology].push({
          ...(await throughput(servers, topology, round)),
          ...(await roundTrips(servers, topology, round)),
        });
      }
    }
  } finally {
    await servers.stop();
  }
  const at = (topology: Topology, pick: (sample: Sample) => number) => median(samples[topology].map(pick));
  console.log(
    `One node against a 3-master Redis Cluster, fresh servers; ${workerCount} worker processes at c=100 on 3 ` +
      `queues, ${jobs} no-op tasks a run sent while they run; medians of ${rounds} rounds in turn.\n`,
  );
  console.log(
    '| topology | jobs/s | Redis CPU µs per task, all nodes | busiest node | Redis commands per task | round trip p50 ms | p99 ms |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const topology of ['single', 'cluster'] as const) {
    console.log(
      `| ${topology} | ${at(topology, (s) => s.jobsPerSecond).toFixed(0)} | ${at(topology, (s) => s.redisCpu).toFixed(1)} ` +
        `| ${at(topology, (s) => s.busiestNodeCpu).toFixed(1)} | ${at(topology, (s) => s.commands).toFixed(1)} ` +
        `| ${at(topology, (s) => s.p50).toFixed(3)} ` +
        `| ${at(topology, (s) => s.p99).toFixed(3)} |`,
    );
  }
  console.log('\nMost frequent commands per task (last round):');
  for (const topology of ['single', 'cluster'] as const)
    console.log(`- ${topology}: ${samples[topology].at(-1)?.topCommands}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
