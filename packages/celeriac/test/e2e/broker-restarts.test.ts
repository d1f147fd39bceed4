import { RestartableRedis, untilAfter } from '@celeriac/test-support';
import { useE2e, type WorkerProcess } from './support/worker-process';

/**
 * Liveness across broker restarts (DESIGN.md invariant 8): idle workers of every pool, a Redis of the
 * suite's own killed with SIGKILL and started again from its append-only file, several times. Each
 * round a delayed task per worker comes due while Redis is down, so each idle worker's wake-up meets
 * no Redis and gives up on its connection (the moment ioredis once left a wait hanging for good).
 * Afterwards every worker still takes tasks, every handle awaited across the outages resolves, and
 * SIGTERM ends every worker with 0.
 */
describe('celeriac worker: broker restarts', () => {
  let redis: RestartableRedis;
  beforeAll(async () => {
    redis = await RestartableRedis.start();
  });
  afterAll(() => redis.stop());
  const e2e = useE2e('e2e-restarts', () => redis.url);

  /** Every pool, each on a queue of its own so that each worker must take its own tasks. */
  const pools = ['inline', 'fork', 'prefork'] as const;
  const queueOf = (pool: string) => `restart-${pool}`;

  it('idle workers of every pool take tasks after Redis is killed and restarted, and exit 0 on SIGTERM', async () => {
    const { fixture, workers } = e2e();
    const started: WorkerProcess[] = pools.map((pool) =>
      workers.start(['--pool', pool, '-c', '2', '-Q', queueOf(pool)]),
    );
    await Promise.all(started.map((worker) => worker.ready()));
    const client = fixture.app();
    const handles = [];
    for (let round = 0; round < 3; round += 1) {
      const countdown = 400;
      const due = Date.now() + countdown;
      const delayed = pools.map((pool) =>
        client.sendTask<number>('e2e.add', [round, 1], { queue: queueOf(pool), countdown }),
      );
      await Promise.all(delayed.map((handle) => handle.sent));
      // Awaited before the outage, resolved after it.
      const waiting = delayed.map((handle) => handle.get({ timeout: 60_000 }));
      handles.push(...waiting);
      await redis.kill();
      // Down until the delayed tasks are due, and past the bounded retries of each worker's wake-up
      // (CLIENT UNBLOCK fails after about 1.5 s): the wake-up then drops its waiting connection while
      // ioredis is reconnecting it.
      await untilAfter(due + 2_500);
      await redis.restart();
      await expect(Promise.all(waiting)).resolves.toEqual(pools.map(() => round + 1));
      // And new work is taken by each of them.
      const fresh = pools.map((pool) => client.sendTask<number>('e2e.add', [round, 2], { queue: queueOf(pool) }));
      await expect(Promise.all(fresh.map((handle) => handle.get({ timeout: 30_000 })))).resolves.toEqual(
        pools.map(() => round + 2),
      );
    }
    await expect(Promise.all(handles)).resolves.toHaveLength(pools.length * 3);
    for (const worker of started) worker.signal('SIGTERM');
    await expect(Promise.all(started.map((worker) => worker.exited))).resolves.toEqual(
      pools.map(() => ({ code: 0, signal: null })),
    );
  }, 180_000);
});
