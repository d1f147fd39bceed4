/**
 * A master failover under load: kill -9 the master holding a busy queue while two `celeriac worker`
 * processes run 2,000 tasks from it. Its replica is promoted; the workers and the sender follow it;
 * every task finishes, and the test reports how many ran more than once. It kills a node, so it runs
 * on a cluster of its own (3 masters, 3 replicas on 7100-7105), started and stopped here, and leaves
 * the cluster the other suites share (7000-7005) alone.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import type { Cluster } from 'ioredis';
import { KeySpace } from '@celeriac/redis/internal';
import {
  clusterUrl,
  startClusterNode,
  startTestCluster,
  stopTestCluster,
  untilClusterOk,
  type TestClusterState,
} from '@celeriac/test-support';
import { masterFor } from '../../../redis/src/connection/redis-client';
import { useE2e, type WorkerProcess } from '../e2e/support/worker-process';

const TASKS = 2_000;
/** The workers' visibility timeout: how long tasks running on the killed master take to come back. */
const LEASE = '5s';
/** The first port of this test's own cluster. */
const BASE_PORT = 7100;

describe('a Redis Cluster master failover under load', () => {
  let cluster: TestClusterState | undefined;
  beforeAll(async () => {
    cluster = await startTestCluster(BASE_PORT);
  }, 60_000);
  afterAll(async () => {
    if (cluster) await stopTestCluster(cluster);
  });
  const context = useE2e('cluster-failover', () => clusterUrl(BASE_PORT));

  it('kill -9 of the busy queue’s master while 2,000 tasks run: all finish, duplicates counted', async () => {
    const { fixture, workers } = context();
    const admin = fixture.redis() as Cluster;
    await admin.ping();
    const queue = 'busy';
    const master = masterFor(admin, new KeySpace(fixture.prefix).queue(queue).ready);
    const port = Number(master?.options.port);
    const info = execFileSync('redis-cli', ['-p', String(port), 'info', 'server'], { encoding: 'utf8' });
    const pid = Number(/process_id:(\d+)/.exec(info)?.[1]);
    const dir = execFileSync('redis-cli', ['-p', String(port), 'config', 'get', 'dir'], { encoding: 'utf8' })
      .trim()
      .split('\n')[1] as string;

    // A short lease: tasks that were running on the dead master come back after it, not after 30 s.
    const env = { CELERIAC_TEST_VISIBILITY: LEASE };
    const running = [workers.start(['-Q', queue, '-c', '20'], env), workers.start(['-Q', queue, '-c', '20'], env)];
    await Promise.all(running.map((worker) => worker.ready()));
    // A sender whose reply channel is on the killed master too: its sharded subscription (SSUBSCRIBE on
    // that master) must follow the promotion, or its waits must read back what they missed.
    const keys = new KeySpace(fixture.prefix);
    let sender = fixture.app();
    while (masterFor(admin, keys.replyChannel(sender.clientId)) !== master) sender = fixture.app();
    const results = Array.from({ length: TASKS }, () => sender.sendTask<number>('e2e.sleep', [20], { queue }));
    await Promise.all(results.map((result) => result.sent));
    // Kill the master once a tenth of the tasks started: the rest run across the failover.
    const startedIds = () => running.flatMap((worker) => worker.lines.filter((line) => line.state === 'STARTED'));
    await Promise.race(
      running.map((worker) => worker.waitForLog(() => startedIds().length >= TASKS / 10, 'a tenth started')),
    );
    const killedAt = Date.now();
    process.kill(pid, 'SIGKILL');
    try {
      const values = await Promise.all(results.map((result) => result.get({ timeout: 90_000 }))).catch(
        async (error: unknown) => {
          // Say where each unfinished task is, so a failure here can be understood, not only seen.
          const unfinished = await whereAre(admin, fixture.prefix, queue, results, running);
          process.stdout.write(`failover: unfinished tasks ${JSON.stringify(unfinished)}\n`);
          throw error;
        },
      );
      const recovered = Date.now() - killedAt;
      expect(values).toHaveLength(TASKS);
      // Most results came after the kill, so the sender heard them on the promoted master (or read them
      // back once subscribed there): its one sharded subscription is there now.
      const live = Array.from({ length: 6 }, (_, i) => BASE_PORT + i).filter((other) => other !== port);
      expect(live.reduce((sum, other) => sum + shardSubscribers(other, keys.replyChannel(sender.clientId)), 0)).toBe(1);
      const runs = new Map<string, number>();
      for (const line of startedIds()) runs.set(String(line.id), (runs.get(String(line.id)) ?? 0) + 1);
      const duplicates = [...runs.values()].filter((count) => count > 1).length;
      // The figures the issue asks for, printed, not asserted (they depend on where the kill lands): runs
      // are counted from the workers' STARTED log lines, which a worker may not get out before its pipe
      // is read to the end, so `seen` can be below the number of tasks.
      process.stdout.write(
        `failover: ${TASKS} tasks finished; ${runs.size} seen starting, ${duplicates} of them more than once; ` +
          `all results ${recovered} ms after the kill\n`,
      );
    } finally {
      // Bring the killed node back: it rejoins as a replica of the promoted one.
      await startClusterNode(port, join(dirname(dir), String(port)));
      await untilClusterOk(60_000, BASE_PORT);
    }
  }, 180_000);
});

/** How many clients of the node on `port` hold a sharded subscription (SSUBSCRIBE) to `channel`. */
function shardSubscribers(port: number, channel: string): number {
  const reply = execFileSync('redis-cli', ['-p', String(port), 'pubsub', 'shardnumsub', channel], { encoding: 'utf8' });
  return Number(reply.trim().split('\n')[1]);
}

/** Where the tasks without a SUCCESS record are: their record, their places in the queue, what the workers logged. */
async function whereAre(
  admin: Cluster,
  prefix: string,
  queue: string,
  results: ReadonlyArray<{ id: string }>,
  workers: readonly WorkerProcess[],
): Promise<unknown[]> {
  const keys = new KeySpace(prefix);
  const places = keys.queue(queue);
  const found: unknown[] = [];
  for (const { id } of results) {
    const record = await admin.get(keys.result(id)).catch((error: Error) => error.message);
    if (record?.includes('"SUCCESS"')) continue;
    const [ready, delayed, active, dead] = await Promise.all(
      [places.ready, places.delayed, places.active, places.dead].map((key) =>
        admin.zscore(key, id).catch((error: Error) => error.message),
      ),
    );
    const logged = workers.flatMap((worker) => worker.lines.filter((line) => line.id === id));
    found.push({ id, record, ready, delayed, active, dead, logged });
  }
  return found;
}
