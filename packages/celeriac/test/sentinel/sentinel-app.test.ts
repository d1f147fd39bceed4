/**
 * An app on `redis+sentinel://` (the test Sentinel setup, started by the jest project): a worker
 * runs tasks sent through it, beat keeps its entries there, and `durability: 'replicated'` sends and
 * settles tasks that a replica confirmed.
 */
import { every, type FiredSlot } from 'celeriac';
import { deferred } from '@celeriac/core/testing';
import { adminClient, RedisFixture, SENTINEL_URL, sentinelMasterPort } from '@celeriac/test-support';

/** The port of the server that is not the master now. */
async function replicaPort(): Promise<number> {
  const master = await sentinelMasterPort();
  return master === 6390 ? 6391 : 6390;
}

describe('an app on Redis Sentinel', () => {
  let fixture: RedisFixture;
  beforeEach(() => (fixture = new RedisFixture('sentinel-app', SENTINEL_URL)));
  afterEach(() => fixture.cleanup());

  it('runs tasks through the master the Sentinels name, and keeps their records there', async () => {
    const workerApp = fixture.app();
    workerApp.task('sentinel.add', (a: number, b: number) => a + b);
    await workerApp.worker({ concurrency: 10 }).start();
    const add = fixture.app().task('sentinel.add', (a: number, b: number) => a + b);
    const results = add.delayMany(Array.from({ length: 200 }, (_, n) => [n, 1] as [number, number]));
    await expect(Promise.all(results)).resolves.toEqual(Array.from({ length: 200 }, (_, n) => n + 1));
    const admin = fixture.redis();
    expect(await admin.info('server')).toContain(`tcp_port:${await sentinelMasterPort()}`);
    expect(await admin.exists(`${fixture.prefix}:result:${results[0]!.id}`)).toBe(1);
  });

  it('keeps beat entries on the master: an entry added by one app fires in another', async () => {
    const scheduler = fixture.app().beat.scheduler({ lease: '2s' });
    await scheduler.start();
    const fired = deferred<FiredSlot>();
    scheduler.on('fired', (slot) => fired.resolve(slot));
    await fixture.app().beat.add('tick', { task: 'sentinel.tick', schedule: every('100ms') });
    expect((await fired.promise).id).toMatch(/^beat:tick:/);
    await scheduler.close();
  });

  it("with durability: 'replicated', a task is on the replica once sent, and runs", async () => {
    const echo = fixture.app({ durability: 'replicated' }).task('sentinel.echo', (text: string) => text);
    const result = echo.delay('kept');
    await result.sent;
    const replica = adminClient(`redis://127.0.0.1:${await replicaPort()}`);
    try {
      expect(await replica.hexists(`${fixture.prefix}:{${fixture.prefix}:default}:messages`, result.id)).toBe(1);
    } finally {
      replica.disconnect();
    }
    const workerApp = fixture.app({ durability: 'replicated' });
    workerApp.task('sentinel.echo', (text: string) => text);
    await workerApp.worker().start();
    await expect(result).resolves.toBe('kept');
  });
});
