import { TaskFailedError } from 'celeriac';
import { useApp } from './support/app';
import { CodedError } from './support/tasks';

describe('task failures as the caller sees them', () => {
  const t = useApp();

  it('reject with TaskFailedError carrying the remote name, message, stack and code', async () => {
    const charge = t.app.task('billing.charge', function chargeCard(amount: number) {
      throw new CodedError(`card declined for ${amount}`, 'E_DECLINED');
    });
    await t.startWorker();
    const result = charge.delay(12);
    const error = (await result.catch((reason: unknown) => reason)) as TaskFailedError;
    expect(error).toBeInstanceOf(TaskFailedError);
    expect(error.code).toBe('CELERIAC_TASK_FAILED');
    expect(error.taskId).toBe(result.id);
    expect(error.message).toBe(`Task billing.charge[${result.id}] failed: CodedError: card declined for 12`);
    expect(error.remote).toEqual({
      name: 'CodedError',
      message: 'card declined for 12',
      code: 'E_DECLINED',
      stack: expect.stringContaining('chargeCard'),
    });
    expect(error.cause).toBeInstanceOf(Error);
    expect(error.cause).toMatchObject({ name: 'CodedError', message: 'card declined for 12', code: 'E_DECLINED' });
  });

  it('report a thrown non-Error as a NonError failure', async () => {
    const odd = t.app.task('odd', () => {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- the case under test
      throw 'just a string';
    });
    await t.startWorker();
    await expect(odd.delay()).rejects.toMatchObject({ remote: { name: 'NonError', message: 'just a string' } });
  });

  it('an unknown task name ends as FAILURE with UnknownTaskError, dead-lettered; the worker serves on', async () => {
    const add = t.app.task('add', (a: number, b: number) => a + b);
    const worker = await t.startWorker({ concurrency: 1 });
    const unknown = t.app.sendTask('no.such.task', [1]);
    const error = (await unknown.catch((reason: unknown) => reason)) as TaskFailedError;
    expect(error.remote).toMatchObject({
      name: 'UnknownTaskError',
      code: 'CELERIAC_UNKNOWN_TASK',
      message: expect.stringContaining('"no.such.task"'),
    });
    await expect(add.delay(2, 2)).resolves.toBe(4);
    // The record is stored before the message moves to the dead letters; closing waits for both.
    await worker.close();
    expect(await t.app.broker.listDead('default')).toEqual([
      expect.objectContaining({ id: unknown.id, reason: expect.stringContaining('no.such.task') }),
    ]);
  });

  it('a result that cannot be serialized fails the task, without retrying (it would fail again)', async () => {
    let runs = 0;
    const leaky = t.app.task(
      'leaky',
      () => {
        runs += 1;
        return { callback: () => 'code' };
      },
      { retries: 3, retryDelay: 1 },
    );
    await t.startWorker();
    await expect(leaky.delay()).rejects.toMatchObject({
      remote: {
        name: 'SerializationError',
        code: 'CELERIAC_SERIALIZATION',
        message: expect.stringContaining('the result of leaky at .callback'),
      },
    });
    expect(runs).toBe(1);
  });
});
