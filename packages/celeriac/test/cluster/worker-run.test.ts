/**
 * End to end on the local Redis Cluster (3 masters, 3 replicas): a real `celeriac worker` process on
 * queues that live on different masters, a chord of 1,000 through in-process workers, and the
 * cluster-only paths (per-slot waits, sharded notices, per-slot reads) exercised on the way.
 */
import { chord, type Celeriac, type Signature } from 'celeriac';
import { KeySpace } from '@celeriac/redis/internal';
import { Cluster } from 'ioredis';
import { keySlot } from '../../../redis/src/connection/key-slot';
import { masterFor } from '../../../redis/src/connection/redis-client';
import { useE2e } from '../e2e/support/worker-process';

/** A partial signature of a fixture task (the caller does not import the worker's code). */
function s<R = number>(client: Celeriac, task: string, ...args: unknown[]): Signature<R> {
  return client.signature<R>({ task, args, options: {}, immutable: false });
}

/** Queue names whose keys live on three different masters of the cluster. */
function queuesOnThreeMasters(admin: Cluster, prefix: string): string[] {
  const keys = new KeySpace(prefix);
  const byMaster = new Map<string, string>();
  for (let i = 0; byMaster.size < 3; i++) {
    const queue = `q${i}`;
    const master = masterFor(admin, keys.queue(queue).ready);
    const name = `${master?.options.host}:${master?.options.port}`;
    if (!byMaster.has(name)) byMaster.set(name, queue);
  }
  return [...byMaster.values()];
}

describe('celeriac on Redis Cluster', () => {
  const context = useE2e('cluster-run');

  it('a worker process on three queues, one on each master, runs what is sent to each; results spread', async () => {
    const { fixture, workers } = context();
    const admin = fixture.redis() as Cluster;
    await admin.ping();
    const queues = queuesOnThreeMasters(admin, fixture.prefix);
    // Each of the worker's waits blocks on one master: a task sent to any queue wakes it.
    const worker = workers.start(['-Q', queues.join(','), '-c', '8']);
    await worker.ready();
    const sender = fixture.app();
    const sums = queues.flatMap((queue) =>
      Array.from({ length: 50 }, (_, i) => sender.sendTask<number>('e2e.add', [i, 1], { queue })),
    );
    const values = await Promise.all(sums.map((result) => result.get({ timeout: 30_000 })));
    expect(values).toEqual(queues.flatMap(() => Array.from({ length: 50 }, (_, i) => i + 1)));
    // One task sent to each queue while the worker idles: each wait wakes on its own master.
    for (const queue of queues) {
      await expect(sender.sendTask<number>('e2e.add', [2, 3], { queue }).get({ timeout: 10_000 })).resolves.toBe(5);
    }
    // The records of many tasks sit on every master (one slot each), read back in one call.
    const keys = new KeySpace(fixture.prefix);
    const slots = new Set(sums.map((result) => keySlot(keys.result(result.id))));
    expect(slots.size).toBeGreaterThan(100);
    const records = await sender.backend.getMany(sums.map((result) => result.id));
    expect(records.every((record) => record?.state === 'SUCCESS')).toBe(true);
    // Workers are listed from every master's heartbeats.
    expect(await sender.broker.listWorkers?.()).toHaveLength(1);
  }, 60_000);

  it('a chord of 1,000 header tasks over two in-process workers runs its callback once', async () => {
    const { fixture } = context();
    let callbacks = 0;
    for (let index = 0; index < 2; index += 1) {
      const workerApp = fixture.app();
      workerApp.task('cluster.square', (n: number) => n * n);
      workerApp.task('cluster.total', (values: number[]) => {
        callbacks += 1;
        return values.reduce((sum, value) => sum + value, 0);
      });
      await workerApp.worker({ concurrency: 50, pool: 'inline' }).start();
    }
    const producer = fixture.app();
    const size = 1_000;
    const result = chord(
      Array.from({ length: size }, (_, n) => s(producer, 'cluster.square', n)),
      s(producer, 'cluster.total'),
    ).applyAsync();
    const expected = Array.from({ length: size }, (_, n) => n * n).reduce((sum, value) => sum + value, 0);
    await expect(result.get({ timeout: 60_000 })).resolves.toBe(expected);
    expect(callbacks).toBe(1);
  }, 90_000);
});
