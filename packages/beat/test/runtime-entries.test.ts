/** Entries added, changed and removed at run time reach a running scheduler at once, through the store. */
import { decodeMessage, runtimeOf } from '@celeriac/core/internal';
import { CeleriacError } from '@celeriac/core';
import { crontab, every } from '@celeriac/beat';
import { t, times, useFakeBeat } from './support/fake-beat';

describe('runtime entries', () => {
  const fixture = useFakeBeat('2024-05-01T10:00:30Z');

  it('add wakes a leading scheduler, which fires the entry from its next slot, with args; remove ends it', async () => {
    const { beat, start, advance, fired, app } = fixture();
    const scheduler = await start();
    expect(scheduler.entries()).toEqual([]);
    await beat.add('poll', {
      task: 'tick',
      schedule: every('10s'),
      args: ['feed', { since: new Date(0) }],
      options: { queue: 'polls' },
    });
    await advance(0);
    expect(scheduler.entries()).toEqual([
      { name: 'poll', task: 'tick', source: 'runtime', next: t('2024-05-01T10:00:40Z') },
    ]);
    await advance(20_000);
    expect(times(fired)).toEqual(['10:00:40', '10:00:50']);
    const [delivery] = await app.broker.reserve(['polls'], 1);
    const message = decodeMessage(runtimeOf(app).codec, delivery!.body, {});
    expect(message.args).toEqual(['feed', { since: new Date(0) }]);
    expect(await beat.remove('poll')).toBe(true);
    await advance(30_000);
    expect(times(fired)).toEqual(['10:00:40', '10:00:50']);
    expect(scheduler.entries()).toEqual([]);
    expect(await beat.remove('poll')).toBe(false);
  });

  it('a changed schedule starts over from the change; changed arguments keep the entry on its slots', async () => {
    const { beat, start, advance, fired } = fixture();
    await start();
    await beat.add('poll', { task: 'tick', schedule: every('1m'), args: [1] });
    await advance(30_000); // 10:01:00 fires
    await beat.add('poll', { task: 'tick', schedule: every('1m'), args: [2] });
    await advance(60_000); // 10:02:00 fires once, with the new arguments
    await beat.add('poll', { task: 'tick', schedule: crontab('*/5 * * * *') });
    await advance(180_000); // next slot of the new schedule: 10:05:00
    expect(times(fired)).toEqual(['10:01:00', '10:02:00', '10:05:00']);
  });

  it('an entry added while no scheduler leads is fired by the next leader from when it was added', async () => {
    const { beat, start, advance, fired } = fixture();
    await beat.add('soon', { task: 'tick', schedule: new Date('2024-05-01T10:00:31Z') });
    await advance(5_000);
    await start();
    await advance(0);
    expect(times(fired)).toEqual(['10:00:31']); // once, caught up: it was due after it was added
  });

  it('runtime entries are checked like entries in code, and may not take a code entry`s name', async () => {
    const { beat } = fixture();
    beat.define('nightly', { task: 'tick', schedule: crontab('0 3 * * *') });
    await expect(beat.add('nightly', { task: 'tick', schedule: every('1m') })).rejects.toThrow(
      /Schedule entry "nightly": an entry with this name is defined in code/,
    );
    await expect(beat.add('bad', { task: 'tick', schedule: crontab('0 25 * * *') })).rejects.toMatchObject({
      code: 'CELERIAC_INVALID_SCHEDULE',
      message: expect.stringContaining('Schedule entry "bad": Invalid cron expression'),
    });
    await expect(beat.remove('nightly')).rejects.toBeInstanceOf(CeleriacError);
  });

  it('list shows entries in code and at run time with their last and next slots', async () => {
    const { beat, start, advance } = fixture();
    beat.define('nightly', { task: 'tick', schedule: crontab('0 3 * * *', { tz: 'Asia/Shanghai' }), args: [1] });
    await beat.add('poll', { task: 'tick', schedule: every('30s'), catchUp: 'skip', options: { priority: 2 } });
    await start();
    await advance(30_000);
    expect(await beat.list()).toEqual([
      {
        name: 'nightly',
        task: 'tick',
        schedule: { kind: 'crontab', expression: '0 3 * * *', tz: 'Asia/Shanghai' },
        description: 'cron "0 3 * * *" (Asia/Shanghai)',
        args: [1],
        options: {},
        catchUp: 'once',
        source: 'code',
        lastFired: t('2024-05-01T10:00:30Z'), // where it started: no slot fired yet
        next: t('2024-05-01T19:00:00Z'),
      },
      {
        name: 'poll',
        task: 'tick',
        schedule: { kind: 'every', every: 30_000 },
        description: 'every 30s',
        args: [],
        options: { priority: 2 },
        catchUp: 'skip',
        source: 'runtime',
        lastFired: t('2024-05-01T10:01:00Z'),
        next: t('2024-05-01T10:01:30Z'),
      },
    ]);
  });
});
