/**
 * Counts finished chord members in batches: the members one process settles in the same tick (about
 * a hundred at c=100) are counted in one script call per group, not one call each. Each caller
 * still learns its own progress, and exactly one learns that the group completed.
 */
import type { GroupProgress } from '@celeriac/core';

/** Counts `indices` of one group in one call; resolves with one progress each, in order. */
export type CountMembers = (groupId: string, size: number, ttl: number, indices: number[]) => Promise<GroupProgress[]>;

interface PendingGroup {
  size: number;
  ttl: number;
  indices: number[];
  callers: Array<{ resolve(progress: GroupProgress): void; reject(error: unknown): void }>;
}

/** Batches `groupMemberDone` calls per group and tick. */
export class GroupProgressBatcher {
  private pending = new Map<string, PendingGroup>();

  constructor(private readonly count: CountMembers) {}

  /** Counts member `index` of `groupId` with the others of this tick. */
  memberDone(groupId: string, index: number, size: number, ttl: number): Promise<GroupProgress> {
    if (this.pending.size === 0) queueMicrotask(() => this.flush());
    let group = this.pending.get(groupId);
    if (!group) {
      group = { size, ttl, indices: [], callers: [] };
      this.pending.set(groupId, group);
    }
    // The longest TTL asked for wins: the bitmap must outlive every member that counts on it.
    group.ttl = Math.max(group.ttl, ttl);
    group.indices.push(index);
    return new Promise((resolve, reject) => group.callers.push({ resolve, reject }));
  }

  private flush(): void {
    const groups = this.pending;
    this.pending = new Map();
    for (const [groupId, group] of groups) {
      this.count(groupId, group.size, group.ttl, group.indices).then(
        (progress) => group.callers.forEach((caller, i) => caller.resolve(progress[i] as GroupProgress)),
        (error: unknown) => group.callers.forEach((caller) => caller.reject(error)),
      );
    }
  }
}
