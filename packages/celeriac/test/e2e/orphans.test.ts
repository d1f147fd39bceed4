import { randomUUID } from 'node:crypto';
import { gone, alive } from '@celeriac/test-support';
import { useE2e } from './support/worker-process';

describe('celeriac worker: pool children die with their worker', () => {
  const e2e = useE2e('e2e-orphans');

  // The worker's reaper kills each child's process group once the worker is gone: a child whose
  // task never yields cannot see its pipe close.
  it.each(['fork', 'prefork'] as const)(
    '--pool %s: a spinning child is gone soon after its worker is killed with SIGKILL',
    async (pool) => {
      const { fixture, workers } = e2e();
      const worker = workers.start(['-c', '1', '--pool', pool]);
      await worker.ready();
      const client = fixture.app();
      const id = randomUUID();
      const pid = new Promise<number>((resolve) => {
        const stop = client.backend.onChange?.(id, (record) => {
          const meta = record.meta as { pid?: number } | undefined;
          if (record.state === 'PROGRESS' && meta?.pid) resolve(meta.pid);
        });
        // Sent once the subscription is live, so the PROGRESS record cannot come before it. Its result
        // is never awaited: the task never ends.
        void stop?.ready.then(() => {
          client.sendTask('e2e.spinWithPid', [], { taskId: id });
        });
      });
      const childPid = await pid;
      expect(alive(childPid)).toBe(true);
      worker.child.kill('SIGKILL');
      await worker.exited;
      await gone(childPid, 5_000);
    },
  );

  it("--pool prefork: what a child's task started is gone too (it is in the child's process group)", async () => {
    const { fixture, workers } = e2e();
    const worker = workers.start(['-c', '1', '--pool', 'prefork']);
    await worker.ready();
    const client = fixture.app();
    const id = randomUUID();
    const pids = new Promise<{ pid: number; grandchild: number }>((resolve) => {
      const stop = client.backend.onChange?.(id, (record) => {
        const meta = record.meta as { pid?: number; grandchild?: number } | undefined;
        if (record.state === 'PROGRESS' && meta?.pid && meta.grandchild)
          resolve({ pid: meta.pid, grandchild: meta.grandchild });
      });
      void stop?.ready.then(() => {
        client.sendTask('e2e.spinWithGrandchild', [], { taskId: id });
      });
    });
    const { pid, grandchild } = await pids;
    expect(alive(grandchild)).toBe(true);
    worker.child.kill('SIGKILL');
    await worker.exited;
    await gone(pid, 5_000);
    await gone(grandchild, 5_000);
  });
});
