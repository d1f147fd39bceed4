import { chain, chord, ChordError, group, GroupResult, TaskFailedError, type AsyncResult } from 'celeriac';
import { useApp } from './support/app';

describe('canvas (memory broker, inline worker)', () => {
  const t = useApp();

  function math() {
    const add = t.app.task('math.add', (a: number, b: number) => a + b);
    const sum = t.app.task('math.sum', (values: number[]) => values.reduce((total, value) => total + value, 0));
    const boom = t.app.task('boom', (_value?: unknown): number => {
      throw new Error('kaput');
    });
    return { add, sum, boom };
  }

  it('chain: each result feeds the next; parents can be walked', async () => {
    const { add } = math();
    await t.startWorker();
    const result = chain(add.s(2, 2), add.s(4), add.s(8)).applyAsync();
    await expect(result).resolves.toBe(16);
    const middle = result.parent as AsyncResult<number>;
    const first = middle.parent as AsyncResult<number>;
    expect(await middle).toBe(8);
    expect(await first).toBe(4);
    expect(first.parent).toBeUndefined();
  });

  it('immutable signatures ignore the parent result', async () => {
    const { add } = math();
    await t.startWorker();
    await expect(chain(add.s(2, 2), add.si(1, 1)).applyAsync()).resolves.toBe(2);
  });

  it('group: results in order, completedCount and ready', async () => {
    const { add } = math();
    await t.startWorker();
    const result = group(Array.from({ length: 100 }, (_, index) => add.s(index, index))).applyAsync();
    expect(result).toBeInstanceOf(GroupResult);
    const values = await result;
    expect(values).toEqual(Array.from({ length: 100 }, (_, index) => 2 * index));
    expect(await result.completedCount()).toBe(100);
    expect(await result.ready()).toBe(true);
    const again = t.app.groupResult<number[]>(result.id, 100);
    expect(await again).toEqual(values);
  });

  it('chord: the callback gets the list of results', async () => {
    const { add, sum } = math();
    await t.startWorker();
    await expect(chord([add.s(1, 1), add.s(2, 2)], sum.s()).applyAsync()).resolves.toBe(6);
  });

  it('a chain containing a group containing a chain', async () => {
    const { add, sum } = math();
    await t.startWorker();
    const flow = chain(add.s(1, 1), group([chain(add.s(10), add.s(100)), add.s(1000)]), sum.s(), add.s(5));
    // 2 -> [2+10+100, 2+1000] -> 1114 -> 1119
    await expect(flow.applyAsync()).resolves.toBe(1119);
  });

  it('a failed chain step stops the chain; its error reaches the chain result and linkError', async () => {
    const { add, boom } = math();
    const errors: Array<[string, unknown]> = [];
    const onError = t.app.task('on.error', (id: string, error: unknown) => void errors.push([id, error]));
    await t.startWorker();
    const result = chain(add.s(1, 1), boom.s(), add.s(3)).onError(onError.s()).applyAsync();
    const error = await result.catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(TaskFailedError);
    expect((error as TaskFailedError).remote.message).toBe('kaput');
    const failedStep = result.parent as AsyncResult<number>;
    expect(await failedStep.state()).toBe('FAILURE');
    await expect.poll?.(() => errors.length);
  });

  it('a failed chord header fails the chord with ChordError naming the task; the callback does not run', async () => {
    const { add, sum, boom } = math();
    let calls = 0;
    const counted = t.app.task('counted.sum', (values: number[]) => {
      calls += 1;
      return values.length;
    });
    await t.startWorker();
    const result = chord([add.s(1, 1), boom.s(), add.s(2, 2)], counted.s()).applyAsync();
    const error = (await result.catch((reason: unknown) => reason)) as TaskFailedError;
    expect(error).toBeInstanceOf(TaskFailedError);
    expect(error.remote.name).toBe(ChordError.name);
    expect(error.remote.message).toContain('boom');
    expect(calls).toBe(0);
    void sum;
  });
});
