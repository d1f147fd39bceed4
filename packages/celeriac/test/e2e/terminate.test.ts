import { randomUUID } from 'node:crypto';
import type { RevokeOptions } from 'celeriac';
import { useE2e } from './support/worker-process';

describe('celeriac worker: revoke with terminate', () => {
  const e2e = useE2e('e2e-terminate');

  it.each([
    ['prefork', {}],
    ['fork', {}],
    ['prefork', { signal: 'SIGKILL', grace: 0 }],
  ] as Array<[string, RevokeOptions]>)(
    '--pool %s %j: kills the child of a task that never yields; it ends REVOKED, the child is replaced and the next ' +
      'task runs',
    async (pool, options) => {
      const { fixture, workers } = e2e();
      const worker = workers.start(['-c', '1', '--pool', pool]);
      await worker.ready();
      const client = fixture.app();
      // Listen before sending: the task reports its child's pid as progress, then spins forever.
      const id = randomUUID();
      let reportPid!: (pid: number) => void;
      const childPid = new Promise<number>((resolve) => (reportPid = resolve));
      const stop = client.backend.onChange?.(id, (record) => {
        if (record.state === 'PROGRESS') reportPid((record.meta as { pid: number }).pid);
      });
      await stop?.ready;
      const spinning = client.sendTask('e2e.spinWithPid', [], { taskId: id });
      const pid = await childPid;
      stop?.();
      await client.revoke(id, { terminate: true, ...options });
      await expect(spinning.get({ timeout: 20_000 })).rejects.toMatchObject({
        code: 'CELERIAC_TASK_REVOKED',
        reason: 'terminated',
      });
      const next = await client.sendTask<number>('e2e.pid', []).get({ timeout: 20_000 });
      expect(next).not.toBe(pid);
      expect(() => process.kill(pid, 0)).toThrow();
      // Settled as revoked, not a lost delivery: it is neither redelivered nor retried.
      const states = worker.lines.filter((line) => line.id === id).map((line) => line.state);
      expect(states.filter((state) => state === 'STARTED')).toHaveLength(1);
      expect(states).not.toContain('REDELIVERED');
      expect(states).not.toContain('RETRY');
    },
  );
});
