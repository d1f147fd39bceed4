/**
 * Redis's CPU per notice on a 3-master cluster of its own (cluster-servers.ts, ports 7400-7402): plain
 * `PUBLISH`, which Redis Cluster forwards to every node, against sharded `SPUBLISH`, which stays on the
 * channel's shard. One subscriber of each kind listens on the channel's master, as an app's would.
 * Usage: `npm run bench:notices` (BENCH_NOTICES: 50,000 a kind and round; BENCH_ROUNDS: 2).
 */
import Redis, { Cluster } from 'ioredis';
import { startBenchServers } from './cluster-servers';
import { redisCpuMicros } from './process-cpu';
import { median } from './stats';

const notices = Number(process.env.BENCH_NOTICES ?? 50_000);
const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
/** Notices in flight at once. */
const window = 1_000;

type Kind = 'publish' | 'spublish';

async function main(): Promise<void> {
  const servers = await startBenchServers(7400);
  const masters = servers.clusterPorts.map((port) => new Redis(port));
  const cluster = new Cluster(servers.clusterPorts.map((port) => ({ host: '127.0.0.1', port })));
  const channel = 'bench:reply:0f3c';
  // A reply notice of a batch of one record, about the size a worker sends.
  const message = JSON.stringify([['0123456789abcdef0123456789abcdef', 'x'.repeat(200)]]);
  try {
    await cluster.ping();
    const slot = Number(await cluster.cluster('KEYSLOT', channel));
    const owner = Number(cluster.slots[slot]?.[0]?.split(':')[1]);
    const plain = new Redis(owner);
    const sharded = new Redis(owner);
    await plain.subscribe(channel);
    await sharded.ssubscribe(channel);
    const samples: Record<Kind, number[][]> = { publish: [], spublish: [] };
    for (let round = 0; round < rounds; round += 1) {
      for (const kind of ['publish', 'spublish'] as const) {
        const before = await Promise.all(masters.map((node) => redisCpuMicros(node)));
        for (let sent = 0; sent < notices; sent += window) {
          await Promise.all(Array.from({ length: window }, () => cluster[kind](channel, message)));
        }
        const after = await Promise.all(masters.map((node) => redisCpuMicros(node)));
        samples[kind].push(after.map((value, index) => (value - (before[index] ?? 0)) / notices));
      }
    }
    plain.disconnect();
    sharded.disconnect();
    console.log(`Redis CPU µs per notice, 3 masters, ${notices} notices a kind, medians of ${rounds} rounds`);
    console.log('| command | all masters | channel’s master | each other master |');
    console.log('| --- | --- | --- | --- |');
    const ownerIndex = servers.clusterPorts.indexOf(owner);
    for (const kind of ['publish', 'spublish'] as const) {
      const all = median(samples[kind].map((row) => row.reduce((sum, value) => sum + value, 0)));
      const own = median(samples[kind].map((row) => row[ownerIndex] ?? 0));
      const others = median(samples[kind].flatMap((row) => row.filter((_, index) => index !== ownerIndex)));
      console.log(`| ${kind.toUpperCase()} | ${all.toFixed(2)} | ${own.toFixed(2)} | ${others.toFixed(2)} |`);
    }
  } finally {
    cluster.disconnect();
    masters.forEach((node) => node.disconnect());
    await servers.stop();
  }
}

void main();
