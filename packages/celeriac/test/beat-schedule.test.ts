/** `app.schedule()` and `app.beat.add()` check entries up front and name the entry in every error. */
import { Celeriac, CeleriacError, crontab, every, type ScheduleEntry } from 'celeriac';
import { useApp } from './support/app';

/** The error `run` throws, for its code and message. */
function errorOf(run: () => unknown): CeleriacError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CeleriacError);
    return error as CeleriacError;
  }
  throw new Error('expected an error');
}

describe('app.schedule', () => {
  const fixture = useApp({ broker: 'memory://' });

  it('accepts the documented forms', () => {
    const { app } = fixture;
    const cleanup = app.task('cleanup', () => undefined);
    const poll = app.task('poll', (feed: string, limit?: number) => `${feed}:${limit ?? 0}`);
    app.schedule('cleanup', { task: cleanup, schedule: crontab('0 3 * * *', { tz: 'Asia/Shanghai' }) });
    app.schedule('poll', { task: poll, schedule: every('30s'), args: ['feed'] });
    app.schedule('report', {
      task: 'reports.build',
      schedule: new Date('2030-01-01T00:00:00Z'),
      options: { queue: 'reports', expires: '1h' },
      catchUp: 'skip',
    });
    expect(app.beat.entriesInCode().map((entry) => [entry.name, entry.task, String(entry.schedule)])).toEqual([
      ['cleanup', 'cleanup', 'cron "0 3 * * *" (Asia/Shanghai)'],
      ['poll', 'poll', 'every 30s'],
      ['report', 'reports.build', 'at 2030-01-01T00:00:00.000Z'],
    ]);
  });

  it('type-checks the arguments against the task', () => {
    const { app } = fixture;
    const poll = app.task('poll', (feed: string) => feed);
    // @ts-expect-error a number is not the feed name
    const wrong: ScheduleEntry<[string]> = { task: poll, schedule: every('1m'), args: [42] };
    expect(wrong.args).toEqual([42]);
  });

  it.each([
    [
      'a bad cron expression',
      { schedule: crontab('0 25 * * *') },
      /Schedule entry "nightly": Invalid cron expression "0 25 \* \* \*"/,
    ],
    [
      'a cron expression with 7 fields',
      { schedule: crontab('0 0 3 * * * 2030') },
      /Schedule entry "nightly": Invalid cron expression .* has 7 fields/,
    ],
    [
      'an unknown time zone',
      { schedule: crontab('0 3 * * *', { tz: 'Asia/Atlantis' }) },
      /Schedule entry "nightly": Unknown time zone "Asia\/Atlantis"/,
    ],
    [
      'a zero interval',
      { schedule: every(0) },
      /Schedule entry "nightly": every\(\) needs an interval of at least 100 ms/,
    ],
    [
      'an interval under 100 ms',
      { schedule: every('1ms') },
      /Schedule entry "nightly": every\(\) needs an interval of at least 100 ms/,
    ],
    [
      'a cron string without crontab()',
      { schedule: '0 3 * * *' },
      /Schedule entry "nightly": Its schedule must be crontab/,
    ],
    [
      'an option beat sets itself',
      { schedule: every('1m'), options: { taskId: 'x' } },
      /Schedule entry "nightly": option "taskId" is not allowed/,
    ],
    [
      'an invalid priority',
      { schedule: every('1m'), options: { priority: 900 } },
      /Schedule entry "nightly": .*priority/i,
    ],
    [
      'arguments that cannot be sent',
      { schedule: every('1m'), args: [() => 1] },
      /Schedule entry "nightly": .*serialize/i,
    ],
    [
      'an unknown catch-up policy',
      { schedule: every('1m'), catchUp: 'twice' },
      /Schedule entry "nightly": catchUp must be/,
    ],
  ])('refuses %s with CELERIAC_INVALID_SCHEDULE, naming the entry', (_what, fields, message) => {
    const { app } = fixture;
    const error = errorOf(() => app.schedule('nightly', { task: 'tick', ...(fields as object) } as ScheduleEntry));
    expect(error.code).toBe('CELERIAC_INVALID_SCHEDULE');
    expect(error.message).toMatch(message);
    expect(app.beat.entriesInCode()).toEqual([]);
  });

  it('refuses a second entry of the same name, and a runtime entry taking it', async () => {
    const { app } = fixture;
    app.schedule('nightly', { task: 'tick', schedule: every('1d') });
    expect(errorOf(() => app.schedule('nightly', { task: 'tick', schedule: every('1h') })).message).toMatch(
      /Schedule entry "nightly": an entry with this name is already scheduled/,
    );
    await expect(app.beat.add('nightly', { task: 'tick', schedule: every('1h') })).rejects.toMatchObject({
      code: 'CELERIAC_INVALID_SCHEDULE',
    });
  });

  it('needs the broker as a URL for the beat store', async () => {
    const { app } = fixture;
    const withObject = new Celeriac({ broker: app.broker });
    expect(() => withObject.beat.store).toThrow(/give the broker as a URL/);
    await withObject.close();
  });
});
