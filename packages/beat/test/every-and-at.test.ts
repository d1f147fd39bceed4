import { CeleriacError } from '@celeriac/core';
import { at, every, fingerprint, scheduleFromSpec, toSchedule } from '@celeriac/beat';

const t = (text: string) => Date.parse(text);

describe('every', () => {
  it('fires on slots aligned to the epoch, the same in every process', () => {
    const schedule = every('30s');
    expect(schedule.spec).toEqual({ kind: 'every', every: 30_000 });
    expect(schedule.next(t('2024-05-01T10:00:10Z'))).toBe(t('2024-05-01T10:00:30Z'));
    expect(schedule.next(t('2024-05-01T10:00:30Z'))).toBe(t('2024-05-01T10:01:00Z'));
    expect(every('1h').next(t('2024-05-01T10:20:00Z'))).toBe(t('2024-05-01T11:00:00Z'));
    expect(String(schedule)).toBe('every 30s');
  });

  it('aligns to an anchor when given one', () => {
    const schedule = every('10m', { anchor: new Date('2024-05-01T10:03:00Z') });
    expect(schedule.next(t('2024-05-01T10:05:00Z'))).toBe(t('2024-05-01T10:13:00Z'));
    expect(schedule.next(t('2024-05-01T09:55:00Z'))).toBe(t('2024-05-01T10:03:00Z'));
  });

  it('slotsBetween returns the latest `limit` slots of a range and counts the others', () => {
    const schedule = every(1_000);
    expect(schedule.slotsBetween(10_000, 13_000, 100)).toEqual({ slots: [11_000, 12_000, 13_000], dropped: 0 });
    expect(schedule.slotsBetween(10_000, 13_500, 2)).toEqual({ slots: [12_000, 13_000], dropped: 1 });
    expect(schedule.slotsBetween(10_000, 10_999, 5)).toEqual({ slots: [], dropped: 0 });
    // A year at one slot a second is counted, not walked.
    expect(schedule.slotsBetween(0, 365 * 86_400_000, 1)).toEqual({
      slots: [365 * 86_400_000],
      dropped: 365 * 86_400 - 1,
    });
  });

  it.each([[0], [-5], ['soon'], [1.5]])('refuses the interval %j when validated', (interval) => {
    expect(() => every(interval as never).validate()).toThrow(
      expect.objectContaining({ code: 'CELERIAC_INVALID_SCHEDULE' }),
    );
  });
});

describe('at', () => {
  it('has one slot', () => {
    const schedule = at('2024-05-01T10:00:00Z');
    expect(schedule.spec).toEqual({ kind: 'at', at: t('2024-05-01T10:00:00Z') });
    expect(schedule.next(t('2024-05-01T09:00:00Z'))).toBe(t('2024-05-01T10:00:00Z'));
    expect(schedule.next(t('2024-05-01T10:00:00Z'))).toBeUndefined();
    expect(schedule.slotsBetween(0, t('2024-05-02T00:00:00Z'), 10)).toEqual({
      slots: [t('2024-05-01T10:00:00Z')],
      dropped: 0,
    });
    expect(schedule.slotsBetween(t('2024-05-01T10:00:00Z'), t('2024-05-02T00:00:00Z'), 10)).toEqual({
      slots: [],
      dropped: 0,
    });
  });

  it('refuses an invalid date', () => {
    expect(() => at('next tuesday').validate()).toThrow(CeleriacError);
  });
});

describe('schedules as data', () => {
  it('every schedule rebuilds from its spec, with the same fingerprint', () => {
    for (const schedule of [every('5m'), every('1s', { anchor: 500 }), at(1_700_000_000_000)]) {
      const rebuilt = scheduleFromSpec(JSON.parse(JSON.stringify(schedule.spec)));
      expect(rebuilt.spec).toEqual(schedule.spec);
      expect(fingerprint(rebuilt.spec)).toBe(fingerprint(schedule.spec));
    }
    expect(
      scheduleFromSpec({ kind: 'crontab', expression: '0 3 * * *', tz: 'Asia/Shanghai' }).next(
        t('2024-05-01T12:00:00Z'),
      ),
    ).toBe(t('2024-05-01T19:00:00Z'));
  });

  it('fingerprints differ when the schedule differs', () => {
    expect(fingerprint(every('1m').spec)).not.toBe(fingerprint(every('2m').spec));
    expect(fingerprint({ kind: 'crontab', expression: '0 3 * * *' })).not.toBe(
      fingerprint({ kind: 'crontab', expression: '0 3 * * *', tz: 'Asia/Shanghai' }),
    );
  });

  it('refuses data that is no schedule, and invalid schedules stored as data', () => {
    expect(() => scheduleFromSpec({ kind: 'weekly' } as never)).toThrow(/Not a schedule/);
    expect(() => scheduleFromSpec({ kind: 'crontab', expression: '99 * * * *' })).toThrow(/Invalid cron expression/);
  });

  it('a Date is a one-off schedule; anything else is refused', () => {
    expect(toSchedule(new Date(1_700_000_000_000)).spec).toEqual({ kind: 'at', at: 1_700_000_000_000 });
    expect(() => toSchedule('0 3 * * *' as never)).toThrow(/wrap a cron expression in crontab/);
  });
});
