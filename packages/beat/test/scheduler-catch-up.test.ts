/** The scheduler across restarts and outages: the last fired slot is kept, and missed slots follow catchUp. */
import { runtimeOf } from '@celeriac/core/internal';
import { every } from '@celeriac/beat';
import { t, times, useFakeBeat } from './support/fake-beat';

describe('scheduler: restarts and catch-up', () => {
  const fixture = useFakeBeat('2024-05-01T10:00:30Z');

  it('a restart neither fires a slot again nor skips the next one', async () => {
    const { beat, start, advance, fired, queuedIds } = fixture();
    beat.define('poll', { task: 'tick', schedule: every('1m') });
    const first = await start();
    await advance(30_000);
    await first.close();
    await start();
    await advance(60_000);
    expect(times(fired)).toEqual(['10:01:00', '10:02:00']);
    expect(await queuedIds()).toEqual([
      `beat:poll:${t('2024-05-01T10:01:00Z')}`,
      `beat:poll:${t('2024-05-01T10:02:00Z')}`,
    ]);
  });

  it("after an outage 'skip' fires none of the missed slots, 'once' the latest, 'all' each", async () => {
    const { beat, start, advance, fired } = fixture();
    beat.define('skip', { task: 'tick', schedule: every('1m'), catchUp: 'skip' });
    beat.define('once', { task: 'tick', schedule: every('1m'), catchUp: 'once' });
    beat.define('all', { task: 'tick', schedule: every('1m'), catchUp: 'all' });
    const first = await start();
    await advance(30_000);
    expect(times(fired)).toEqual(['10:01:00', '10:01:00', '10:01:00']);
    await first.close();
    await advance(10 * 60_000); // no scheduler runs from 10:01:00 to 10:11:00, nor until 10:11:30
    await advance(30_000);
    fired.length = 0;
    await start();
    await advance(0);
    const of = (entry: string) => times(fired.filter((slot) => slot.entry === entry));
    expect(of('skip')).toEqual([]);
    expect(of('once')).toEqual(['10:11:00']);
    expect(of('all')).toEqual([
      '10:02:00',
      '10:03:00',
      '10:04:00',
      '10:05:00',
      '10:06:00',
      '10:07:00',
      '10:08:00',
      '10:09:00',
      '10:10:00',
      '10:11:00',
    ]);
    fired.length = 0;
    await advance(30_000);
    expect(times(fired)).toEqual(['10:12:00', '10:12:00', '10:12:00']);
  });

  it("'skip' still fires a slot that is at most one lease late, as after a hand-over", async () => {
    const { beat, start, advance, fired } = fixture();
    beat.define('skip', { task: 'tick', schedule: every('1m'), catchUp: 'skip' });
    const first = await start({ lease: '10s' });
    await advance(30_000);
    await first.close();
    await advance(62_000); // 10:01:00 fired; 10:02:00 is 2 s late when the next scheduler starts
    await start({ lease: '10s' });
    await advance(0);
    expect(times(fired)).toEqual(['10:01:00', '10:02:00']);
  });

  it("'all' fires at most the latest 100 missed slots", async () => {
    const { beat, start, advance, fired } = fixture();
    beat.define('burst', { task: 'tick', schedule: every('1s'), catchUp: 'all' });
    const first = await start();
    await advance(1_000); // fires 10:00:31
    await first.close();
    await advance(300_000);
    fired.length = 0;
    await start();
    await advance(0);
    expect(fired).toHaveLength(100);
    expect(times([fired[0]!, fired[99]!])).toEqual(['10:03:52', '10:05:31']);
  });

  it('a change of schedule in code starts the entry over instead of catching up', async () => {
    const { beat, start, advance, fired, app } = fixture();
    beat.define('report', { task: 'tick', schedule: every('1h') });
    const first = await start({ lease: '1h' });
    await advance(3_600_000); // fires 11:00:00
    await first.close();
    await advance(600_000);
    // A new deploy: the same entry, now every five minutes (another app object, as in a new process).
    const { Beat } = await import('@celeriac/beat');
    const redeployed = new Beat(app, () => fixture().store, { clock: fixture().clock });
    redeployed.define('report', { task: 'tick', schedule: every('5m') });
    const { Scheduler } = await import('@celeriac/beat');
    const second = new Scheduler(runtimeOf(app), fixture().store, () => redeployed.entriesInCode(), {
      lease: '1h',
      clock: fixture().clock,
    });
    second.on('fired', (slot) => fired.push(slot));
    fixture().schedulers.push(second);
    await second.start();
    await advance(0);
    expect(times(fired)).toEqual(['11:00:00']); // no catch-up firing for the old schedule's gap
    await advance(300_000);
    expect(times(fired)).toEqual(['11:00:00', '11:15:00']);
  });
});
