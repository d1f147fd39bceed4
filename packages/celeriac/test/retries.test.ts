import { currentTask, type TaskRecord } from 'celeriac';
import { useApp } from './support/app';
import { recordChanges } from './support/records';
import { CodedError, flaky } from './support/tasks';

/** The delay and retry count of each RETRY record. */
function retrySteps(records: TaskRecord[]) {
  return records
    .filter((record) => record.state === 'RETRY')
    .map((record) => ({ retries: record.retries, countdown: (record.meta as { countdown: number }).countdown }));
}

describe('retries', () => {
  const t = useApp();

  it('fixed backoff: retries after the same delay each time, and the task sees its retry count', async () => {
    const seen: number[] = [];
    const fn = flaky(2, 'ok');
    const shaky = t.app.task(
      'shaky',
      () => {
        seen.push(currentTask().retries);
        return fn();
      },
      { retries: 3, retryDelay: '20ms' },
    );
    await t.startWorker();
    const result = shaky.delay();
    const changes = recordChanges(t.app, result);
    await expect(result).resolves.toBe('ok');
    expect(seen).toEqual([0, 1, 2]);
    expect(retrySteps(changes())).toEqual([
      { retries: 0, countdown: 20 },
      { retries: 1, countdown: 20 },
    ]);
    expect(await result.record()).toMatchObject({ state: 'SUCCESS', retries: 2 });
  });

  it('exponential backoff: doubles the delay each retry, capped by backoffMax', async () => {
    const shaky = t.app.task('shaky', flaky(3, 'ok'), {
      retries: 3,
      retryDelay: 10,
      backoff: 'exponential',
      backoffMax: 25,
    });
    await t.startWorker();
    const result = shaky.delay();
    const changes = recordChanges(t.app, result);
    await expect(result).resolves.toBe('ok');
    expect(retrySteps(changes()).map((step) => step.countdown)).toEqual([10, 20, 25]);
  });

  it('runs out of retries: FAILURE with the last error, after retries + 1 runs', async () => {
    let runs = 0;
    const doomed = t.app.task(
      'doomed',
      () => {
        runs += 1;
        throw new Error(`attempt ${runs}`);
      },
      { retries: 2, retryDelay: 1 },
    );
    await t.startWorker();
    const result = doomed.delay();
    await expect(result).rejects.toMatchObject({ remote: { message: 'attempt 3' } });
    expect(runs).toBe(3);
    expect(await result.record()).toMatchObject({ state: 'FAILURE', retries: 2 });
  });

  it.each([
    ['class', CodedError],
    ['name', 'CodedError'],
  ] as const)('autoretryFor by %s retries matching errors only', async (_, matcher) => {
    const matching = flaky(1, 'recovered', () => new CodedError('transient', 'E_AGAIN'));
    const other = flaky(1, 'never', () => new TypeError('a bug'));
    const retried = t.app.task('retried', matching, { retries: 2, retryDelay: 1, autoretryFor: [matcher] });
    const notRetried = t.app.task('not-retried', other, { retries: 2, retryDelay: 1, autoretryFor: [matcher] });
    await t.startWorker();
    await expect(retried.delay()).resolves.toBe('recovered');
    await expect(notRetried.delay()).rejects.toMatchObject({ remote: { name: 'TypeError' } });
    expect([matching.calls, other.calls]).toEqual([2, 1]);
  });

  it('currentTask().retry({ countdown }) ends the run and schedules another after that delay', async () => {
    const attempts: Array<{ retries: number; deliveries: number }> = [];
    const poll = t.app.task(
      'poll',
      () => {
        const { retries, deliveries } = currentTask();
        attempts.push({ retries, deliveries });
        if (retries < 2) currentTask().retry({ countdown: '15ms' });
        return 'ready';
      },
      { retries: 5 },
    );
    await t.startWorker();
    const result = poll.delay();
    const changes = recordChanges(t.app, result);
    await expect(result).resolves.toBe('ready');
    expect(attempts).toEqual([
      { retries: 0, deliveries: 1 },
      { retries: 1, deliveries: 1 },
      { retries: 2, deliveries: 1 },
    ]);
    expect(retrySteps(changes()).map((step) => step.countdown)).toEqual([15, 15]);
  });

  it('currentTask().retry() past the limit fails with MaxRetriesExceededError, or with the given cause', async () => {
    const forever = t.app.task('forever', () => currentTask().retry({ countdown: 1 }), { retries: 1 });
    const withCause = t.app.task(
      'with-cause',
      () => currentTask().retry({ countdown: 1, cause: new CodedError('upstream 503', 'E_UPSTREAM') }),
      { retries: 1 },
    );
    await t.startWorker();
    const error = await forever.delay().catch((reason: unknown) => reason);
    expect(error).toMatchObject({
      remote: {
        name: 'MaxRetriesExceededError',
        code: 'CELERIAC_MAX_RETRIES_EXCEEDED',
        message: expect.stringContaining('forever'),
      },
    });
    await expect(withCause.delay()).rejects.toMatchObject({ remote: { name: 'CodedError', code: 'E_UPSTREAM' } });
  });
});
