import { currentTask, TaskRevokedError } from 'celeriac';
import { useApp } from './support/app';
import { itWhere } from './support/declared';

describe('applyAsync scheduling options', () => {
  const t = useApp();

  /** A task that reports when it ran. */
  function clock() {
    return t.app.task('clock', () => Date.now());
  }

  itWhere('uniqueIds', (c) => c.uniqueIds)(
    'taskId: the result carries the chosen id, and sending it again while it waits runs it once',
    async () => {
      let runs = 0;
      const once = t.app.task('once', () => ++runs);
      const first = once.applyAsync([], { taskId: 'report-2024' });
      const again = once.applyAsync([], { taskId: 'report-2024' });
      expect(first.id).toBe('report-2024');
      await Promise.all([first.sent, again.sent]);
      await t.startWorker();
      await expect(first).resolves.toBe(1);
      await expect(again).resolves.toBe(1);
      expect(runs).toBe(1);
    },
  );

  it('countdown: runs no sooner than the given duration from now', async () => {
    const ranAt = clock();
    await t.startWorker();
    const before = Date.now();
    const result = ranAt.applyAsync([], { countdown: '150ms' });
    await result.sent;
    expect(await result.state()).toBe('PENDING');
    expect(await result).toBeGreaterThanOrEqual(before + 150);
  });

  it.each([
    ['a Date', (at: number) => new Date(at)],
    ['epoch ms', (at: number) => at],
    ['an ISO string', (at: number) => new Date(at).toISOString()],
  ])('eta as %s: runs no sooner than that time', async (_, eta) => {
    const ranAt = clock();
    await t.startWorker();
    const at = Date.now() + 120;
    await expect(ranAt.applyAsync([], { eta: eta(at) })).resolves.toBeGreaterThanOrEqual(at);
  });

  it('refuses countdown with eta, and malformed durations and dates, synchronously', () => {
    const ranAt = clock();
    expect(() => ranAt.applyAsync([], { countdown: 10, eta: Date.now() })).toThrow(
      expect.objectContaining({ code: 'CELERIAC_INVALID_OPTION' }),
    );
    expect(() => ranAt.applyAsync([], { countdown: '10 parsecs' as never })).toThrow(
      expect.objectContaining({ code: 'CELERIAC_INVALID_DURATION', message: expect.stringContaining('countdown') }),
    );
    expect(() => ranAt.applyAsync([], { eta: 'not a date' })).toThrow(
      expect.objectContaining({ code: 'CELERIAC_INVALID_OPTION', message: expect.stringContaining('eta') }),
    );
    expect(() => ranAt.applyAsync([], { expires: new Date(Number.NaN) })).toThrow(
      expect.objectContaining({ code: 'CELERIAC_INVALID_OPTION' }),
    );
  });

  it('expires: a task that comes due after it expired is REVOKED (reason expired) and does not run', async () => {
    let runs = 0;
    const late = t.app.task('late', () => ++runs);
    await t.startWorker();
    const result = late.applyAsync([], { countdown: 100, expires: 20 });
    const error = await result.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(TaskRevokedError);
    expect(error).toMatchObject({ code: 'CELERIAC_TASK_REVOKED', reason: 'expired', taskId: result.id });
    expect(await result.state()).toBe('REVOKED');
    expect(await result.info()).toEqual({ reason: 'expired' });
    expect(runs).toBe(0);
  });

  it('expires: a Date in the past revokes at once, a later one lets the task run', async () => {
    const ranAt = clock();
    await t.startWorker();
    await expect(ranAt.applyAsync([], { expires: new Date(Date.now() - 1) })).rejects.toMatchObject({
      reason: 'expired',
    });
    await expect(ranAt.applyAsync([], { expires: '1h' })).resolves.toEqual(expect.any(Number));
  });

  itWhere('priorities', (c) => c.priorities === 'higher-first')(
    'priority: higher priorities run first within a queue; the call overrides the task option',
    async () => {
      const order: string[] = [];
      const log = t.app.task('log', (label: string) => void order.push(label), { priority: 7 });
      const results = [
        log.applyAsync(['p0'], { priority: 0 }),
        log.applyAsync(['p9'], { priority: 9 }),
        log.applyAsync(['task default 7']),
        log.applyAsync(['p5'], { priority: 5 }),
        log.applyAsync(['p255'], { priority: 255 }),
      ];
      await Promise.all(results.map((result) => result.sent));
      await t.startWorker({ concurrency: 1 });
      await Promise.all(results);
      expect(order).toEqual(['p255', 'p9', 'task default 7', 'p5', 'p0']);
    },
  );

  it('refuses a priority outside 0–255 and a malformed task id', () => {
    const ranAt = clock();
    for (const priority of [-1, 256, 1.5]) {
      expect(() => ranAt.applyAsync([], { priority })).toThrow(
        expect.objectContaining({ code: 'CELERIAC_INVALID_OPTION', message: expect.stringContaining('priority') }),
      );
    }
    expect(() => ranAt.applyAsync([], { taskId: '' })).toThrow(
      expect.objectContaining({ code: 'CELERIAC_INVALID_OPTION', message: expect.stringContaining('taskId') }),
    );
  });

  it('a task sees its own id in currentTask()', async () => {
    const whoAmI = t.app.task('who', () => currentTask().id);
    await t.startWorker();
    await expect(whoAmI.applyAsync([], { taskId: 'me' })).resolves.toBe('me');
  });
});
