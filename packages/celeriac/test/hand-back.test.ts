import { deferred } from '@celeriac/core/testing';
import { useApp } from './support/app';
import { blocker } from './support/tasks';
import { itWhere } from './support/declared';

describe('tasks handed back at shutdown', () => {
  const t = useApp({ maxDeliveries: 2 });

  it('counts a running task handed back as a lost delivery; dead-letters it at maxDeliveries, no loop', async () => {
    let runs = 0;
    let began = deferred();
    // Ignores its signal and never ends: every shutdown must hand it back.
    const stubborn = t.app.task('stubborn', () => {
      runs += 1;
      began.resolve();
      return new Promise<never>(() => undefined);
    });
    const result = stubborn.delay();
    for (let round = 1; round <= 2; round += 1) {
      const worker = await t.startWorker({ shutdownTimeout: 20 });
      await began.promise;
      began = deferred();
      await worker.close();
    }
    await expect(result).rejects.toMatchObject({
      remote: { name: 'WorkerLostError', message: expect.stringContaining('still running when its worker shut down') },
    });
    expect(await t.app.broker.stats('default')).toMatchObject({ ready: 0, delayed: 0, active: 0, dead: 1 });
    const [dead] = await t.app.broker.listDead('default');
    expect(dead).toMatchObject({
      id: result.id,
      reason: expect.stringContaining('still running when its worker shut down'),
    });
    expect(runs).toBe(2);
  });

  itWhere('priorities', (c) => c.priorities === 'higher-first')(
    'does not count a hand-back of a task that had not begun',
    async () => {
      const waiting = t.app.task('waiting', () => 'ran');
      const result = waiting.delay();
      await result.sent;
      // More shutdowns than maxDeliveries, each with the task reserved behind a running one (which
      // goes first by priority, and is reserved with it in one call) and handed back unstarted.
      for (let round = 1; round <= 3; round += 1) {
        const occupant = blocker<string>();
        const occupy = t.app.task(`occupy${round}`, occupant.fn);
        const busy = occupy.applyAsync([], { priority: 9 });
        await busy.sent;
        const worker = await t.startWorker({ concurrency: 1, prefetch: 1 });
        await occupant.started;
        expect(await t.app.broker.stats('default')).toMatchObject({ ready: 0, active: 2 });
        const closing = worker.close();
        occupant.release('done');
        await closing;
        await expect(busy).resolves.toBe('done');
        expect(await result.state()).toBe('PENDING');
      }
      await t.startWorker();
      await expect(result).resolves.toBe('ran');
    },
  );
});
