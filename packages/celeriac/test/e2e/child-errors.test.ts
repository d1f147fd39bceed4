import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { TaskFailedError } from 'celeriac';
import { useE2e } from './support/worker-process';

const FAILS_IN_CHILDREN = join(__dirname, 'fixtures/fails-in-children.js');
const EXITS_IN_CHILDREN = join(__dirname, 'fixtures/exits-in-children.js');
const FEWER_TASKS_IN_CHILDREN = join(__dirname, 'fixtures/fewer-tasks-in-children.js');

describe('celeriac worker: errors from pool children keep their codes', () => {
  const e2e = useE2e('e2e-child-errors');

  it.each([
    ['prefork', 'throws', FAILS_IN_CHILDREN, 'this module refuses to load in a pool child'],
    ['fork', 'throws', FAILS_IN_CHILDREN, 'this module refuses to load in a pool child'],
    ['prefork', 'exits', EXITS_IN_CHILDREN, 'A pool child exited (exit code 3) while it loaded the app module'],
    ['fork', 'exits', EXITS_IN_CHILDREN, 'A pool child exited (exit code 3) while it loaded the app module'],
  ] as const)(
    '--pool %s: a child whose app module %s stops the worker with CELERIAC_APP_MODULE',
    async (pool, _how, appModule, message) => {
      const { workers } = e2e();
      const worker = workers.spawn('worker', ['-A', appModule, '-c', '1', '--pool', pool]);
      const fatal = await worker.waitForLog((line) => line.level === 60, 'the fatal line');
      expect(fatal).toMatchObject({ code: 'CELERIAC_APP_MODULE' });
      expect(fatal.msg).toContain(message);
      await expect(worker.exited).resolves.toEqual({ code: 1, signal: null });
    },
  );

  it.each(['prefork', 'fork'] as const)(
    '--pool %s: a task the child does not have fails with UnknownTaskError and its code',
    async (pool) => {
      const { fixture, workers } = e2e();
      const worker = workers.spawn('worker', ['-A', FEWER_TASKS_IN_CHILDREN, '-c', '1', '--pool', pool]);
      await worker.ready();
      const result = fixture.app().sendTask('e2e.workerOnly', [], { taskId: randomUUID() });
      const error = await result.get({ timeout: 20_000 }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(TaskFailedError);
      expect((error as TaskFailedError).remote).toMatchObject({
        name: 'UnknownTaskError',
        code: 'CELERIAC_UNKNOWN_TASK',
      });
    },
  );
});
