import { currentTask, maybeCurrentTask, runAsSoleTask, runWithTaskContext, type TaskContext } from '../src/context';

/** A context with just an id: enough to tell two apart. */
function contextOf(id: string): TaskContext {
  return { id } as TaskContext;
}

// runAsSoleTask marks the whole process for good, so this file (its own module registry) tests only it.
describe('runAsSoleTask (a process that runs one task)', () => {
  it('makes the task current everywhere in the process, after awaits and in timers too', async () => {
    expect(maybeCurrentTask()).toBeUndefined();
    expect(() => currentTask()).toThrow(expect.objectContaining({ code: 'CELERIAC_NO_TASK_CONTEXT' }));
    const seen = await runAsSoleTask(contextOf('sole'), async () => {
      const first = currentTask().id;
      await new Promise((resolve) => setImmediate(resolve));
      const afterAwait = currentTask().id;
      const inTimer = await new Promise<string>((resolve) => setTimeout(() => resolve(currentTask().id), 1));
      return [first, afterAwait, inTimer];
    });
    expect(seen).toEqual(['sole', 'sole', 'sole']);
    // The process runs nothing else: what runs after the task still belongs to it.
    expect(maybeCurrentTask()?.id).toBe('sole');
  });

  it('leaves a task run with its own context its own', async () => {
    const inner = await runWithTaskContext(contextOf('inner'), async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return currentTask().id;
    });
    expect(inner).toBe('inner');
  });
});
