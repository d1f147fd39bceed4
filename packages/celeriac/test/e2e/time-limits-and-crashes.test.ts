import { randomUUID } from 'node:crypto';
import { TaskFailedError } from 'celeriac';
import { useE2e } from './support/worker-process';

describe('celeriac worker: hard limits and crashes', () => {
  const e2e = useE2e('e2e-limits');

  it('kills a hung task at its hard limit, fails it with TimeLimitExceededError, and runs the next task', async () => {
    const { fixture, workers } = e2e();
    const worker = workers.start(['-c', '1', '--pool', 'prefork']);
    await worker.ready();
    const client = fixture.app();
    const hung = client.sendTask('e2e.hang', [], { timeLimit: 500 });
    const failure = await hung.get({ timeout: 20_000, propagate: false });
    expect(failure).toBeInstanceOf(TaskFailedError);
    expect((failure as TaskFailedError).remote.name).toBe('TimeLimitExceededError');
    await expect(client.sendTask('e2e.add', [2, 3]).get({ timeout: 20_000 })).resolves.toBe(5);
  });

  it.each([
    ['prefork', ['--time-limit', '30d', '--soft-time-limit', '30d'], {}],
    ['fork', [], { timeLimit: 1e12, softTimeLimit: 1e12 }],
  ] as const)(
    '--pool %s: limits past setTimeout’s 2^31-1 ms (%j %j) let a task run to its end',
    async (pool, flags, limits) => {
      const { fixture, workers } = e2e();
      const worker = workers.start(['-c', '1', '--pool', pool, ...flags]);
      await worker.ready();
      const client = fixture.app();
      await expect(client.sendTask<number>('e2e.sleep', [50], limits).get({ timeout: 20_000 })).resolves.toEqual(
        expect.any(Number),
      );
    },
  );

  it('retries a task whose child crashed, then fails it with WorkerLostError', async () => {
    const { fixture, workers } = e2e();
    const worker = workers.start(['-c', '1', '--pool', 'prefork']);
    await worker.ready();
    const client = fixture.app({ maxDeliveries: 2 });
    const crashing = client.sendTask('e2e.crash', [7]);
    const failure = await crashing.get({ timeout: 30_000, propagate: false });
    expect(failure).toBeInstanceOf(TaskFailedError);
    expect((failure as TaskFailedError).remote.name).toBe('WorkerLostError');
    const record = await crashing.record();
    expect(record?.retries).toBe(1);
    // The worker keeps serving after its children died.
    await expect(client.sendTask('e2e.add', [1, 1]).get({ timeout: 20_000 })).resolves.toBe(2);
  });

  // The child must exit at once however it ends (nothing may keep it waiting on its parent), and
  // the worker must see the death: with --pool fork no other message would ever reach that child.
  it.each([
    ['fork', 'exit'],
    ['fork', 'throw'],
    ['prefork', 'exit'],
  ] as const)(
    '--pool %s: a child that ends outside the task call (%s) fails the task with WorkerLostError',
    async (pool, how) => {
      const { fixture, workers } = e2e();
      const worker = workers.start(['-c', '1', '--pool', pool]);
      await worker.ready();
      const client = fixture.app({ maxDeliveries: 2 });
      const failure = await client.sendTask('e2e.crashLater', [how]).get({ timeout: 20_000, propagate: false });
      expect(failure).toBeInstanceOf(TaskFailedError);
      expect((failure as TaskFailedError).remote.name).toBe('WorkerLostError');
      await expect(client.sendTask('e2e.add', [2, 2]).get({ timeout: 20_000 })).resolves.toBe(4);
    },
  );

  it('replaces a prefork child whose memory passed --max-memory-per-child', async () => {
    const { fixture, workers } = e2e();
    const worker = workers.start(['-c', '1', '--pool', 'prefork', '--max-memory-per-child', '150']);
    await worker.ready();
    const client = fixture.app();
    const first = await client.sendTask<number>('e2e.leak', [200]).get({ timeout: 20_000 });
    await worker.waitForLog(
      (line) => line.child === first && /max-memory-per-child/.test(String(line.reason)),
      'the replacement',
    );
    const second = await client.sendTask<number>('e2e.pid', []).get({ timeout: 20_000 });
    expect(second).not.toBe(first);
  });

  it.each([
    ['prefork', /exited/],
    ['fork', /before it got a task/],
  ] as const)(
    '--pool %s: replaces a child killed while it held no task, and the next task never sees it',
    async (pool, reason) => {
      const { fixture, workers } = e2e();
      const worker = workers.start(['-c', '1', '--pool', pool]);
      await worker.ready();
      const [child] = worker.children().filter(({ command }) => command === 'node');
      expect(child).toBeDefined();
      process.kill(child!.pid, 'SIGKILL');
      await worker.waitForLog(
        (line) => line.child === child!.pid && reason.test(String(line.reason)),
        'the replacement',
      );
      const client = fixture.app();
      const result = client.sendTask<number>('e2e.pid', []);
      expect(await result.get({ timeout: 20_000 })).not.toBe(child!.pid);
      // It ran on its first delivery: the dead child did not cost it a lost one.
      expect(worker.lines.filter((line) => line.id === result.id).map((line) => line.state)).not.toContain(
        'REDELIVERED',
      );
    },
  );

  it('runs every task in a new process with --pool fork', async () => {
    const { fixture, workers } = e2e();
    const worker = workers.start(['-c', '2', '--pool', 'fork']);
    await worker.ready();
    const client = fixture.app();
    const pids = await Promise.all(
      Array.from({ length: 6 }, () => client.sendTask<number>('e2e.pid', []).get({ timeout: 20_000 })),
    );
    expect(new Set(pids).size).toBe(6);
  });

  it.each(['prefork', 'fork'] as const)('--pool %s: reports progress from a child to the caller', async (pool) => {
    const { fixture, workers } = e2e();
    // In a fork child the task's context is the whole process's, not an AsyncLocalStorage's: progress
    // is reported after awaits, where only a context that survives them is found.
    const worker = workers.start(['-c', '1', '--pool', pool]);
    await worker.ready();
    const client = fixture.app();
    // Listen before sending, so no state can come before the subscription.
    const id = randomUUID();
    const states: string[] = [];
    const stop = client.backend.onChange?.(id, (record) =>
      states.push(`${record.state}:${JSON.stringify(record.meta ?? null)}`),
    );
    await stop?.ready;
    const result = client.sendTask('e2e.progress', [3], { taskId: id });
    await expect(result.get({ timeout: 20_000 })).resolves.toBe(3);
    stop?.();
    expect(states.filter((state) => state.startsWith('PROGRESS'))).toEqual([
      'PROGRESS:{"step":1,"steps":3}',
      'PROGRESS:{"step":2,"steps":3}',
      'PROGRESS:{"step":3,"steps":3}',
    ]);
  });
});
