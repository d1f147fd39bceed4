/**
 * Beat on Redis inside one process: runtime entries added and removed through the API reach a
 * running scheduler of another app at once; after an outage (on a fake clock) the missed slots
 * follow each entry's catch-up policy, with the slots kept in Redis; a new leader sends a slot its
 * predecessor claimed but never sent, and not one whose task finished.
 */
import { ManualClock, every, type Celeriac, type FiredSlot, type Scheduler } from 'celeriac';
import { deferred } from '@celeriac/core/testing';
import { KeySpace } from '@celeriac/redis/internal';
import { RedisFixture } from '@celeriac/test-support';

describe('beat on Redis', () => {
  let fixture: RedisFixture;
  beforeEach(() => {
    fixture = new RedisFixture('beat-redis');
  });
  afterEach(() => fixture.cleanup());

  /** The task ids waiting in a queue of the fixture's prefix. */
  const queued = (queue = 'default') =>
    fixture.redis().zrange(`${fixture.prefix}:{${fixture.prefix}:${queue}}:ready`, 0, -1);

  it('an entry added through the API of another app fires at once; removing it stops it', async () => {
    const schedulerApp = fixture.app();
    const webApp = fixture.app();
    const scheduler = schedulerApp.beat.scheduler({ lease: '2s' });
    await scheduler.start();
    expect(scheduler.state).toBe('leading');
    const firedTwice = deferred<FiredSlot[]>();
    const fired: FiredSlot[] = [];
    scheduler.on('fired', (slot) => {
      fired.push(slot);
      if (fired.length === 2) firedTwice.resolve(fired);
    });
    const changes: string[][] = [];
    const removed = deferred();
    scheduler.on('changed', (entries) => {
      changes.push(entries);
      if (entries.length === 0) removed.resolve();
    });

    await webApp.beat.add('poll', {
      task: 'feeds.poll',
      schedule: every('100ms'),
      args: ['news'],
      options: { queue: 'feeds' },
      catchUp: 'all', // a tick late under load fires the slot it missed too, so firings stay 100 ms apart
    });
    const [first, second] = await firedTwice.promise;
    expect(second!.slot - first!.slot).toBe(100);
    expect(first!.id).toBe(`beat:poll:${first!.slot}`);
    expect(await webApp.beat.remove('poll')).toBe(true);
    await removed.promise;
    expect(changes).toEqual([['poll'], []]);
    expect(scheduler.entries()).toEqual([]);
    const ids = await queued('feeds');
    expect(ids.length).toBe(fired.length);
    expect(new Set(ids)).toEqual(new Set(fired.map((slot) => slot.id)));
  });

  it("after an outage, 'skip', 'once' and 'all' entries catch up as they say, from slots kept in Redis", async () => {
    const clock = new ManualClock(Date.parse('2024-05-01T10:00:30Z'));
    const define = (app: Celeriac) => {
      app.schedule('skip', { task: 'tick', schedule: every('1m'), catchUp: 'skip' });
      app.schedule('once', { task: 'tick', schedule: every('1m'), catchUp: 'once' });
      app.schedule('all', { task: 'tick', schedule: every('1m'), catchUp: 'all' });
    };
    const run = async (app: Celeriac): Promise<Scheduler> => {
      define(app);
      const scheduler = app.beat.scheduler({ lease: '10s', clock }); // 'skip' fires a slot up to one lease late
      await scheduler.start();
      return scheduler;
    };
    const before = await run(fixture.app());
    await clock.advance(30_000, () => before.idle()); // 10:01:00 fires for each
    await before.close();
    await clock.advance(10 * 60_000 + 30_000); // nothing runs until 10:11:30
    const after = await run(fixture.app());
    await clock.advance(0, () => after.idle());
    const slotsOf = async (entry: string) =>
      (await queued())
        .filter((id) => id.startsWith(`beat:${entry}:`))
        .map((id) => new Date(Number(id.split(':')[2])).toISOString().slice(11, 16))
        .sort();
    expect(await slotsOf('skip')).toEqual(['10:01']);
    expect(await slotsOf('once')).toEqual(['10:01', '10:11']);
    expect(await slotsOf('all')).toEqual([
      '10:01',
      '10:02',
      '10:03',
      '10:04',
      '10:05',
      '10:06',
      '10:07',
      '10:08',
      '10:09',
      '10:10',
      '10:11',
    ]);
    await after.close();
  });

  it('a new leader sends the last claimed slot whose task left no record, not one whose task finished', async () => {
    const clock = new ManualClock(Date.parse('2024-05-01T10:00:30Z'));
    const run = async (app: Celeriac): Promise<Scheduler> => {
      app.schedule('lost', { task: 'tick', schedule: every('1m') });
      app.schedule('done', { task: 'tick', schedule: every('1m') });
      const scheduler = app.beat.scheduler({ lease: '10s', clock });
      await scheduler.start();
      return scheduler;
    };
    const app = fixture.app();
    const before = await run(app);
    await clock.advance(30_000, () => before.idle()); // 10:01:00: both claimed and sent
    await before.close();
    // As if the broker never got 'lost' (its leader died before sending it, so before it settled the
    // claim), while a worker ran 'done'.
    expect(await app.broker.purge('default')).toHaveLength(2);
    const slot = Date.parse('2024-05-01T10:01:00Z');
    const beatKeys = new KeySpace(fixture.prefix).beat;
    expect(await fixture.redis().hgetall(beatKeys.claimed)).toEqual({});
    await fixture.redis().hset(beatKeys.claimed, 'lost', String(slot), 'done', String(slot));
    await app.backend.store([
      { record: { id: `beat:done:${slot}`, state: 'SUCCESS', task: 'tick', date: clock.now() }, ttl: 60_000 },
    ]);
    await clock.advance(2_000);

    const after = await run(fixture.app());
    await clock.advance(0, () => after.idle());
    expect(await queued()).toEqual([`beat:lost:${slot}`]);
    expect(after.entries().map((entry) => entry.next)).toEqual([slot + 60_000, slot + 60_000]);
    await after.close();
  });
});
