import { TaskRevokedError } from 'celeriac';
import { RedisFixture, untilAfter } from '@celeriac/test-support';

describe('revoke, expiry and idempotent ids on Redis', () => {
  let fixture: RedisFixture;
  beforeEach(() => (fixture = new RedisFixture('revoke')));
  afterEach(() => fixture.cleanup());

  it('removes a revoked waiting task; it never runs and its state is REVOKED', async () => {
    const app = fixture.app();
    let runs = 0;
    const job = app.task('revoke.job', () => ++runs);
    const waiting = job.delay();
    const delayed = job.applyAsync([], { countdown: '1h' });
    await Promise.all([waiting.sent, delayed.sent]);
    await waiting.revoke();
    await delayed.revoke();
    await expect(app.broker.stats('default')).resolves.toMatchObject({ ready: 0, delayed: 0 });
    await expect(waiting.state()).resolves.toBe('REVOKED');
    await expect(delayed.get({ timeout: 5_000 })).rejects.toBeInstanceOf(TaskRevokedError);

    const after = job.delay();
    await app.worker({ concurrency: 1 }).start();
    await after;
    expect(runs).toBe(1);
  });

  it('remembers a revoke for workers started later, also for an id published afterwards', async () => {
    const producer = fixture.app();
    producer.task('revoke.later', () => 'ran');
    await producer.revoke('chosen-id');
    const result = producer.sendTask('revoke.later', [], { taskId: 'chosen-id' });
    await result.sent;

    const worker = fixture.app();
    worker.task('revoke.later', () => 'ran');
    await worker.worker({ concurrency: 1 }).start();
    const outcome = await result.get({ timeout: 5_000, propagate: false });
    expect(outcome).toBeInstanceOf(TaskRevokedError);
  });

  it('forgets revocations once they expire, the details included, so they do not pile up', async () => {
    const shortLived = fixture.app({ revokeTtl: 30 });
    const admin = fixture.redis();
    const stored = async () => ({
      revoked: (await admin.zrange(`${fixture.prefix}:{${fixture.prefix}}:revoked`, 0, -1)).sort(),
      details: (await admin.hkeys(`${fixture.prefix}:{${fixture.prefix}}:revoked-info`)).sort(),
    });
    // Only a revoke prunes, so nothing can remove this one before the next revoke, however slow.
    await shortLived.revoke('short-lived');
    await expect(stored()).resolves.toEqual({ revoked: ['short-lived'], details: ['short-lived'] });
    await untilAfter(Date.now() + 40);
    // The next revoke (here one remembered for the default day) prunes the expired ones, details too.
    await fixture.app().revoke('fresh');
    await expect(stored()).resolves.toEqual({ revoked: ['fresh'], details: ['fresh'] });
  });

  it('does not run a task reserved after it expired, and marks it REVOKED (expired)', async () => {
    const app = fixture.app();
    let runs = 0;
    const job = app.task('revoke.expiring', () => ++runs);
    const result = job.applyAsync([], { expires: 50 });
    await result.sent;
    await untilAfter(Date.now() + 60);
    await app.worker({ concurrency: 1 }).start();
    await expect(result.get({ timeout: 5_000 })).rejects.toMatchObject({
      code: 'CELERIAC_TASK_REVOKED',
      reason: 'expired',
    });
    expect(runs).toBe(0);
  });

  it('publishes a chosen taskId once while it waits: the second publish is a no-op', async () => {
    const app = fixture.app();
    let runs = 0;
    const job = app.task('revoke.once', () => ++runs);
    const first = job.applyAsync([], { taskId: 'nightly-2026-11-22' });
    const second = job.applyAsync([], { taskId: 'nightly-2026-11-22' });
    await Promise.all([first.sent, second.sent]);
    await expect(app.broker.publish([])).resolves.toEqual([]);
    await expect(app.broker.stats('default')).resolves.toMatchObject({ ready: 1 });
    await app.worker({ concurrency: 2 }).start();
    await expect(second).resolves.toBe(1);
    expect(runs).toBe(1);
  });
});
