/** app.purge(): removed tasks end REVOKED (reason `purged`), so nobody awaits them for ever; memory and Redis. */
import { chain, Celeriac, TaskRevokedError, type AsyncResult } from 'celeriac';
import { RedisFixture } from '@celeriac/test-support';

interface Transport {
  /** The app that sends and awaits. */
  sender(): Celeriac;
  /** The app that purges: another process's (an operator's) on Redis, the same one in memory. */
  purger(sender: Celeriac): Celeriac;
  close(): Promise<void>;
}

function memory(): Transport {
  const apps: Celeriac[] = [];
  return {
    sender: () => {
      const app = new Celeriac({ broker: 'memory://' });
      apps.push(app);
      return app;
    },
    purger: (sender) => sender,
    close: async () => void (await Promise.all(apps.map((app) => app.close()))),
  };
}

function redis(): Transport {
  const fixture = new RedisFixture('purge');
  return { sender: () => fixture.app(), purger: () => fixture.app(), close: () => fixture.cleanup() };
}

describe.each([
  ['memory', memory],
  ['redis', redis],
] as const)('app.purge() (%s)', (_name, transport) => {
  let t: Transport;
  beforeEach(() => (t = transport()));
  afterEach(() => t.close());

  /** Resolves with the TaskRevokedError the result rejects with (fails when it resolves). */
  const revocation = (result: AsyncResult<unknown>) =>
    result.then(
      () => Promise.reject(new Error(`${result.id} resolved`)),
      (error: unknown) => error,
    );

  it('records each removed task as REVOKED (purged): awaiting callers wake, a chain after it settles too', async () => {
    const sender = t.sender();
    const step = sender.task('purge.step', (value: number) => value + 1);
    const waiting = step.delay(1);
    const delayed = step.applyAsync([2], { countdown: '1h' });
    const workflow = chain(step.s(3), step.s()).applyAsync();
    const first = workflow.parent as AsyncResult<number>;
    await Promise.all([waiting.sent, delayed.sent, workflow.sent]);
    // Awaited without a timeout, before the purge: these waits must end.
    const outcomes = Promise.all([waiting, delayed, first, workflow].map(revocation));

    const purger = t.purger(sender);
    await expect(purger.purge('default')).resolves.toBe(3);
    const [onWaiting, onDelayed, onFirst, onWorkflow] = await outcomes;
    for (const [error, result] of [
      [onWaiting, waiting],
      [onDelayed, delayed],
      [onFirst, first],
    ] as const) {
      expect(error).toBeInstanceOf(TaskRevokedError);
      expect(error).toMatchObject({ taskId: result.id, reason: 'purged', code: 'CELERIAC_TASK_REVOKED' });
    }
    expect(onWorkflow).toMatchObject({ taskId: workflow.id, reason: `step ${first.id} purged` });
    await expect(waiting.state()).resolves.toBe('REVOKED');
    await expect(purger.broker.stats('default')).resolves.toMatchObject({ ready: 0, delayed: 0 });
    await expect(purger.purge('default')).resolves.toBe(0);
  });
});
