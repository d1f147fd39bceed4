import { CeleriacError } from '@celeriac/core';
import { crontab } from '@celeriac/beat';

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
const t = (text: string) => Date.parse(text);

/** The next `count` slots after `from`, each found from the one before (as the scheduler walks). */
function walk(schedule: ReturnType<typeof crontab>, from: string, count: number): Array<string | undefined> {
  const slots: Array<string | undefined> = [];
  let cursor = t(from);
  for (let i = 0; i < count; i += 1) {
    const next = schedule.next(cursor);
    slots.push(iso(next));
    if (next === undefined) break;
    cursor = next;
  }
  return slots;
}

describe('crontab', () => {
  it('reads five fields in UTC by default, and six with seconds first', () => {
    expect(walk(crontab('*/15 * * * *'), '2024-05-01T10:07:30Z', 3)).toEqual([
      '2024-05-01T10:15:00.000Z',
      '2024-05-01T10:30:00.000Z',
      '2024-05-01T10:45:00.000Z',
    ]);
    expect(walk(crontab('*/20 * * * * *'), '2024-05-01T10:00:00Z', 3)).toEqual([
      '2024-05-01T10:00:20.000Z',
      '2024-05-01T10:00:40.000Z',
      '2024-05-01T10:01:00.000Z',
    ]);
    expect(walk(crontab('@daily'), '2024-05-01T10:00:00Z', 1)).toEqual(['2024-05-02T00:00:00.000Z']);
  });

  it('reads the fields in the given time zone', () => {
    // 03:00 in Shanghai (UTC+8, no DST) is 19:00 UTC the day before.
    expect(walk(crontab('0 3 * * *', { tz: 'Asia/Shanghai' }), '2024-05-01T12:00:00Z', 2)).toEqual([
      '2024-05-01T19:00:00.000Z',
      '2024-05-02T19:00:00.000Z',
    ]);
    expect(crontab('0 3 * * *', { tz: 'Asia/Shanghai' }).toString()).toBe('cron "0 3 * * *" (Asia/Shanghai)');
  });

  it('next is strictly after the given time', () => {
    const schedule = crontab('0 * * * *');
    expect(iso(schedule.next(t('2024-05-01T10:00:00Z')))).toBe('2024-05-01T11:00:00.000Z');
    expect(iso(schedule.next(t('2024-05-01T09:59:59.999Z')))).toBe('2024-05-01T10:00:00.000Z');
  });

  describe('daylight saving time (America/New_York)', () => {
    const tz = 'America/New_York';

    it('a daily time that spring-forward skips fires once, right after the change', () => {
      // 2024-03-10: 02:00 EST jumps to 03:00 EDT; 02:30 does not exist that day.
      expect(walk(crontab('30 2 * * *', { tz }), '2024-03-09T12:00:00Z', 3)).toEqual([
        '2024-03-10T07:30:00.000Z', // 03:30 EDT
        '2024-03-11T06:30:00.000Z', // 02:30 EDT
        '2024-03-12T06:30:00.000Z',
      ]);
    });

    it('a daily time that fall-back repeats fires once, at its first occurrence', () => {
      // 2024-11-03: 02:00 EDT falls back to 01:00 EST; 01:30 happens twice.
      expect(walk(crontab('30 1 * * *', { tz }), '2024-11-02T12:00:00Z', 3)).toEqual([
        '2024-11-03T05:30:00.000Z', // 01:30 EDT
        '2024-11-04T06:30:00.000Z', // 01:30 EST the next day
        '2024-11-05T06:30:00.000Z',
      ]);
    });

    it('an hourly schedule keeps firing every real hour through both changes', () => {
      expect(walk(crontab('0 * * * *', { tz }), '2024-11-03T04:30:00Z', 4)).toEqual([
        '2024-11-03T05:00:00.000Z', // 01:00 EDT
        '2024-11-03T06:00:00.000Z', // 01:00 EST
        '2024-11-03T07:00:00.000Z',
        '2024-11-03T08:00:00.000Z',
      ]);
      expect(walk(crontab('0 * * * *', { tz }), '2024-03-10T06:30:00Z', 2)).toEqual([
        '2024-03-10T07:00:00.000Z',
        '2024-03-10T08:00:00.000Z',
      ]);
    });
  });

  describe('slotsBetween', () => {
    it('lists the slots of a range, the latest `limit` of them, and counts the rest', () => {
      const schedule = crontab('*/10 * * * *');
      expect(schedule.slotsBetween(t('2024-05-01T10:00:00Z'), t('2024-05-01T10:30:00Z'), 100)).toEqual({
        slots: [t('2024-05-01T10:10:00Z'), t('2024-05-01T10:20:00Z'), t('2024-05-01T10:30:00Z')],
        dropped: 0,
      });
      expect(schedule.slotsBetween(t('2024-05-01T10:00:00Z'), t('2024-05-01T10:35:00Z'), 2)).toEqual({
        slots: [t('2024-05-01T10:20:00Z'), t('2024-05-01T10:30:00Z')],
        dropped: 1,
      });
      expect(schedule.slotsBetween(t('2024-05-01T10:00:00Z'), t('2024-05-01T10:09:59Z'), 5)).toEqual({
        slots: [],
        dropped: 0,
      });
    });

    it('after a long outage, returns the last `limit` slots without walking all of them', () => {
      const schedule = crontab('* * * * * *'); // every second, for a year
      const range = schedule.slotsBetween(t('2023-05-01T00:00:00Z'), t('2024-05-01T00:00:00Z'), 3);
      expect(range).toEqual({
        slots: [t('2024-04-30T23:59:58Z'), t('2024-04-30T23:59:59Z'), t('2024-05-01T00:00:00Z')],
        dropped: 'many',
      });
    });
  });

  describe('invalid schedules', () => {
    const codeOf = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        expect(error).toBeInstanceOf(CeleriacError);
        return [(error as CeleriacError).code, (error as Error).message];
      }
      throw new Error('expected an error');
    };

    it.each([
      ['61 3 * * *', /Invalid cron expression "61 3 \* \* \*"/],
      ['not a cron', /Invalid cron expression/],
      ['* * * *', /it has 4 fields; use 5/],
      ['0 0 0 1 1 * 2030', /it has 7 fields/],
      ['', /needs a cron expression/],
      ['0 0 30 2 *', /Invalid cron expression "0 0 30 2 \*"/],
    ])('%j is refused when validated, with CELERIAC_INVALID_SCHEDULE', (expression, message) => {
      const schedule = crontab(expression);
      const [code, text] = codeOf(() => schedule.validate());
      expect(code).toBe('CELERIAC_INVALID_SCHEDULE');
      expect(text).toMatch(message);
    });

    it('an unknown time zone is refused, naming it', () => {
      const [code, text] = codeOf(() => crontab('0 3 * * *', { tz: 'Mars/Olympus' }).validate());
      expect(code).toBe('CELERIAC_INVALID_SCHEDULE');
      expect(text).toContain('Unknown time zone "Mars/Olympus"');
    });
  });
});
