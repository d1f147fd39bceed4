import { currentTask, type TaskContext } from 'celeriac';
import { useApp } from './support/app';
import { recordChanges } from './support/records';

describe('currentTask()', () => {
  const t = useApp();

  /** A task that waits until the test opens the gate, then tells its id as currentTask() sees it. */
  function longTaskBehindGate() {
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const long = t.app.task('long', async () => {
      await gate;
      return currentTask().id;
    });
    return { long, openGate };
  }

  it('throws CELERIAC_NO_TASK_CONTEXT outside a task, also in a direct (local) call of a handle', () => {
    expect(() => currentTask()).toThrow(
      expect.objectContaining({
        code: 'CELERIAC_NO_TASK_CONTEXT',
        message: expect.stringContaining('outside a running task'),
      }),
    );
    const local = t.app.task('local', () => currentTask().id);
    expect(() => local()).toThrow(expect.objectContaining({ code: 'CELERIAC_NO_TASK_CONTEXT' }));
  });

  it('describes the running task, across awaits and timers', async () => {
    const describeSelf = t.app.task(
      'self',
      async (label: string) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        const context: TaskContext = currentTask();
        const { id, name, args, retries, maxRetries, deliveries, queue, headers, parentId, rootId } = context;
        return {
          id,
          name,
          args,
          retries,
          maxRetries,
          deliveries,
          queue,
          headers,
          parentId,
          rootId,
          label,
          aborted: context.signal.aborted,
        };
      },
      { retries: 4, queue: 'ctx' },
    );
    await t.startWorker({ queues: ['ctx'] });
    const result = describeSelf.applyAsync(['x'], { headers: { who: 'test' } });
    await expect(result).resolves.toEqual({
      id: result.id,
      name: 'self',
      args: ['x'],
      retries: 0,
      maxRetries: 4,
      deliveries: 1,
      queue: 'ctx',
      headers: { who: 'test' },
      parentId: undefined,
      rootId: undefined,
      label: 'x',
      aborted: false,
    });
  });

  it('keeps concurrent tasks apart', async () => {
    const whoAmI = t.app.task('who', async (n: number) => {
      await new Promise((resolve) => setImmediate(resolve));
      return currentTask().args[0] === n ? currentTask().id : 'mixed up';
    });
    await t.startWorker({ concurrency: 8 });
    const results = Array.from({ length: 8 }, (_, n) => whoAmI.delay(n));
    await expect(Promise.all(results)).resolves.toEqual(results.map((result) => result.id));
  });

  it('keeps the context of a long task while short tasks start and end, and after every task ended', async () => {
    // The context storage is switched off whenever no task runs: a short task that starts and ends
    // while a long one waits must not switch it off under the long one.
    const { long, openGate } = longTaskBehindGate();
    const short = t.app.task('short', () => currentTask().id);
    const throwing = t.app.task('throwing', () => {
      throw new Error(`thrown by ${currentTask().name}`);
    });
    await t.startWorker({ concurrency: 2 });
    const waiting = long.delay();
    await expect(short.delay()).resolves.toEqual(expect.any(String));
    await expect(throwing.delay().get()).rejects.toThrow('thrown by throwing');
    openGate();
    await expect(waiting).resolves.toBe(waiting.id);
    // Nothing runs now; the next task still has its context.
    const after = short.delay();
    await expect(after).resolves.toBe(after.id);
  });

  it('keeps the context of a task that starts right after another one ended, in the same batch', async () => {
    // The switch-off queued when the first task ended must not hit the second one, which started
    // before the queued check ran.
    const quick = t.app.task('quick', () => currentTask().id);
    const awaiting = t.app.task('awaiting', async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return currentTask().id;
    });
    const first = quick.delay();
    const second = awaiting.delay();
    await Promise.all([first.sent, second.sent]);
    await t.startWorker({ concurrency: 2 });
    await expect(first).resolves.toBe(first.id);
    await expect(second).resolves.toBe(second.id);
  });

  it('counts a task once even when it returns a thenable that calls back twice', async () => {
    const { long, openGate } = longTaskBehindGate();
    const odd = t.app.task('odd', () => ({
      then(resolve: (value: number) => void) {
        resolve(1);
        resolve(2);
      },
    }));
    await t.startWorker({ concurrency: 2 });
    const waiting = long.delay();
    await expect(odd.delay()).resolves.toBe(1);
    openGate();
    await expect(waiting).resolves.toBe(waiting.id);
  });

  it('progress() and setState() store custom states with metadata, in order', async () => {
    const upload = t.app.task('upload', async () => {
      await currentTask().progress({ percent: 50 });
      await currentTask().setState('UPLOADING', { file: 'a.txt' });
      return 'uploaded';
    });
    const result = upload.delay();
    const changes = recordChanges(t.app, result);
    await t.startWorker();
    await expect(result).resolves.toBe('uploaded');
    expect(changes().map((record) => [record.state, record.meta])).toEqual([
      ['STARTED', expect.objectContaining({ pid: process.pid })],
      ['PROGRESS', { percent: 50 }],
      ['UPLOADING', { file: 'a.txt' }],
      ['SUCCESS', undefined],
    ]);
  });
});
