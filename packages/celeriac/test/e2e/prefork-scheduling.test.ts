import { RedisFixture } from '../../../redis/test/support/redis-app';
import { WorkerProcesses } from './support/worker-process';

describe('celeriac worker: prefork scheduling', () => {
  let fixture: RedisFixture;
  let workers: WorkerProcesses;
  beforeEach(() => {
    fixture = new RedisFixture('e2e-prefork');
    workers = new WorkerProcesses(fixture.prefix);
  });
  afterEach(async () => {
    await workers.stopAll();
    await fixture.cleanup();
  });

  it('spreads a burst over the children instead of queueing it on one', async () => {
    const worker = workers.start(['-c', '2', '--pool', 'prefork']);
    await worker.ready();
    const client = fixture.app();
    const pids = await Promise.all([1, 2, 3, 4].map(() => client.sendTask<number>('e2e.sleep', [200]).get({ timeout: 20_000 })));
    expect(new Set(pids).size).toBe(2);
  });

  it('gives a child no more than --max-tasks-per-child tasks, also under steady load', async () => {
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
