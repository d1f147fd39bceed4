import { useE2e } from './support/worker-process';

describe('celeriac worker: prefork scheduling', () => {
  const e2e = useE2e('e2e-prefork');

  it('spreads a burst over the children instead of queueing it on one', async () => {
    const { fixture, workers } = e2e();
    const worker = workers.start(['-c', '2', '--pool', 'prefork']);
    await worker.ready();
    const client = fixture.app();
    const pids = await Promise.all([1, 2, 3, 4].map(() => client.sendTask<number>('e2e.sleep', [200]).get({ timeout: 20_000 })));
    expect(new Set(pids).size).toBe(2);
  });

  it('gives a child no more than --max-tasks-per-child tasks, also under steady load', async () => {
    const { fixture, workers } = e2e();
    const worker = workers.start(['-c', '1', '--pool', 'prefork', '--max-tasks-per-child', '2']);
    await worker.ready();
    const client = fixture.app();
    const pids = await Promise.all(Array.from({ length: 8 }, () => client.sendTask<number>('e2e.sleep', [20]).get({ timeout: 20_000 })));
    const perChild = new Map<number, number>();
    for (const pid of pids) perChild.set(pid, (perChild.get(pid) ?? 0) + 1);
    expect(Math.max(...perChild.values())).toBeLessThanOrEqual(2);
    expect(perChild.size).toBeGreaterThanOrEqual(4);
  });
});
