import { currentTask } from 'celeriac';
import { deferred } from '@celeriac/core/testing';
import { useApp } from './support/app';

/** Resolves when the running task's signal aborts, with its reason. */
function aborted(): Promise<unknown> {
  const { signal } = currentTask();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));
}

describe('time limits in the inline pool', () => {
  const t = useApp();

  it('soft limit: the signal aborts with SoftTimeLimitError, and the task may clean up and return', async () => {
    const tidy = t.app.task(
      'tidy',
      async () => {
        const reason = (await aborted()) as Error & { code: string };
        return { name: reason.name, code: reason.code, aborted: currentTask().signal.aborted };
      },
      { softTimeLimit: '30ms' },
    );
    await t.startWorker();
    await expect(tidy.delay()).resolves.toEqual({
      name: 'SoftTimeLimitError',
      code: 'CELERIAC_SOFT_TIME_LIMIT',
      aborted: true,
    });
  });

  it('soft limit: a task that rethrows the reason fails with SoftTimeLimitError', async () => {
    const strict = t.app.task(
      'strict',
      async () => {
        throw await aborted();
      },
      { softTimeLimit: 20 },
    );
    await t.startWorker();
    await expect(strict.delay()).rejects.toMatchObject({
      remote: { name: 'SoftTimeLimitError', code: 'CELERIAC_SOFT_TIME_LIMIT' },
    });
  });

  it('soft limit: a task that ends in time never sees its signal abort', async () => {
    const quick = t.app.task('quick', () => currentTask().signal.aborted, { softTimeLimit: '5s', timeLimit: '10s' });
    await t.startWorker();
    await expect(quick.delay()).resolves.toBe(false);
  });

  it('hard limit: the task fails with TimeLimitExceededError, its signal aborts, and the worker goes on', async () => {
    const reason = deferred<unknown>();
    const hang = t.app.task(
      'hang',
      async () => {
        reason.resolve(await aborted());
        return new Promise<never>(() => undefined);
      },
      { timeLimit: 30 },
    );
    const next = t.app.task('next', () => 'served');
    await t.startWorker({ concurrency: 1 });
    await expect(hang.delay()).rejects.toMatchObject({
      remote: { name: 'TimeLimitExceededError', code: 'CELERIAC_TIME_LIMIT_EXCEEDED' },
    });
    await expect(reason.promise).resolves.toMatchObject({ name: 'TimeLimitExceededError' });
    await expect(next.delay()).resolves.toBe('served');
  });

  it('hard limit: sync code returning past its limit fails with TimeLimitExceededError, result dropped', async () => {
    const busy = t.app.task(
      'busy',
      (ms: number) => {
        const until = Date.now() + ms;
        while (Date.now() < until) {
          // Never yields: no timer can fire until it returns.
        }
        return 'done';
      },
      { timeLimit: 100 },
    );
    await t.startWorker();
    await expect(busy.delay(300)).rejects.toMatchObject({
      remote: {
        name: 'TimeLimitExceededError',
        code: 'CELERIAC_TIME_LIMIT_EXCEEDED',
        message: expect.stringContaining('--pool prefork'),
      },
    });
  });

  it('limits past setTimeout’s 2^31-1 ms (~24.8 days) do not fire early', async () => {
    const patient = t.app.task(
      'patient',
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        return currentTask().signal.aborted;
      },
      { softTimeLimit: '30d', timeLimit: '30d' },
    );
    const fromMessage = t.app.task('fromMessage', async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return currentTask().signal.aborted;
    });
    await t.startWorker();
    await expect(patient.delay()).resolves.toBe(false);
    await expect(fromMessage.applyAsync([], { softTimeLimit: 1e12, timeLimit: 1e12 })).resolves.toBe(false);
  });
});
