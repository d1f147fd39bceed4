import { currentTask, TaskRevokedError } from 'celeriac';
import { useApp } from './support/app';
import { blocker } from './support/tasks';
import { itWhere } from './support/declared';

describe('revoking tasks', () => {
  const t = useApp();

  function counted() {
    const counter = { runs: 0 };
    const task = t.app.task('counted', () => ++counter.runs);
    return { counter, task };
  }

  itWhere('revokeRemoves', (c) => c.revokeRemoves)(
    'revoke() of a waiting task: REVOKED, TaskRevokedError, and it never runs',
    async () => {
      const { counter, task } = counted();
      const waiting = task.delay();
      const delayed = task.applyAsync([], { countdown: '1h' });
      await Promise.all([waiting.sent, delayed.sent]);
      await waiting.revoke();
      await delayed.revoke();
      expect(await waiting.state()).toBe('REVOKED');
      const error = await waiting.catch((reason: unknown) => reason);
      expect(error).toBeInstanceOf(TaskRevokedError);
      expect(error).toMatchObject({ taskId: waiting.id, reason: 'revoked', code: 'CELERIAC_TASK_REVOKED' });
      await expect(delayed).rejects.toBeInstanceOf(TaskRevokedError);
      expect(await t.app.broker.stats('default')).toEqual({ ready: 0, delayed: 0, active: 0, dead: 0 });
      await t.startWorker();
      await expect(task.delay()).resolves.toBe(1);
      expect(counter.runs).toBe(1);
    },
  );

  it('a worker refuses a task whose id was revoked before it was sent, even a worker started later', async () => {
    const { counter, task } = counted();
    await t.app.revoke('cancelled-early');
    await t.startWorker();
    const result = task.applyAsync([], { taskId: 'cancelled-early' });
    await expect(result).rejects.toMatchObject({ reason: 'revoked' });
    expect(counter.runs).toBe(0);
  });

  it('revoke({ terminate: true }) aborts a running task; it ends REVOKED (terminated)', async () => {
    const aborted = blocker<void>();
    const task = t.app.task('long', async () => {
      const { signal } = currentTask();
      const stopped = new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      void aborted.fn();
      await stopped;
      return 'stopped early';
    });
    await t.startWorker();
    const result = task.delay();
    await aborted.started;
    await result.revoke({ terminate: true });
    await expect(result).rejects.toMatchObject({ reason: 'terminated' });
    expect(await result.state()).toBe('REVOKED');
  });

  it('revoke() without terminate lets a running task finish', async () => {
    const slow = blocker<string>();
    const task = t.app.task('slow', slow.fn);
    await t.startWorker();
    const result = task.delay();
    await slow.started;
    await result.revoke();
    slow.release('finished anyway');
    await expect(result).resolves.toBe('finished anyway');
  });

  it('revoke() refuses a terminate signal or grace it cannot use, naming the option', async () => {
    await expect(t.app.revoke('some-id', { terminate: true, signal: 'SIGHUP' as never })).rejects.toMatchObject({
      code: 'CELERIAC_INVALID_OPTION',
      message: expect.stringContaining('signal'),
    });
    await expect(t.app.revoke('some-id', { terminate: true, grace: 'soon' as never })).rejects.toMatchObject({
      code: 'CELERIAC_INVALID_DURATION',
      message: expect.stringContaining('grace'),
    });
    expect(await t.app.broker.listRevoked()).toEqual([]);
  });

  it('revoke({ terminate, signal, grace }) tells workers how to stop the run', async () => {
    await t.app.revoke('some-id', { terminate: true, signal: 'SIGKILL', grace: '2s' });
    await t.app.revoke('other-id', { signal: 'SIGKILL' });
    expect(await t.app.broker.listRevoked()).toEqual([
      { id: 'some-id', terminate: true, signal: 'SIGKILL', grace: 2_000 },
      { id: 'other-id', terminate: false },
    ]);
  });
});
