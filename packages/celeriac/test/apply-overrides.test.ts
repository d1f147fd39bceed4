import { currentTask } from 'celeriac';
import { untilPast } from '@celeriac/core/testing';
import { useApp } from './support/app';
import { flaky } from './support/tasks';

describe('applyAsync routing and per-call overrides', () => {
  const t = useApp({ defaultQueue: 'main' });

  it('queue: the task option routes, the call option overrides it, and workers take only their queues', async () => {
    const where = t.app.task('where', () => currentTask().queue, { queue: 'slow' });
    const plain = t.app.task('plain', () => currentTask().queue);
    const slow = where.delay();
    const fast = where.applyAsync([], { queue: 'fast' });
    await slow.sent;
    await t.startWorker({ queues: ['fast', 'main'] });
    await expect(fast).resolves.toBe('fast');
    await expect(plain.delay()).resolves.toBe('main');
    expect(await t.app.broker.stats('slow')).toMatchObject({ ready: 1 });
    expect(await slow.state()).toBe('PENDING');
    await t.startWorker({ queues: ['slow'] });
    await expect(slow).resolves.toBe('slow');
  });

  it('refuses a queue name with characters outside letters, digits and . : _ -', () => {
    const plain = t.app.task('plain', () => 1);
    expect(() => plain.applyAsync([], { queue: 'no spaces' })).toThrow(
      expect.objectContaining({ code: 'CELERIAC_INVALID_OPTION', message: expect.stringContaining('queue') }),
    );
  });

  it('retries: the call can allow retries the task does not have', async () => {
    const fn = flaky(2, 'ok');
    const shaky = t.app.task('shaky', fn, { retryDelay: 1 });
    await t.startWorker();
    await expect(shaky.applyAsync([], { retries: 2 })).resolves.toBe('ok');
    expect(fn.calls).toBe(3);
  });

  it('retries: the call can take away the retries the task has', async () => {
    const fn = flaky(1, 'ok');
    const shaky = t.app.task('shaky', fn, { retries: 3, retryDelay: 1 });
    await t.startWorker();
    await expect(shaky.applyAsync([], { retries: 0 })).rejects.toMatchObject({ code: 'CELERIAC_TASK_FAILED' });
    expect(fn.calls).toBe(1);
  });

  it('headers: reach the task through currentTask().headers', async () => {
    const headers = t.app.task('headers', () => ({ ...currentTask().headers }));
    await t.startWorker();
    await expect(headers.applyAsync([], { headers: { tenant: 'acme', trace: 't-1' } })).resolves.toEqual({
      tenant: 'acme',
      trace: 't-1',
    });
    await expect(headers.delay()).resolves.toEqual({});
  });

  it('softTimeLimit: the call sets a soft limit the task does not have', async () => {
    const patient = t.app.task('patient', async () => {
      const { signal } = currentTask();
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      return (signal.reason as Error).name;
    });
    await t.startWorker();
    await expect(patient.applyAsync([], { softTimeLimit: 30 })).resolves.toBe('SoftTimeLimitError');
  });

  it('timeLimit: the call sets a hard limit the task does not have', async () => {
    const hang = t.app.task('hang', () => new Promise<never>(() => undefined));
    await t.startWorker();
    await expect(hang.applyAsync([], { timeLimit: 30 })).rejects.toMatchObject({
      remote: { name: 'TimeLimitExceededError', code: 'CELERIAC_TIME_LIMIT_EXCEEDED' },
    });
  });

  it('ignoreResult: the state is stored but not the value; the call overrides the task option', async () => {
    const answer = t.app.task('answer', () => 42, { ignoreResult: true });
    await t.startWorker();
    const ignored = answer.delay();
    await expect(ignored).resolves.toBeUndefined();
    expect(await ignored.state()).toBe('SUCCESS');
    expect(await ignored.record()).not.toHaveProperty('result');
    await expect(answer.applyAsync([], { ignoreResult: false })).resolves.toBe(42);
    const plain = t.app.task('plain', () => 7);
    await expect(plain.applyAsync([], { ignoreResult: true })).resolves.toBeUndefined();
  });

  it('resultTtl: the result is forgotten once its ttl passes; the call overrides the task option', async () => {
    const short = t.app.task('short', () => 'kept briefly', { resultTtl: '150ms' });
    await t.startWorker();
    const byTask = short.delay();
    const byCall = short.applyAsync([], { resultTtl: 10_000 });
    await Promise.all([byTask, byCall]);
    const finishedAt = Date.now();
    expect(await byTask.state()).toBe('SUCCESS');
    await untilPast(finishedAt + 150);
    expect(await byTask.state()).toBe('PENDING');
    expect(await byCall.state()).toBe('SUCCESS');
  });
});
