/** Two schedulers on one store: one leads, the other takes over when the leader is gone; no slot twice. */
import { every } from '@celeriac/beat';
import { cutOff, silent, useFakeBeat } from './support/fake-beat';

const seconds = (slots: ReadonlyArray<{ slot: number }>) =>
  slots.map((fired) => new Date(fired.slot).toISOString().slice(17, 19));

describe('scheduler: leadership', () => {
  const fixture = useFakeBeat('2024-05-01T10:00:30.500Z');

  it('only the lease holder fires; a standby takes over from a cut-off leader; no slot twice or missing', async () => {
    const { beat, start, advance, fired, store, queuedIds } = fixture();
    beat.define('tick', { task: 'tick', schedule: every('1s'), catchUp: 'all' });
    const cut = { on: false };
    const leader = await start({ id: 'a', store: cutOff(store, cut), logger: silent });
    const standby = await start({ id: 'b' });
    expect([leader.state, standby.state]).toEqual(['leading', 'standby']);
    const firedBy: Record<string, string[]> = { a: [], b: [] };
    leader.on('fired', (slot) => firedBy.a!.push(seconds([slot])[0]!));
    standby.on('fired', (slot) => firedBy.b!.push(seconds([slot])[0]!));
    const lost: string[] = [];
    leader.on('standby', (reason) => lost.push(reason));

    await advance(5_000);
    expect(firedBy).toEqual({ a: ['31', '32', '33', '34', '35'], b: [] });
    cut.on = true;
    const cutAt = fixture().clock.now();
    let takenOverAt: number | undefined;
    standby.on('leading', () => (takenOverAt = fixture().clock.now()));
    await advance(10_000);
    expect(standby.state).toBe('leading');
    expect(leader.state).toBe('standby');
    expect(lost).toEqual(['the lease could not be renewed before it lapsed']);
    // Within the lease (3 s) of the leader's last renewal, plus the 1 ms after which Redis has expired a key.
    expect(takenOverAt! - cutAt).toBeLessThanOrEqual(3_001);
    expect(firedBy.a).toEqual(['31', '32', '33', '34', '35']);
    expect(seconds(fired)).toEqual([
      '31',
      '32',
      '33',
      '34',
      '35',
      '36',
      '37',
      '38',
      '39',
      '40',
      '41',
      '42',
      '43',
      '44',
      '45',
    ]);
    expect(new Set((await queuedIds()).map(String)).size).toBe(15);
  });

  it('a closed leader gives its lease up; the standby takes over when that lease ends; nothing twice', async () => {
    const { beat, start, advance, fired, resent, queuedIds } = fixture();
    beat.define('tick', { task: 'tick', schedule: every('1s') });
    const leader = await start({ id: 'a' });
    const standby = await start({ id: 'b' });
    await advance(2_000);
    await leader.close();
    await advance(3_000);
    expect(standby.state).toBe('leading');
    expect(leader.state).toBe('closed');
    expect(seconds(fired)).toEqual(['31', '32', '33', '34', '35']);
    // The last slot claimed before the take-over has no record yet (no worker ran it), but its claim
    // was settled once the broker took it: it is not sent again, on any broker.
    expect(seconds(resent)).toEqual([]);
    expect((await queuedIds()).length).toBe(5);
  });
});
