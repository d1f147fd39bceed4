/** Beat store conformance: one lease holder at a time, renewed by its owner, free once it lapses or is released. */
import { untilPast } from '../wait';
import type { OpenBeatStore } from './harness';

/** Defines the lease cases. */
export function leaseCases(open: OpenBeatStore): void {
  it('the first owner takes a free lease; others are refused and told how long it lasts', async () => {
    const { store, writer } = await open();
    expect(await store.leaseHolder()).toBeUndefined();
    expect(await store.acquireLease('a', 60_000)).toEqual({ held: true, ttl: 60_000 });
    const refused = await writer.acquireLease('b', 60_000);
    expect(refused.held).toBe(false);
    expect(refused.ttl).toBeGreaterThan(50_000);
    expect(refused.ttl).toBeLessThanOrEqual(60_000);
    expect(await writer.leaseHolder()).toEqual({ owner: 'a', ttl: expect.any(Number) });
  });

  it('the owner renews its lease for a new ttl', async () => {
    const { store } = await open();
    await store.acquireLease('a', 1_000);
    expect(await store.acquireLease('a', 60_000)).toEqual({ held: true, ttl: 60_000 });
    expect((await store.leaseHolder())?.ttl).toBeGreaterThan(50_000);
  });

  it('a lapsed lease can be taken by another owner, and its old owner cannot renew it', async () => {
    const { store, writer } = await open();
    await store.acquireLease('a', 150);
    const takenAt = Date.now();
    await untilPast(takenAt + 200);
    expect(await store.leaseHolder()).toBeUndefined();
    expect((await writer.acquireLease('b', 60_000)).held).toBe(true);
    expect((await store.acquireLease('a', 60_000)).held).toBe(false);
  });

  it('release frees the lease only for its owner', async () => {
    const { store, writer } = await open();
    await store.acquireLease('a', 60_000);
    expect(await writer.releaseLease('b')).toBe(false);
    expect((await writer.acquireLease('b', 60_000)).held).toBe(false);
    expect(await store.releaseLease('a')).toBe(true);
    expect(await store.leaseHolder()).toBeUndefined();
    expect((await writer.acquireLease('b', 60_000)).held).toBe(true);
    expect(await store.releaseLease('a')).toBe(false);
  });
}
