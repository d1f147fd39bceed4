/** The scheduler on a fake clock: slots fire at their due time, once, with ids made of entry and slot. */
import type { BeatStore } from '@celeriac/core';
import { crontab, every } from '@celeriac/beat';
import { t, useFakeBeat } from './support/fake-beat';

describe('scheduler: firing', () => {
  const fixture = useFakeBeat('2024-05-01T10:00:30Z');

  it('fires each slot at its due time, with the id beat:<entry>:<slot>, the arguments and the options', async () => {
    const { beat, start, advance, fired, queuedIds, clock } = fixture();
    beat.define('poll', { task: 'tick', schedule: every('1m'), args: ['feed'], options: { priority: 7 } });
    const scheduler = await start();
    expect(scheduler.state).toBe('leading');
    expect(scheduler.entries()).toEqual([
      { name: 'poll', task: 'tick', source: 'code', next: t('2024-05-01T10:01:00Z') },
    ]);
    await advance(29_999);
    expect(fired).toEqual([]);
    await advance(1);
    expect(fired).toEqual([
      {
        entry: 'poll',
        task: 'tick',
        slot: t('2024-05-01T10:01:00Z'),
        id: `beat:poll:${t('2024-05-01T10:01:00Z')}`,
        late: 0,
      },
    ]);
    expect(clock.now()).toBe(t('2024-05-01T10:01:00Z'));
    await advance(120_000);
    expect(fired.map((slot) => new Date(slot.slot).toISOString())).toEqual([
      '2024-05-01T10:01:00.000Z',
      '2024-05-01T10:02:00.000Z',
      '2024-05-01T10:03:00.000Z',
    ]);
    expect(await queuedIds()).toEqual(fired.map((slot) => slot.id).sort());
    const [delivery] = await fixture().app.broker.reserve(['default'], 1);
    expect(delivery).toBeUndefined();
  });

  it('fires entries on their own schedules from one timer, and an entry in another queue there', async () => {
    const { beat, start, advance, fired, queuedIds } = fixture();
    beat.define('fast', { task: 'tick', schedule: every('20s') });
    beat.define('slow', { task: 'tick', schedule: crontab('*/1 * * * *'), options: { queue: 'reports' } });
    await start();
    await advance(60_000);
    expect(fired.map((slot) => `${slot.entry}@${new Date(slot.slot).toISOString().slice(14, 19)}`)).toEqual([
      'fast@00:40',
      'fast@01:00',
      'slow@01:00',
      'fast@01:20',
    ]);
    expect(await queuedIds('reports')).toEqual([`beat:slow:${t('2024-05-01T10:01:00Z')}`]);
  });

  it('sleeps between firings: the store hears only lease renewals and one claim per slot', async () => {
    const { beat, start, advance, fired, store } = fixture();
    beat.define('minutely', { task: 'tick', schedule: every('1m') });
    const calls: string[] = [];
    const counting = new Proxy(store, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          calls.push(String(property));
          return (value as (...params: unknown[]) => unknown).apply(target, args);
        };
      },
    }) as BeatStore;
    await start({ store: counting, lease: '10s' });
    calls.length = 0;
    await advance(120_000);
    expect(fired).toHaveLength(2);
    const counts = calls.reduce<Record<string, number>>((all, call) => ({ ...all, [call]: (all[call] ?? 0) + 1 }), {});
    // 120 s at one renewal every 3.333 s; nothing else between the two claims (each settled once sent).
    expect(counts).toEqual({ acquireLease: 36, claimSlot: 2, settleClaim: 2 });
  });

  it('fires a one-off date once and then nothing', async () => {
    const { beat, start, advance, fired } = fixture();
    beat.define('launch', { task: 'tick', schedule: new Date('2024-05-01T10:05:00Z') });
    const scheduler = await start({ lease: '1h' });
    await advance(3_600_000);
    expect(fired.map((slot) => slot.slot)).toEqual([t('2024-05-01T10:05:00Z')]);
    expect(scheduler.entries()[0]?.next).toBeUndefined();
  });
});

describe('scheduler: crontab in a time zone across DST changes, on a fake clock', () => {
  const spring = useFakeBeat('2024-03-09T12:00:00Z');

  it('a local time that spring-forward skips fires once, right after the change', async () => {
    const { beat, start, advanceTo, fired } = spring();
    beat.define('night', { task: 'tick', schedule: crontab('30 2 * * *', { tz: 'America/New_York' }) });
    await start({ lease: '1h' });
    await advanceTo('2024-03-12T12:00:00Z');
    // 02:30 does not exist on 2024-03-10 in New York: it fires at 03:30 EDT (07:30 UTC).
    expect(fired.map((slot) => new Date(slot.slot).toISOString())).toEqual([
      '2024-03-10T07:30:00.000Z',
      '2024-03-11T06:30:00.000Z',
      '2024-03-12T06:30:00.000Z',
    ]);
    expect(fired.map((slot) => slot.late)).toEqual([0, 0, 0]);
  });
});

describe('scheduler: crontab across the fall-back change, on a fake clock', () => {
  const autumn = useFakeBeat('2024-11-02T12:00:00Z');

  it('a local time that fall-back repeats fires once; an hourly entry fires every real hour', async () => {
    const { beat, start, advanceTo, fired } = autumn();
    beat.define('night', { task: 'tick', schedule: crontab('30 1 * * *', { tz: 'America/New_York' }) });
    beat.define('hourly', { task: 'tick', schedule: crontab('0 * * * *', { tz: 'America/New_York' }) });
    await start({ lease: '1h' });
    await advanceTo('2024-11-04T12:00:00Z');
    const slots = (entry: string) =>
      fired.filter((slot) => slot.entry === entry).map((slot) => new Date(slot.slot).toISOString());
    // 01:30 happens twice on 2024-11-03 (EDT, then EST): it fires at the first.
    expect(slots('night')).toEqual(['2024-11-03T05:30:00.000Z', '2024-11-04T06:30:00.000Z']);
    // 48 real hours, 01:00 local included twice.
    expect(slots('hourly')).toHaveLength(48);
    expect(slots('hourly').slice(15, 19)).toEqual([
      '2024-11-03T04:00:00.000Z',
      '2024-11-03T05:00:00.000Z',
      '2024-11-03T06:00:00.000Z',
      '2024-11-03T07:00:00.000Z',
    ]);
  });
});
