/**
 * Beat store conformance: last fired slots, claimed at most once and only by the lease holder, and the claims kept for
 * the next leader.
 */
import type { OpenBeatStore } from './harness';

const T = 1_700_000_000_000;
/** When the cases' claims are made. */
const NOW = T + 5_000_000;

/** Defines the slot cases. */
export function slotCases(open: OpenBeatStore): void {
  it('syncSlots starts new entries at their `since` and keeps the slots of unchanged ones', async () => {
    const { store } = await open();
    await store.acquireLease('leader', 60_000);
    expect(await store.syncSlots('leader', [{ name: 'a', fingerprint: 'every 1m', since: T }])).toEqual(
      new Map([['a', T]]),
    );
    expect(await store.claimSlot('leader', 'a', T + 60_000, NOW)).toBe('claimed');
    const synced = await store.syncSlots('leader', [
      { name: 'a', fingerprint: 'every 1m', since: T + 500_000 },
      { name: 'b', fingerprint: 'at noon', since: T + 500_000 },
    ]);
    expect(synced).toEqual(
      new Map([
        ['a', T + 60_000],
        ['b', T + 500_000],
      ]),
    );
    expect(await store.lastSlots()).toEqual(
      new Map([
        ['a', T + 60_000],
        ['b', T + 500_000],
      ]),
    );
  });

  it('syncSlots restarts an entry whose fingerprint changed, and drops entries not listed', async () => {
    const { store } = await open();
    await store.acquireLease('leader', 60_000);
    await store.syncSlots('leader', [
      { name: 'a', fingerprint: 'every 1m', since: T },
      { name: 'gone', fingerprint: 'x', since: T },
    ]);
    await store.claimSlot('leader', 'a', T + 60_000, NOW);
    expect(await store.syncSlots('leader', [{ name: 'a', fingerprint: 'every 5m', since: T + 90_000 }])).toEqual(
      new Map([['a', T + 90_000]]),
    );
    expect(await store.lastSlots()).toEqual(new Map([['a', T + 90_000]]));
  });

  it('claimSlot succeeds once per slot, only for later slots', async () => {
    const { store, writer } = await open();
    await store.acquireLease('leader', 60_000);
    await store.syncSlots('leader', [{ name: 'a', fingerprint: 'f', since: T }]);
    expect(await store.claimSlot('leader', 'a', T + 1_000, NOW)).toBe('claimed');
    expect(await store.claimSlot('leader', 'a', T + 1_000, NOW)).toBe('stale');
    expect(await store.claimSlot('leader', 'a', T + 500, NOW)).toBe('stale');
    expect(await store.claimSlot('leader', 'a', T + 2_000, NOW)).toBe('claimed');
    expect(await writer.lastSlots()).toEqual(new Map([['a', T + 2_000]]));
  });

  it('claimSlot and syncSlots refuse a caller that does not hold the lease', async () => {
    const { store, writer } = await open();
    expect(await store.claimSlot('nobody', 'a', T, NOW)).toBe('not-leader');
    await store.acquireLease('leader', 60_000);
    expect(await writer.claimSlot('other', 'a', T, NOW)).toBe('not-leader');
    expect(await writer.syncSlots('other', [{ name: 'a', fingerprint: 'f', since: T }])).toBe('not-leader');
    expect(await store.lastSlots()).toEqual(new Map());
  });

  it('slots survive a change of leader', async () => {
    const { store, writer } = await open();
    await store.acquireLease('first', 60_000);
    await store.syncSlots('first', [{ name: 'a', fingerprint: 'f', since: T }]);
    await store.claimSlot('first', 'a', T + 1_000, NOW);
    await store.releaseLease('first');
    await writer.acquireLease('second', 60_000);
    expect(await writer.syncSlots('second', [{ name: 'a', fingerprint: 'f', since: T + 9_000 }])).toEqual(
      new Map([['a', T + 1_000]]),
    );
    expect(await writer.claimSlot('second', 'a', T + 1_000, NOW)).toBe('stale');
  });

  it('lastClaims lists entries whose last slot was claimed, with when; not starting points syncSlots set', async () => {
    const { store, writer } = await open();
    await store.acquireLease('leader', 60_000);
    await store.syncSlots('leader', [
      { name: 'a', fingerprint: 'f', since: T },
      { name: 'b', fingerprint: 'f', since: T },
    ]);
    expect(await store.lastClaims()).toEqual(new Map());
    expect(await store.claimSlot('leader', 'a', T + 1_000, T + 1_004)).toBe('claimed');
    expect(await store.claimSlot('leader', 'a', T + 1_000, T + 9_999)).toBe('stale');
    expect(await writer.lastClaims()).toEqual(new Map([['a', { slot: T + 1_000, at: T + 1_004 }]]));
    expect(await store.claimSlot('leader', 'a', T + 2_000, T + 2_003)).toBe('claimed');
    expect(await store.claimSlot('leader', 'b', T + 2_000, T + 2_001)).toBe('claimed');
    expect(await writer.lastClaims()).toEqual(
      new Map([
        ['a', { slot: T + 2_000, at: T + 2_003 }],
        ['b', { slot: T + 2_000, at: T + 2_001 }],
      ]),
    );
  });

  it('lastClaims keeps a claim across leaders, drops it when the schedule changes or the entry is gone', async () => {
    const { store, writer } = await open();
    await store.acquireLease('first', 60_000);
    await store.syncSlots('first', [
      { name: 'a', fingerprint: 'f', since: T },
      { name: 'b', fingerprint: 'f', since: T },
      { name: 'c', fingerprint: 'f', since: T },
    ]);
    for (const name of ['a', 'b', 'c']) await store.claimSlot('first', name, T + 1_000, T + 1_002);
    await store.releaseLease('first');
    await writer.acquireLease('second', 60_000);
    await writer.syncSlots('second', [
      { name: 'a', fingerprint: 'f', since: T + 9_000 },
      { name: 'b', fingerprint: 'changed', since: T + 9_000 },
    ]);
    expect(await writer.lastClaims()).toEqual(new Map([['a', { slot: T + 1_000, at: T + 1_002 }]]));
    await writer.syncSlots('second', [
      { name: 'a', fingerprint: 'f', since: T + 9_000 },
      { name: 'b', fingerprint: 'changed', since: T + 9_000 },
      { name: 'c', fingerprint: 'f', since: T + 9_000 },
    ]);
    expect([...(await store.lastClaims()).keys()]).toEqual(['a']);
  });

  it('settleClaim forgets a claim whose task was sent, never a later claim; the slot stays fired', async () => {
    const { store, writer } = await open();
    await store.acquireLease('leader', 60_000);
    await store.syncSlots('leader', [
      { name: 'a', fingerprint: 'f', since: T },
      { name: 'b', fingerprint: 'f', since: T },
    ]);
    await store.claimSlot('leader', 'a', T + 1_000, T + 1_002);
    await store.claimSlot('leader', 'b', T + 1_000, T + 1_003);
    await writer.settleClaim('a', T + 1_000);
    expect(await store.lastClaims()).toEqual(new Map([['b', { slot: T + 1_000, at: T + 1_003 }]]));
    expect(await store.claimSlot('leader', 'a', T + 1_000, T + 1_005)).toBe('stale');
    // A late settle of an earlier slot leaves the later claim listed.
    await store.claimSlot('leader', 'b', T + 2_000, T + 2_001);
    await writer.settleClaim('b', T + 1_000);
    expect(await store.lastClaims()).toEqual(new Map([['b', { slot: T + 2_000, at: T + 2_001 }]]));
    expect(await store.lastSlots()).toEqual(
      new Map([
        ['a', T + 1_000],
        ['b', T + 2_000],
      ]),
    );
  });

  it('removeEntry drops the claim with the slot', async () => {
    const { store, writer } = await open();
    await store.acquireLease('leader', 60_000);
    await store.syncSlots('leader', [{ name: 'a', fingerprint: 'f', since: T }]);
    await store.claimSlot('leader', 'a', T + 1_000, T + 1_002);
    await writer.removeEntry('a');
    expect(await store.lastClaims()).toEqual(new Map());
  });
}
