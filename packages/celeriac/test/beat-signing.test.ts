/**
 * With a secret, the entries beat keeps in Redis are signed: an entry written straight into the
 * store by someone without the secret (HSET and a change notice), unreadable, or signed with another
 * secret is refused with a warning and never fired, while entries added through the app are signed
 * and fire.
 */
import { every, type FiredSlot } from 'celeriac';
import type { BeatLogger } from '@celeriac/beat';
import { deferred } from '@celeriac/core/testing';
import { RedisFixture } from '@celeriac/test-support';

describe('signed beat entries on Redis', () => {
  let fixture: RedisFixture;
  beforeEach(() => {
    fixture = new RedisFixture('beat-signing');
  });
  afterEach(() => fixture.cleanup());

  it('warns of, refuses stored entries unsigned, unreadable or signed by another secret; fires itsown', async () => {
    const warnings: string[] = [];
    const allRefused = deferred();
    const logger: BeatLogger = {
      debug: () => undefined,
      info: () => undefined,
      error: () => undefined,
      warn: (_fields, message) => {
        warnings.push(message);
        if (['"unsigned"', '"forged"', '"garbled"'].every((name) => warnings.some((line) => line.includes(name))))
          allRefused.resolve();
      },
    };
    const scheduler = fixture.app({ secret: 'right' }).beat.scheduler({ lease: '2s', logger });
    await scheduler.start();
    expect(scheduler.state).toBe('leading');
    const fired: FiredSlot[] = [];
    const goodFiredTwice = deferred();
    scheduler.on('fired', (slot) => {
      fired.push(slot);
      if (fired.filter((each) => each.entry === 'good').length === 2) goodFiredTwice.resolve();
    });

    // What an attacker with write access to Redis but without the secret can do.
    const { prefix } = fixture;
    const entries = `${prefix}:{${prefix}}:beat:entries`;
    const entry = (name: string) => ({
      name,
      task: 'tick',
      schedule: { kind: 'every', every: 100 },
      args: { json: [] },
      options: {},
      catchUp: 'once',
      updatedAt: Date.now(),
    });
    const signedElsewhere = fixture.app({ secret: 'wrong' });
    await signedElsewhere.beat.add('forged', { task: 'tick', schedule: every('100ms') });
    await fixture.redis().hset(entries, 'unsigned', JSON.stringify(entry('unsigned')), 'garbled', '{ not json');
    await fixture.redis().publish(`${prefix}:{${prefix}}:beat:changes`, 'unsigned');
    await allRefused.promise;
    expect(warnings.find((line) => line.includes('"unsigned"'))).toMatch(
      /Refusing the stored entry unsigned: The stored beat entry "unsigned" is not signed, but this app requires/,
    );
    expect(warnings.find((line) => line.includes('"forged"'))).toMatch(
      /Refusing the stored entry forged: The signature of the stored beat entry "forged" does not match/,
    );

    await fixture.app({ secret: 'right' }).beat.add('good', { task: 'tick', schedule: every('100ms') });
    expect(JSON.parse((await fixture.redis().hget(entries, 'good')) ?? '{}')).toHaveProperty(
      'signature',
      expect.stringMatching(/^[0-9a-f]{64}$/),
    );
    await goodFiredTwice.promise;
    expect(new Set(fired.map((slot) => slot.entry))).toEqual(new Set(['good']));
    expect(scheduler.entries().map((each) => each.name)).toEqual(['good']);
    const queued = await fixture.redis().zrange(`${prefix}:{${prefix}:default}:ready`, 0, -1);
    expect(queued.filter((id) => !id.startsWith('beat:good:'))).toEqual([]);
    await scheduler.close();
  });
});
