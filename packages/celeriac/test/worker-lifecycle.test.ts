import { currentTask } from 'celeriac';
import { Codec } from '@celeriac/core';
import { encodeMessage, MESSAGE_VERSION } from '@celeriac/core/internal';
import { deferred } from '@celeriac/core/testing';
import { captureLogs } from '@celeriac/test-support';
import { useApp } from './support/app';
import { blocker } from './support/tasks';

describe('worker lifecycle', () => {
  const t = useApp();

  it('close() is graceful: no new tasks, and a running task finishes before it resolves', async () => {
    const slow = blocker<string>();
    const task = t.app.task('slow', slow.fn);
    const worker = await t.startWorker();
    expect(worker.state).toBe('running');
    const result = task.delay();
    await slow.started;
    let closed = false;
    const closing = worker.close().then(() => (closed = true));
    expect(worker.state).toBe('closing');
    const later = task.delay();
    await later.sent;
    slow.release('finished');
    await closing;
    expect(closed).toBe(true);
    expect(worker.state).toBe('closed');
    expect(await result.state()).toBe('SUCCESS');
    expect(await later.state()).toBe('PENDING');
    expect(await t.app.broker.stats('default')).toMatchObject({ ready: 1, active: 0 });
  });

  it('close() hands a task outliving shutdownTimeout back to its queue, aborting its signal; it reruns', async () => {
    const firstRunStarted = deferred();
    const firstRunStopped = deferred<unknown>();
    let runs = 0;
    const task = t.app.task('stubborn', async () => {
      runs += 1;
      if (runs > 1) return `run ${runs}`;
      firstRunStarted.resolve();
      const { signal } = currentTask();
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      firstRunStopped.resolve(signal.reason);
      throw new Error('stopped by shutdown');
    });
    const worker = await t.startWorker({ shutdownTimeout: 20 });
    const result = task.delay();
    await firstRunStarted.promise;
    await worker.close();
    await expect(firstRunStopped.promise).resolves.toBeInstanceOf(Error);
    expect(await t.app.broker.stats('default')).toMatchObject({ ready: 1, active: 0 });
    await t.startWorker();
    await expect(result).resolves.toBe('run 2');
  });

  it('runs at most `concurrency` tasks at once', async () => {
    const gate = deferred();
    const secondStarted = deferred();
    let running = 0;
    let started = 0;
    let most = 0;
    const task = t.app.task('gated', async () => {
      running += 1;
      started += 1;
      most = Math.max(most, running);
      if (started === 2) secondStarted.resolve();
      await gate.promise;
      running -= 1;
    });
    const results = Array.from({ length: 6 }, () => task.delay());
    await Promise.all(results.map((result) => result.sent));
    await t.startWorker({ concurrency: 2 });
    await secondStarted.promise;
    expect(started).toBe(2);
    gate.resolve();
    await Promise.all(results);
    expect([started, most]).toEqual([6, 2]);
  });

  it('app.close() closes the workers started from the app, and then refuses new calls', async () => {
    const add = t.app.task('add', (a: number, b: number) => a + b);
    const workers = [await t.startWorker(), await t.startWorker({ queues: ['other'] })];
    await expect(add.delay(1, 1)).resolves.toBe(2);
    await t.app.close();
    expect(workers.map((worker) => worker.state)).toEqual(['closed', 'closed']);
    expect(() => add.delay(1, 1)).toThrow(expect.objectContaining({ code: 'CELERIAC_CLOSED' }));
  });

  it('app.close() still delivers calls sent just before it', async () => {
    const add = t.app.task('add', (a: number, b: number) => a + b);
    const result = add.delay(1, 2);
    await t.app.close();
    await expect(result.sent).resolves.toBeUndefined();
  });

  it('a worker starts once; closing one that never started just marks it closed', async () => {
    const worker = await t.startWorker();
    await expect(worker.start()).rejects.toThrow();
    const idle = t.app.worker({ pool: 'inline' });
    expect(idle.state).toBe('idle');
    await idle.close();
    expect(idle.state).toBe('closed');
  });

  it('dead-letters a message whose resultTtl is invalid, with a FAILURE record saying so; keeps serving', async () => {
    // Such a message cannot come from app code (the call is checked); a foreign or older sender could
    // send one. Before it was checked on arrival, it failed when its STARTED record was stored.
    t.app.task('slowish', () => new Promise((resolve) => setTimeout(resolve, 40)));
    const body = encodeMessage(new Codec(), {
      version: MESSAGE_VERSION,
      id: 'bad-ttl',
      task: 'slowish',
      args: [],
      queue: 'default',
      priority: 0,
      retries: 0,
      headers: {},
      publishedAt: Date.now(),
      resultTtl: -5,
    });
    await t.app.broker.publish([{ id: 'bad-ttl', queue: 'default', priority: 0, idempotent: false, body }]);
    await t.startWorker();
    const failure = await t.app.result('bad-ttl').get({ propagate: false, timeout: '10s' });
    expect(failure).toMatchObject({
      code: 'CELERIAC_TASK_FAILED',
      message: expect.stringContaining('resultTtl must be a number of ms'),
    });
    await expect(t.app.broker.listDead?.('default')).resolves.toEqual([
      expect.objectContaining({ id: 'bad-ttl', reason: expect.stringContaining('resultTtl') }),
    ]);
    const add = t.app.task('add', (a: number, b: number) => a + b);
    await expect(add.delay(2, 3)).resolves.toBe(5);
  });

  it('logs a line when a task starts and when it ends, unless the logger says it drops info lines', async () => {
    const add = t.app.task('add', (a: number, b: number) => a + b);
    const verbose = captureLogs();
    const quiet = captureLogs();
    const dropsInfo = { ...quiet.logger, isLevelEnabled: (level: string) => level !== 'info' };
    for (const logger of [verbose.logger, dropsInfo]) {
      const worker = await t.startWorker({ logger });
      await add.delay(2, 3);
      await worker.close();
    }
    const perTask = (logs: typeof verbose.logs) =>
      logs
        .filter((line) => line.level === 'info' && /^Task add\[/.test(line.message))
        .map((line) => line.message.replace(/\[.*\]/, '[id]').replace(/\d+ ms/, 'N ms'));
    expect(perTask(verbose.logs)).toEqual(['Task add[id] started', 'Task add[id] succeeded in N ms']);
    expect(quiet.logs.filter((line) => line.level === 'info' && line.message.startsWith('Task add'))).toEqual([]);
  });

  it.each([
    [{ concurrency: 0 }, 'concurrency'],
    [{ queues: [] }, 'queues'],
    [{ pool: 'fork' as never }, 'pool'],
    [{ shutdownTimeout: '1 fortnight' as never }, 'shutdownTimeout'],
  ])('refuses worker options %p, naming %s', (options, name) => {
    expect(() => t.app.worker(options)).toThrow(
      expect.objectContaining({
        code: expect.stringMatching(/^CELERIAC_INVALID_(OPTION|DURATION)$/),
        message: expect.stringContaining(name),
      }),
    );
  });
});
