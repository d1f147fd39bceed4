/**
 * Exactly once across a hand-over: a leader that dies (or is cut off) after claiming a slot and
 * before the broker has its task leaves that slot to the next leader, which sends it, once; a slot
 * whose task finished (it left a record), or that was claimed long ago, is not sent again.
 */
import type { BeatStore } from '@celeriac/core';
import { every } from '@celeriac/beat';
import { silent, t, times, useFakeBeat } from './support/fake-beat';

const id = (entry: string, time: string) => `beat:${entry}:${t(time)}`;

describe('scheduler: a hand-over neither loses nor repeats a slot', () => {
  const fixture = useFakeBeat('2024-05-01T10:00:30Z');

  it('a leader dying between its claim and the send: the next leader sends that slot, once, and fires on', async () => {
    const { beat, start, startFragile, advance, fired, resent, queuedIds } = fixture();
    beat.define('poll', { task: 'tick', schedule: every('1m') });
    const dying = await startFragile({ id: 'a', breakAt: id('poll', '2024-05-01T10:02:00Z'), dies: true });
    const standby = await start({ id: 'b', logger: silent });
    expect([dying.scheduler.state, standby.state]).toEqual(['leading', 'standby']);

    await advance(30_000); // 10:01:00, fired by a
    await advance(60_000); // 10:02:00: a claims it, then dies while sending
    await dying.broken;
    expect(times(fired)).toEqual(['10:01:00']);
    await advance(5_000); // b takes over when a's lease runs out (3 s)
    expect(standby.state).toBe('leading');
    expect(resent.map((slot) => slot.id)).toEqual([id('poll', '2024-05-01T10:02:00Z')]);
    await advance(55_000); // 10:03:00, fired by b
    expect(times(fired)).toEqual(['10:01:00', '10:03:00']);
    expect(resent).toHaveLength(1);
    expect(await queuedIds()).toEqual([
      id('poll', '2024-05-01T10:01:00Z'),
      id('poll', '2024-05-01T10:02:00Z'),
      id('poll', '2024-05-01T10:03:00Z'),
    ]);
    expect(dying.published).toEqual([id('poll', '2024-05-01T10:01:00Z')]);
  });

  it('a slot whose task finished (it left a record) is not sent again; an unsent one of another entry is', async () => {
    const { beat, start, startFragile, advance, resent, runQueued } = fixture();
    beat.define('done', { task: 'tick', schedule: every('1m'), options: { ignoreResult: true } });
    beat.define('lost', { task: 'tick', schedule: every('1m', { anchor: 1_000 }) });
    const dying = await startFragile({ id: 'a', breakAt: id('lost', '2024-05-01T10:01:01Z'), dies: true });
    const standby = await start({ id: 'b', logger: silent });

    await advance(30_000); // 10:01:00: 'done' fired by a
    // A worker runs it: its record is stored, the message acked.
    expect(await runQueued()).toEqual([id('done', '2024-05-01T10:01:00Z')]);
    await advance(1_000); // 10:01:01: a claims 'lost', then dies while sending
    await dying.broken;
    await advance(5_000);
    expect(standby.state).toBe('leading');
    // A copy of 'done' would be accepted now (the first one is acked) and run it twice: the record prevents it.
    expect(resent.map((slot) => slot.id)).toEqual([id('lost', '2024-05-01T10:01:01Z')]);
    expect(await runQueued()).toEqual([id('lost', '2024-05-01T10:01:01Z')]);
  });

  it('a slot claimed over two leases ago is not sent again (its record may be gone); a recent one is', async () => {
    const { beat, start, startFragile, advanceTo, resent, runQueued, app } = fixture();
    beat.define('hourly', { task: 'tick', schedule: every('1h') });
    beat.define('once', { task: 'tick', schedule: new Date('2024-05-01T11:30:00Z') });
    const lease = '10m';
    const dying = await startFragile({ id: 'a', lease, breakAt: id('once', '2024-05-01T11:30:00Z'), dies: true });
    const standby = await start({ id: 'b', lease, logger: silent });

    await advanceTo('2024-05-01T11:00:00Z'); // 'hourly' fired by a
    expect(await runQueued()).toEqual([id('hourly', '2024-05-01T11:00:00Z')]);
    await app.backend.forget([id('hourly', '2024-05-01T11:00:00Z')]); // its record expired
    await advanceTo('2024-05-01T11:30:00Z'); // a claims 'once', then dies while sending
    await dying.broken;
    await advanceTo('2024-05-01T11:45:00Z'); // b takes over within the lease
    expect(standby.state).toBe('leading');
    // 'hourly' was claimed 30 minutes (three leases) before: with no record, it cannot tell sent from unsent.
    expect(resent.map((slot) => slot.id)).toEqual([id('once', '2024-05-01T11:30:00Z')]);
    expect(await runQueued()).toEqual([id('once', '2024-05-01T11:30:00Z')]);
  });

  it('a cut-off leader whose send fails stops when its lease ends: the next sends the slot, it nothing', async () => {
    const { beat, start, startFragile, advance, fired, resent, runQueued } = fixture();
    beat.define('poll', { task: 'tick', schedule: every('1m') });
    const cutOff = await startFragile({ id: 'a', breakAt: id('poll', '2024-05-01T10:02:00Z') });
    const standby = await start({ id: 'b', logger: silent });

    await advance(90_000); // 10:01:00 fired; 10:02:00 claimed by a, its send fails, and a is cut off from Redis
    await advance(5_000); // a keeps retrying until its lease runs out; b takes over and sends the slot
    expect([cutOff.scheduler.state, standby.state]).toEqual(['standby', 'leading']);
    expect(resent.map((slot) => slot.id)).toEqual([id('poll', '2024-05-01T10:02:00Z')]);
    expect(await runQueued()).toEqual([id('poll', '2024-05-01T10:01:00Z'), id('poll', '2024-05-01T10:02:00Z')]);

    cutOff.cut.on = false; // the cut heals: a's retries must not put 10:02:00 back into the queue
    await advance(60_000);
    expect(cutOff.published).toEqual([id('poll', '2024-05-01T10:01:00Z')]);
    expect(times(fired)).toEqual(['10:01:00', '10:03:00']);
    expect(await runQueued()).toEqual([id('poll', '2024-05-01T10:03:00Z')]);
  });

  it('a take-over that cannot read the claimed slots fires nothing until it can, then the unsent first', async () => {
    const { beat, start, startFragile, advance, advanceTo, fired, store } = fixture();
    beat.define('tick', { task: 'tick', schedule: every('1s'), catchUp: 'all' });
    const dying = await startFragile({ id: 'a', breakAt: id('tick', '2024-05-01T10:00:31Z'), dies: true });
    let failures = 2;
    const flaky = new Proxy(store, {
      get(target, property) {
        if (property === 'lastClaims')
          return () => (failures-- > 0 ? Promise.reject(new Error('connection lost')) : target.lastClaims());
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }) as BeatStore;
    const standby = await start({ id: 'b', store: flaky, logger: silent });
    const sent: string[] = [];
    standby.on('fired', (slot) => sent.push(`fired ${times([slot])[0]}`));
    standby.on('resent', (slot) => sent.push(`resent ${times([slot])[0]}`));

    await advance(1_000); // 10:00:31: a claims it and dies while sending
    await dying.broken;
    await advanceTo('2024-05-01T10:00:35.500Z'); // b leads (a's lease ran out) but could not read the claims yet
    expect(standby.state).toBe('leading');
    expect(failures).toBeLessThan(2);
    expect(sent).toEqual([]);
    await advanceTo('2024-05-01T10:00:38Z');
    expect(failures).toBeLessThan(0);
    expect(sent).toEqual([
      'resent 10:00:31',
      'fired 10:00:32',
      'fired 10:00:33',
      'fired 10:00:34',
      'fired 10:00:35',
      'fired 10:00:36',
      'fired 10:00:37',
      'fired 10:00:38',
    ]);
    expect(times(fired)).toEqual(['10:00:32', '10:00:33', '10:00:34', '10:00:35', '10:00:36', '10:00:37', '10:00:38']);
  });
});
