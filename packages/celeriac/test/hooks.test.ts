import { deferred } from '@celeriac/core/testing';
import { useApp } from './support/app';
import { flaky } from './support/tasks';

describe('task hooks', () => {
  const t = useApp();

  it('onSuccess receives the result and the task id', async () => {
    const called = deferred<[number, string]>();
    const add = t.app.task('add', (a: number, b: number) => a + b, {
      onSuccess: (result, id) => called.resolve([result, id]),
    });
    await t.startWorker();
    const result = add.delay(2, 3);
    await expect(called.promise).resolves.toEqual([5, result.id]);
  });

  it('onRetry runs for each retry and onFailure once, after the last run', async () => {
    const retried: string[] = [];
    const failed = deferred<[unknown, string]>();
    let succeeded = false;
    const doomed = t.app.task(
      'doomed',
      flaky(Infinity, 'never', () => new Error('always')),
      {
        retries: 2,
        retryDelay: 1,
        onRetry: (error) => void retried.push((error as Error).message),
        onFailure: (error, id) => failed.resolve([error, id]),
        onSuccess: () => void (succeeded = true),
      },
    );
    await t.startWorker();
    const result = doomed.delay();
    const [error, id] = await failed.promise;
    expect([(error as Error).message, id]).toEqual(['always', result.id]);
    expect(retried).toEqual(['always', 'always']);
    expect(succeeded).toBe(false);
  });

  it('a hook that throws is logged, and the outcome stands', async () => {
    const thrown = deferred();
    const task = t.app.task('ok', () => 'fine', {
      onSuccess: () => {
        thrown.resolve();
        throw new Error('hook bug');
      },
    });
    const worker = await t.startWorker();
    const result = task.delay();
    await expect(result).resolves.toBe('fine');
    await thrown.promise;
    await worker.close();
    expect(await result.state()).toBe('SUCCESS');
    expect(t.logs).toContainEqual(
      expect.objectContaining({ level: 'error', fields: expect.objectContaining({ hook: 'onSuccess' }) }),
    );
  });
});
