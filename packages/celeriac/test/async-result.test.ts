import { currentTask, TaskFailedError, TimeoutError } from 'celeriac';
import { useApp } from './support/app';
import { stateReached } from './support/records';
import { blocker } from './support/tasks';

describe('AsyncResult', () => {
  const t = useApp();

  it('is returned at once with its id, and sent resolves once the broker holds the message', async () => {
    const add = t.app.task('add', (a: number, b: number) => a + b);
    const result = add.delay(1, 2);
    expect(result.id).toEqual(expect.any(String));
    expect(result.taskName).toBe('add');
    await expect(result.sent).resolves.toBeUndefined();
    expect(await t.app.broker.stats('default')).toMatchObject({ ready: 1 });
  });

  it('is a promise of the value: await, then, catch and finally', async () => {
    const add = t.app.task('add', (a: number, b: number) => a + b);
    await t.startWorker();
    await expect(add.delay(2, 3)).resolves.toBe(5);
    await expect(add.delay(1, 1).then((value) => value * 10)).resolves.toBe(20);
    let finallyRan = false;
    await expect(add.delay(0, 1).finally(() => (finallyRan = true))).resolves.toBe(1);
    expect(finallyRan).toBe(true);
    const fail = t.app.task('fail', () => {
      throw new Error('nope');
    });
    await expect(fail.delay().catch((error: unknown) => (error as TaskFailedError).remote.message)).resolves.toBe(
      'nope',
    );
  });

  it('get({ timeout }) throws TimeoutError while the task runs longer, and returns the value once done', async () => {
    const slow = blocker<string>();
    const task = t.app.task('slow', slow.fn);
    await t.startWorker();
    const result = task.delay();
    await expect(result.get({ timeout: 30 })).rejects.toBeInstanceOf(TimeoutError);
    await expect(result.get({ timeout: '30ms' })).rejects.toMatchObject({
      code: 'CELERIAC_TIMEOUT',
      message: expect.stringContaining(result.id),
    });
    slow.release('done');
    await expect(result.get({ timeout: '5s' })).resolves.toBe('done');
  });

  it('get({ timeout }) past setTimeout’s 2^31-1 ms limit waits instead of timing out at once', async () => {
    const slow = blocker<string>();
    const task = t.app.task('slow', slow.fn);
    await t.startWorker();
    const result = task.delay();
    const value = result.get({ timeout: '30d' });
    await slow.started;
    // A timer armed later than the get's: an overflowed one (1 ms) would have fired before it.
    await new Promise((resolve) => setTimeout(resolve, 10));
    slow.release('done');
    await expect(value).resolves.toBe('done');
  });

  it('state(), ready(), successful() and failed() follow a task from PENDING through STARTED to SUCCESS', async () => {
    const slow = blocker<string>();
    const task = t.app.task('slow', slow.fn);
    const result = task.delay();
    await result.sent;
    expect([await result.state(), await result.ready(), await result.successful(), await result.failed()]).toEqual([
      'PENDING',
      false,
      false,
      false,
    ]);
    await t.startWorker();
    await stateReached(t.app, result, 'STARTED');
    expect([await result.state(), await result.ready()]).toEqual(['STARTED', false]);
    slow.release('done');
    await result;
    expect([await result.state(), await result.ready(), await result.successful(), await result.failed()]).toEqual([
      'SUCCESS',
      true,
      true,
      false,
    ]);
  });

  it('a failed task is ready and failed; get({ propagate: false }) returns the error instead of throwing', async () => {
    const fail = t.app.task('fail', () => {
      throw new RangeError('out of range');
    });
    await t.startWorker();
    const result = fail.delay();
    const error = await result.get({ propagate: false });
    expect(error).toBeInstanceOf(TaskFailedError);
    expect([await result.state(), await result.ready(), await result.successful(), await result.failed()]).toEqual([
      'FAILURE',
      true,
      false,
      true,
    ]);
    expect(await result.info()).toMatchObject({ name: 'RangeError', message: 'out of range' });
  });

  it('info() returns progress metadata while the task reports PROGRESS, then its value', async () => {
    const gate = blocker<void>();
    const report = t.app.task('report', async () => {
      await currentTask().progress({ done: 1, of: 2 });
      await gate.fn();
      return 'finished';
    });
    const result = report.delay();
    expect(await result.info()).toBeUndefined();
    await t.startWorker();
    await gate.started;
    expect(await result.state()).toBe('PROGRESS');
    expect(await result.info()).toEqual({ done: 1, of: 2 });
    gate.release();
    await result;
    expect(await result.info()).toBe('finished');
  });

  it('forget() deletes the stored result', async () => {
    const add = t.app.task('add', (a: number, b: number) => a + b);
    await t.startWorker();
    const result = add.delay(1, 2);
    await result;
    await result.forget();
    expect(await result.state()).toBe('PENDING');
    expect(await result.record()).toBeUndefined();
  });

  it('app.result(id) rehydrates a handle knowing the value, the failure (with task name) and the state', async () => {
    const add = t.app.task('add', (a: number, b: number) => a + b);
    const fail = t.app.task('fail.named', () => {
      throw new Error('bad');
    });
    const sum = add.delay(20, 22);
    const failed = fail.delay();
    await t.startWorker();
    const rehydrated = t.app.result<number>(sum.id);
    expect(rehydrated.taskName).toBeUndefined();
    await expect(rehydrated).resolves.toBe(42);
    expect(await rehydrated.state()).toBe('SUCCESS');
    await expect(t.app.result(failed.id)).rejects.toMatchObject({
      message: expect.stringContaining(`fail.named[${failed.id}]`),
    });
    await expect(t.app.result('never-sent').get({ timeout: 20 })).rejects.toBeInstanceOf(TimeoutError);
    expect(await t.app.result('never-sent').state()).toBe('PENDING');
  });
});
