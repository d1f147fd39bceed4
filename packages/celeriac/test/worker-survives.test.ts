/** A worker process survives what a task's extras throw: a progress store that fails unawaited, hooks that reject. */
import { Codec, MemoryBackend, type StoreEntry } from '@celeriac/core';
import { deferred } from '@celeriac/core/testing';
import { currentTask } from 'celeriac';
import { useApp } from './support/app';

/** A memory backend that refuses to store PROGRESS records, as a Redis gone away would. */
class NoProgressBackend extends MemoryBackend {
  /** Resolves when a PROGRESS store was refused. */
  refused = deferred();

  override async store(entries: readonly StoreEntry[]): Promise<void> {
    if (entries.some((entry) => entry.record.state === 'PROGRESS')) {
      this.refused.resolve();
      throw new Error('the backend is away');
    }
    return super.store(entries);
  }
}

const backend = new NoProgressBackend(new Codec());

describe('a worker survives errors around a task', () => {
  const t = useApp({ broker: 'memory://', backend });
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(() => void process.off('unhandledRejection', onUnhandled));

  it('logs a progress store that failed while the task did not await it, and the task succeeds', async () => {
    const reported = deferred();
    const task = t.app.task('survive.progress', async () => {
      void currentTask().progress({ done: 1 });
      reported.resolve();
      return 'done';
    });
    await t.startWorker();
    await expect(task.delay()).resolves.toBe('done');
    await reported.promise;
    await backend.refused.promise;
    // The rejection reaches the worker's handler within a few turns of the event loop.
    for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
    const warned = () =>
      t.logs.some((log) => log.level === 'warn' && /could not store its PROGRESS state/.test(log.message));
    expect(unhandled).toEqual([]);
    expect(warned()).toBe(true);
  });

  it('logs hooks that reject asynchronously, and the outcomes stand', async () => {
    const task = t.app.task(
      'survive.hooks',
      (fail: boolean) => {
        if (fail) throw new Error('task failed');
        return 'fine';
      },
      {
        onSuccess: () => Promise.reject(new Error('onSuccess bug')),
        onFailure: async () => {
          throw new Error('onFailure bug');
        },
      },
    );
    await t.startWorker();
    await expect(task.delay(false)).resolves.toBe('fine');
    await expect(task.delay(true)).rejects.toMatchObject({ remote: { message: 'task failed' } });
    for (const hook of ['onSuccess', 'onFailure']) {
      expect(t.logs).toContainEqual(
        expect.objectContaining({ level: 'error', fields: expect.objectContaining({ hook }) }),
      );
    }
    expect(unhandled).toEqual([]);
  });
});
