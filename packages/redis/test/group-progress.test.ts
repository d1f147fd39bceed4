import type { GroupProgress } from '@celeriac/core';
import { GroupProgressBatcher } from '../src/backend/group-progress';

/** A counter that keeps its groups' bits in memory and logs each call it gets. */
function countingStore() {
  const bits = new Map<string, Set<number>>();
  const calls: Array<{ groupId: string; ttl: number; indices: number[] }> = [];
  const batcher = new GroupProgressBatcher(async (groupId, size, ttl, indices) => {
    calls.push({ groupId, ttl, indices });
    const set = bits.get(groupId) ?? new Set<number>();
    bits.set(groupId, set);
    return indices.map((index): GroupProgress => {
      const repeated = set.has(index);
      set.add(index);
      return { done: set.size, completed: !repeated && set.size === size, repeated };
    });
  });
  return { batcher, calls };
}

describe('GroupProgressBatcher', () => {
  it("counts one tick's members in one call per group (longest TTL); each caller gets its own answer", async () => {
    const { batcher, calls } = countingStore();
    const progress = await Promise.all([
      batcher.memberDone('a', 0, 3, 1_000),
      batcher.memberDone('b', 0, 1, 1_000),
      batcher.memberDone('a', 1, 3, 5_000),
      batcher.memberDone('a', 1, 3, 2_000),
    ]);
    expect(calls).toEqual([
      { groupId: 'a', ttl: 5_000, indices: [0, 1, 1] },
      { groupId: 'b', ttl: 1_000, indices: [0] },
    ]);
    expect(progress).toEqual([
      { done: 1, completed: false, repeated: false },
      { done: 1, completed: true, repeated: false },
      { done: 2, completed: false, repeated: false },
      { done: 2, completed: false, repeated: true },
    ]);
    // A later tick is a call of its own.
    await expect(batcher.memberDone('a', 2, 3, 1_000)).resolves.toEqual({ done: 3, completed: true, repeated: false });
    expect(calls).toHaveLength(3);
  });

  it("fails every caller of a group's call when the call fails, and only those", async () => {
    const batcher = new GroupProgressBatcher(async (groupId, _size, _ttl, indices) => {
      if (groupId === 'down') throw new Error('Redis went away');
      return indices.map(() => ({ done: 1, completed: false, repeated: false }));
    });
    const outcomes = await Promise.allSettled([
      batcher.memberDone('down', 0, 2, 1_000),
      batcher.memberDone('up', 0, 2, 1_000),
      batcher.memberDone('down', 1, 2, 1_000),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'fulfilled', 'rejected']);
  });
});
