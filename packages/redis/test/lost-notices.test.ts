import type { Celeriac } from 'celeriac';
import { RedisFixture, RestartableRedis } from '@celeriac/test-support';

/** Stores a SUCCESS record of task `id` from another app, as a worker would, notifying `replyTo` (or nobody). */
function finish(other: Celeriac, id: string, result: number, replyTo?: string): Promise<void> {
  return other.backend.store([{ record: { id, state: 'SUCCESS', result, date: Date.now() }, ttl: 60_000, replyTo }]);
}

describe('waits whose notice was lost resolve from the stored record', () => {
  let fixture: RedisFixture;
  beforeEach(() => (fixture = new RedisFixture('lost-notices')));
  afterEach(() => fixture.cleanup());

  it('a wait that trusts its reply channel, whose notice never came, reads the record once it is quiet', async () => {
    const sender = fixture.app();
    const worker = fixture.app();
    // The reply channel is listened to from here on: a task sent after this is not read at first,
    // its notice is awaited.
    const first = sender.sendTask<number>('lost.add', [1]);
    await first.sent;
    const heard = first.get({ timeout: 10_000 });
    await finish(worker, first.id, 1, sender.clientId);
    await expect(heard).resolves.toBe(1);
    const second = sender.sendTask<number>('lost.add', [2]);
    await second.sent;
    const waiting = second.get({ timeout: 30_000 });
    // Stored without a notice to the sender (as if it was published while the subscription was down).
    await finish(worker, second.id, 2);
    await expect(waiting).resolves.toBe(2);
  });
});

describe('waits across a Redis restart', () => {
  let redis: RestartableRedis;
  let fixture: RedisFixture;
  beforeAll(async () => {
    redis = await RestartableRedis.start();
  });
  afterAll(() => redis.stop());
  beforeEach(() => (fixture = new RedisFixture('lost-notices', redis.url)));
  afterEach(() => fixture.cleanup());

  it('waits begun before and during an outage resolve once Redis is back, from the record alone', async () => {
    const sender = fixture.app();
    const task = sender.sendTask<number>('lost.add', [1]);
    const later = sender.sendTask<number>('lost.add', [2]);
    await Promise.all([task.sent, later.sent]);
    const before = task.get({ timeout: 30_000 });
    await redis.kill();
    const unreachable = () =>
      expect(sender.result(task.id).state()).rejects.toMatchObject({ code: 'CELERIAC_BROKER_UNAVAILABLE' });
    // Once a read failed, the sender knows Redis is gone: a wait begun now cannot trust its notice.
    await unreachable();
    const during = later.get({ timeout: 30_000 });
    const settled = Promise.allSettled([before, during]);
    // A read begun after the wait's fails once its bounded retries are spent: so has the wait's, which must not end it.
    await unreachable();
    await redis.restart();
    // Stored with no notice to the sender: only a read finds it.
    const worker = fixture.app();
    await Promise.all([finish(worker, task.id, 1), finish(worker, later.id, 2)]);
    await expect(settled).resolves.toEqual([
      { status: 'fulfilled', value: 1 },
      { status: 'fulfilled', value: 2 },
    ]);
  });
});
