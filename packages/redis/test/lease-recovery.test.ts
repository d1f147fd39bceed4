import { TaskFailedError } from 'celeriac';
import { RedisFixture, untilAfter } from '@celeriac/test-support';

describe('leases on Redis', () => {
  let fixture: RedisFixture;
  beforeEach(() => (fixture = new RedisFixture('lease')));
  afterEach(() => fixture.cleanup());

  it('runs a task on another worker when the worker that reserved it stops renewing its lease', async () => {
    const app = fixture.app({ visibilityTimeout: '1s' });
    const double = app.task('lease.double', (n: number) => n * 2);
    const result = double.delay(21);
    await result.sent;

    // A worker that reserves and then dies: it never acks or renews.
    const [taken] = await app.broker.reserve(['default'], 1);
    expect(taken?.id).toBe(result.id);

    const survivor = fixture.app({ visibilityTimeout: '1s' });
    survivor.task('lease.double', (n: number) => n * 2);
    await survivor.worker({ concurrency: 1 }).start();
    await expect(result.get({ timeout: 10_000 })).resolves.toBe(42);
  });

  it('never re-delivers a delayed task because of the visibility timeout', async () => {
    const app = fixture.app({ visibilityTimeout: '1s' });
    const later = app.task('lease.later', () => 'late');
    const sent = later.applyAsync([], { countdown: '1h' });
    await sent.sent;
    await untilAfter(Date.now() + 1_100);
    const report = await app.broker.recoverLapsed(['default']);
    expect(report.requeued).toEqual([]);
    await expect(app.broker.stats('default')).resolves.toMatchObject({ ready: 0, delayed: 1, active: 0 });
  });

  it('dead-letters a task delivered maxDeliveries times, fails it with WorkerLostError; can requeue it', async () => {
    const app = fixture.app({ visibilityTimeout: '1s', maxDeliveries: 2 });
    const echo = app.task('lease.echo', (value: string) => value);
    const result = echo.delay('back');
    await result.sent;
    for (let delivery = 1; delivery <= 2; delivery += 1) {
      const [taken] = await app.broker.reserve(['default'], 1);
      expect(taken?.deliveries).toBe(delivery);
      await untilAfter(Date.now() + 1_050);
      const report = await app.broker.recoverLapsed(['default']);
      if (delivery === 1) expect(report.requeued).toEqual([result.id]);
      else expect(report.dead.map((dead) => dead.id)).toEqual([result.id]);
    }
    const [dead] = await app.broker.listDead('default');
    expect(dead).toMatchObject({ id: result.id, reason: expect.stringContaining('maxDeliveries 2') });

    // Through a worker, the same situation ends the task as FAILURE with WorkerLostError.
    const second = echo.delay('lost');
    await second.sent;
    await app.broker.reserve(['default'], 1);
    await untilAfter(Date.now() + 1_050);
    await app.broker.recoverLapsed(['default']);
    await app.broker.reserve(['default'], 1);
    await untilAfter(Date.now() + 1_050);
    await app.worker({ concurrency: 1 }).start();
    const failure = await second.get({ timeout: 10_000, propagate: false });
    expect(failure).toBeInstanceOf(TaskFailedError);
    expect((failure as TaskFailedError).remote.name).toBe('WorkerLostError');

    // Requeueing the first one brings it back, and a worker runs it.
    await expect(app.broker.requeueDead('default', [result.id])).resolves.toBe(1);
    await expect(result.get({ timeout: 10_000 })).resolves.toBe('back');
  });
});
