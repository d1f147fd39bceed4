/** Canvas on one process (memory broker, inline worker): the semantics of each primitive. */
import {
  chain,
  chord,
  ChordError,
  DependencyFailedError,
  group,
  GroupResult,
  TaskFailedError,
  TaskRevokedError,
  type AsyncResult,
  type RemoteError,
} from 'celeriac';
import { decodeMessage, runtimeOf } from '@celeriac/core/internal';
import { deferred } from '@celeriac/core/testing';
import { useApp } from './support/app';
import { itWhere } from './support/declared';

describe('canvas (inline worker)', () => {
  const t = useApp();

  function math() {
    const add = t.app.task('math.add', (a: number, b: number) => a + b);
    const sum = t.app.task('math.sum', (values: number[]) => values.reduce((total, value) => total + value, 0));
    const boom = t.app.task('boom', (_value?: unknown): number => {
      throw new Error('kaput');
    });
    return { add, sum, boom };
  }

  /** A task that records its calls and resolves `called` on the first. */
  function recorder(name: string) {
    const calls: unknown[][] = [];
    const called = deferred<unknown[]>();
    const handle = t.app.task(name, (...args: unknown[]) => {
      calls.push(args);
      called.resolve(args);
    });
    return { calls, called: called.promise, handle };
  }

  it('chain: each result feeds the next; parents can be walked back to the first step', async () => {
    const { add } = math();
    await t.startWorker();
    const result = chain(add.s(2, 2), add.s(4), add.s(8)).applyAsync();
    await expect(result).resolves.toBe(16);
    const middle = result.parent as AsyncResult<number>;
    const first = middle.parent as AsyncResult<number>;
    expect(await middle).toBe(8);
    expect(await first).toBe(4);
    expect(first.parent).toBeUndefined();
    // Lineage travels in the messages: the last step names the first as its root.
    expect(await result.state()).toBe('SUCCESS');
  });

  it('applyAsync(args) gives the first step its leading arguments; immutable steps ignore the parent', async () => {
    const { add } = math();
    await t.startWorker();
    await expect(chain(add.s(2), add.s(3)).applyAsync([1])).resolves.toBe(6);
    await expect(chain(add.s(2, 2), add.si(1, 1)).applyAsync()).resolves.toBe(2);
  });

  it('group: results in order, completedCount and ready; rehydrated from its id anywhere', async () => {
    const { add } = math();
    await t.startWorker();
    const result = group(Array.from({ length: 100 }, (_, index) => add.s(index, index))).applyAsync();
    expect(result).toBeInstanceOf(GroupResult);
    const values = await result;
    expect(values).toEqual(Array.from({ length: 100 }, (_, index) => 2 * index));
    expect(await result.completedCount()).toBe(100);
    expect(await result.ready()).toBe(true);
    expect(result.ids[3]).toBe(`${result.id}:3`);
    expect(await t.app.groupResult<number[]>(result.id, 100)).toEqual(values);
  });

  it('group with a failed member: get() throws it, propagate: false lists it in place', async () => {
    const { add, boom } = math();
    await t.startWorker();
    const result = group([add.s(1, 1), boom.s(), add.s(2, 2)]).applyAsync();
    await expect(result.get()).rejects.toBeInstanceOf(TaskFailedError);
    const listed = await result.get({ propagate: false });
    expect(listed[0]).toBe(2);
    expect(listed[1]).toBeInstanceOf(TaskFailedError);
    expect(listed[2]).toBe(4);
    expect(await result.completedCount()).toBe(2);
    expect(await result.failed()).toBe(true);
  });

  it('chord: the callback gets the list of results, once', async () => {
    const { add } = math();
    const body = recorder('collect');
    await t.startWorker();
    const result = chord([add.s(1, 1), add.s(2, 2), add.s(3, 3)], body.handle.s('tail')).applyAsync();
    await result;
    expect(body.calls).toEqual([[[2, 4, 6], 'tail']]);
    expect(result.parent).toBeInstanceOf(GroupResult);
  });

  it('a chain containing a group containing a chain', async () => {
    const { add, sum } = math();
    await t.startWorker();
    // 2 -> [2 + 10 + 100, 2 + 1000] -> 1114 -> 1119
    await expect(
      chain(add.s(1, 1), group([chain(add.s(10), add.s(100)), add.s(1000)]), sum.s(), add.s(5)).applyAsync(),
    ).resolves.toBe(1119);
  });

  it('a chain ending in a group returns the GroupResult; a group after a group is fed the list', async () => {
    const { add, sum } = math();
    await t.startWorker();
    const ending = chain(add.s(1, 1), group([add.s(1), add.s(2)])).applyAsync();
    expect(ending).toBeInstanceOf(GroupResult);
    await expect(ending).resolves.toEqual([3, 4]);
    await expect(chain(group([add.s(1, 1), add.s(2, 2)]), group([sum.s(), sum.s()])).applyAsync()).resolves.toEqual([
      6, 6,
    ]);
  });

  it('a failed chain step stops the chain; its error reaches the chain result and onError', async () => {
    const { add, boom } = math();
    const errback = recorder('on.error');
    const after = recorder('after');
    await t.startWorker();
    const result = chain(add.s(1, 1), boom.s(), after.handle.s()).onError(errback.handle.s()).applyAsync();
    const error = (await result.catch((reason: unknown) => reason)) as TaskFailedError;
    expect(error).toBeInstanceOf(TaskFailedError);
    expect(error.remote.message).toBe('kaput');
    const failedStep = result.parent as AsyncResult<number>;
    expect(await failedStep.state()).toBe('FAILURE');
    // The chain's result is the last step's, but its error names the step that failed.
    expect(error.message).toBe(
      `Task boom[${failedStep.id}] failed: Error: kaput (so after[${result.id}], after it in the workflow, did not ` +
        `run)`,
    );
    expect(error.failedStep).toEqual({ id: failedStep.id, task: 'boom' });
    expect(error.taskId).toBe(result.id);
    const [taskId, remote] = (await errback.called) as [string, RemoteError];
    expect(taskId).toBe(failedStep.id);
    expect(remote).toMatchObject({ name: 'Error', message: 'kaput' });
    expect(after.calls).toEqual([]);
    expect(errback.calls).toHaveLength(1);
  });

  it('link runs with the result; linkError with (taskId, error); retries keep the chain intact', async () => {
    const { add, boom } = math();
    const linked = recorder('linked');
    const errback = recorder('errback');
    let attempts = 0;
    const flaky = t.app.task(
      'flaky',
      (value: number) => {
        attempts += 1;
        if (attempts < 3) throw new Error('not yet');
        return value * 10;
      },
      { retries: 5, retryDelay: 1 },
    );
    await t.startWorker();
    await add.applyAsync([2, 3], { link: linked.handle.s('x') });
    expect(await linked.called).toEqual([5, 'x']);
    const failed = boom.applyAsync([], { linkError: errback.handle.s() });
    await failed.catch(() => undefined);
    expect((await errback.called)[0]).toBe(failed.id);
    await expect(chain(add.s(1, 1), flaky.s(), add.s(1)).applyAsync()).resolves.toBe(21);
    expect(attempts).toBe(3);
  });

  it('a failed chord header fails the chord with ChordError naming the task; the callback does not run', async () => {
    const { add, boom } = math();
    const body = recorder('never');
    await t.startWorker();
    const result = chord([add.s(1, 1), boom.s(), add.s(2, 2)], body.handle.s()).applyAsync();
    const error = (await result.catch((reason: unknown) => reason)) as TaskFailedError;
    expect(error).toBeInstanceOf(TaskFailedError);
    expect(error.remote).toMatchObject({ name: ChordError.name, code: 'CELERIAC_CHORD_FAILED' });
    expect(error.remote.message).toContain(`boom[${(result.parent as GroupResult).ids[1]}]`);
    // Every header task has settled: nothing is left that could start the callback.
    await (result.parent as GroupResult).get({ propagate: false });
    expect(body.calls).toEqual([]);
  });

  it("several failed chord header tasks call the callback's errbacks once, also failing after it ran", async () => {
    const { add, boom } = math();
    const body = recorder('never');
    const errback = recorder('chord.errback');
    // The first failure is handled (errback run and acked) by one worker before the others fail.
    const early = await t.startWorker({ queues: ['default'] });
    const header = [boom.s(), add.s(1, 1), boom.s().set({ queue: 'late' }), boom.s().set({ queue: 'late' })];
    const result = chord(header, body.handle.s().set({ linkError: errback.handle.s() })).applyAsync();
    await expect(result).rejects.toBeInstanceOf(TaskFailedError);
    const [taskId, remote] = (await errback.called) as [string, RemoteError];
    expect(taskId).toBe(result.id);
    expect(remote.name).toBe(ChordError.name);
    await early.close();
    const late = await t.startWorker({ queues: ['late', 'default'] });
    await (result.parent as GroupResult).get({ propagate: false });
    // Once the worker stopped, every header task is acked, so every errback it would send was sent:
    // those that ran plus those still queued.
    await late.close();
    expect(errback.calls.length + (await t.app.broker.stats('default')).ready).toBe(1);
    expect(body.calls).toEqual([]);
  });

  it('dependsOn: runs after its dependency succeeded', async () => {
    const gate = deferred<string>();
    const slow = t.app.task('slow', () => gate.promise);
    const echo = t.app.task('echo', (value: string) => value);
    await t.startWorker({ concurrency: 1, prefetch: 4 });
    const first = slow.delay();
    const dependent = echo.applyAsync(['after'], { dependsOn: [first] });
    await first.sent;
    expect(await dependent.state()).toBe('PENDING');
    gate.resolve('done');
    await expect(dependent).resolves.toBe('after');
    await expect(first).resolves.toBe('done');
  });

  it('dependsOn: a task waiting for a dependency leaves its slot to other tasks', async () => {
    const gate = deferred<string>();
    const slow = t.app.task('slow', () => gate.promise);
    const echo = t.app.task('echo', (value: string) => value);
    // Two slots: `slow` takes one; the dependent waits without one, so `echo('free')` still runs.
    await t.startWorker({ concurrency: 2 });
    const first = slow.delay();
    const dependent = echo.applyAsync(['after'], { dependsOn: first.id });
    const free = echo.delay('free');
    await expect(free).resolves.toBe('free');
    expect(await dependent.state()).toBe('PENDING');
    gate.resolve('done');
    await expect(dependent).resolves.toBe('after');
  });

  it('dependsOn: a task revoked while it waits for its dependency does not run', async () => {
    const gate = deferred<string>();
    const slow = t.app.task('slow', () => gate.promise);
    const never = recorder('never');
    await t.startWorker({ concurrency: 2 });
    const first = slow.delay();
    const dependent = never.handle.applyAsync([], { dependsOn: [first] });
    await expect(dependent.state()).resolves.toBe('PENDING');
    await dependent.revoke();
    gate.resolve('done');
    await expect(first).resolves.toBe('done');
    await expect(dependent).rejects.toBeInstanceOf(TaskRevokedError);
    expect(never.calls).toEqual([]);
  });

  it('dependsOn: one failed dependency fails the task at once, while another still runs', async () => {
    const { boom } = math();
    const gate = deferred<string>();
    const slow = t.app.task('slow', () => gate.promise);
    const never = recorder('never');
    await t.startWorker({ concurrency: 2 });
    const pending = slow.delay();
    const failing = boom.delay();
    const dependent = never.handle.applyAsync([], { dependsOn: [pending, failing] });
    const error = (await dependent.catch((reason: unknown) => reason)) as TaskFailedError;
    expect(error.remote).toMatchObject({
      name: DependencyFailedError.name,
      message: expect.stringContaining(failing.id),
    });
    expect(await pending.state()).not.toBe('SUCCESS');
    gate.resolve('done');
    await pending;
    expect(never.calls).toEqual([]);
  });

  it('dependsOn a failed task: DependencyFailedError, and the task never runs', async () => {
    const { boom } = math();
    const never = recorder('never');
    await t.startWorker();
    const failed = boom.delay();
    await failed.catch(() => undefined);
    const dependent = never.handle.applyAsync([], { dependsOn: [failed.id] });
    const error = (await dependent.catch((reason: unknown) => reason)) as TaskFailedError;
    expect(error.remote).toMatchObject({ name: DependencyFailedError.name, code: 'CELERIAC_DEPENDENCY_FAILED' });
    expect(error.remote.message).toContain(failed.id);
    expect(never.calls).toEqual([]);
  });

  itWhere('revokeRemoves', (c) => c.revokeRemoves)(
    'revoking a waiting chain step revokes the steps after it (no result is left PENDING)',
    async () => {
      const { add } = math();
      const result = chain(add.s(1, 1), add.s(2), add.s(3)).applyAsync();
      await result.sent;
      const first = (result.parent as AsyncResult<number>).parent as AsyncResult<number>;
      await first.revoke();
      await expect(result).rejects.toBeInstanceOf(TaskRevokedError);
      expect(await (result.parent as AsyncResult<number>).state()).toBe('REVOKED');
    },
  );

  it('app.close() while a worker finishes a chain step: the step is settled and the next step sent', async () => {
    const { add } = math();
    const started = deferred();
    const gate = deferred<number>();
    const first = t.app.task('first', () => {
      started.resolve();
      return gate.promise;
    });
    await t.startWorker();
    const broker = t.observer();
    chain(first.s(), add.s(1)).applyAsync();
    await started.promise;
    const closing = t.app.close();
    gate.resolve(1);
    await closing;
    expect(t.logs.filter((entry) => entry.level === 'error')).toEqual([]);
    // The first step was acked; the second waits in the queue for the next worker.
    expect(await broker.stats('default')).toMatchObject({ ready: 1, active: 0 });
  });

  it("a group's results expire together: every member keeps its result as long as the longest-lived one", async () => {
    const { add } = math();
    const brief = t.app.task('brief', (value: number) => value, { resultTtl: '1m' });
    const result = group([brief.s(1), chain(add.s(1, 1), add.s(1))]).applyAsync();
    await result.sent;
    const messages = (await t.app.broker.reserve(['default'], 10)).map((delivery) =>
      decodeMessage(runtimeOf(t.app).codec, delivery.body),
    );
    const member = messages.find((message) => message.id === result.ids[0]);
    expect(member?.resultTtl).toBe(t.app.options.resultTtl);
    // The chain's last step (the member's result) carries it too, in the first step's workflow.
    const firstStep = messages.find((message) => message.task === 'math.add');
    expect(firstStep?.workflow?.then?.[0]).toMatchObject({
      kind: 'task',
      options: { taskId: result.ids[1], resultTtl: t.app.options.resultTtl },
    });
  });

  it('signatures and workflows are plain data', () => {
    const { add, sum } = math();
    const workflow = chord([add.s(1, 1)], sum.s().set({ queue: 'q', priority: 3 }));
    const json = JSON.parse(JSON.stringify(workflow)) as unknown;
    expect(json).toEqual({
      kind: 'chain',
      steps: [
        { kind: 'group', members: [{ kind: 'task', task: 'math.add', args: [1, 1], options: {}, immutable: false }] },
        { kind: 'task', task: 'math.sum', args: [], options: { queue: 'q', priority: 3 }, immutable: false },
      ],
    });
  });

  it('bad shapes are refused before anything is sent', async () => {
    const { add } = math();
    expect(() => chain()).toThrow(expect.objectContaining({ code: 'CELERIAC_INVALID_CANVAS' }));
    expect(() => group([])).toThrow(expect.objectContaining({ code: 'CELERIAC_INVALID_CANVAS' }));
    expect(() => group([group([add.s(1, 1)])]).applyAsync()).toThrow(
      expect.objectContaining({ code: 'CELERIAC_INVALID_CANVAS' }),
    );
    // A step whose arguments cannot travel: nothing of the group was published.
    const keep = t.app.task('keep', (value: unknown) => value);
    expect(() => group([add.s(1, 1), keep.si(() => 1)]).applyAsync()).toThrow(
      expect.objectContaining({ code: 'CELERIAC_SERIALIZATION' }),
    );
    expect(await t.app.broker.stats('default')).toMatchObject({ ready: 0 });
  });
});
