import { chain, currentTask } from 'celeriac';
import { untilPast } from '@celeriac/core/testing';
import { useApp } from './support/app';

/** The shortest visibility timeout an app accepts, so these tests wait about a second each. */
const LEASE = 1_000;

describe('leases: a task is never lost and never run twice by live workers', () => {
  const t = useApp({ visibilityTimeout: LEASE });

  it('a task running longer than the visibility timeout keeps its lease and runs once', async () => {
    let runs = 0;
    const long = t.app.task('long', async () => {
      runs += 1;
      await untilPast(Date.now() + LEASE * 1.3);
      return currentTask().deliveries;
    });
    await t.startWorker();
    await expect(long.delay()).resolves.toBe(1);
    expect(runs).toBe(1);
  });

  it("a task whose worker died comes back on a live worker's lease sweep, with deliveries 2", async () => {
    const task = t.app.task('orphan', () => currentTask().deliveries);
    const result = task.delay();
    await result.sent;
    const [orphaned] = await t.app.broker.reserve(['default'], 1);
    expect(orphaned?.id).toBe(result.id);
    await t.startWorker();
    await expect(result).resolves.toBe(2);
  });
});

describe('leases: past maxDeliveries', () => {
  const t = useApp({ visibilityTimeout: LEASE, maxDeliveries: 1 });

  it('a task delivered maxDeliveries times is dead-lettered and fails with WorkerLostError', async () => {
    const task = t.app.task('cursed', () => 'never');
    const result = task.delay();
    await result.sent;
    await t.app.broker.reserve(['default'], 1);
    await t.startWorker();
    await expect(result).rejects.toMatchObject({
      remote: { name: 'WorkerLostError', code: 'CELERIAC_WORKER_LOST', message: expect.stringContaining(result.id) },
    });
    expect(await t.app.broker.listDead('default')).toEqual([expect.objectContaining({ id: result.id })]);
  });

  it('a dead-lettered chain step settles the rest of its chain (the chain result fails too)', async () => {
    const step = t.app.task('step', (value: number) => value + 1);
    const result = chain(step.s(1), step.s()).applyAsync();
    await result.sent;
    await t.app.broker.reserve(['default'], 1);
    await t.startWorker();
    await expect(result).rejects.toMatchObject({ remote: { name: 'WorkerLostError' } });
  });
});
