/**
 * Counts finished chord members: the calls one process makes in the same tick (a worker settles
 * many at once) go to the database as one call of `group_members_done` (migration 201), which counts
 * them in order, each under its group row's lock. Each caller learns its own progress, and exactly
 * one caller, in whatever process, learns that its group completed.
 */
import { CeleriacError, type GroupProgress } from '@celeriac/core';
import type { PostgresConnection } from '../connection/postgres-connection';

interface Pending {
  readonly groupId: string;
  readonly index: number;
  readonly size: number;
  readonly ttl: number;
  resolve(progress: GroupProgress): void;
  reject(error: unknown): void;
}

/** Batches `groupMemberDone` per tick. */
export class GroupCounter {
  private pending: Pending[] = [];

  constructor(private readonly connection: PostgresConnection) {}

  /** Counts member `index` of `groupId` (of `size`), with the others of this tick. */
  memberDone(groupId: string, index: number, size: number, ttl: number): Promise<GroupProgress> {
    if (!Number.isInteger(size) || size < 1 || !Number.isInteger(index) || index < 0 || index >= size) {
      return Promise.reject(
        new CeleriacError(
          'CELERIAC_INVALID_OPTION',
          `Member ${index} of group ${groupId} cannot be counted in a group of ${size}: ` +
            'give an index from 0 to size - 1.',
        ),
      );
    }
    if (this.pending.length === 0) queueMicrotask(() => void this.flush());
    return new Promise((resolve, reject) =>
      this.pending.push({ groupId, index, size, ttl: Math.max(1, Math.round(ttl)), resolve, reject }),
    );
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    try {
      const rows = await this.connection.query<GroupProgress>(
        `SELECT done, completed, repeated
         FROM ${this.connection.schema}.group_members_done($1::text[], $2::int[], $3::int[], $4::bigint[])`,
        [batch.map((p) => p.groupId), batch.map((p) => p.index), batch.map((p) => p.size), batch.map((p) => p.ttl)],
      );
      batch.forEach((caller, i) => {
        const row = rows[i];
        if (row) caller.resolve({ done: row.done, completed: row.completed, repeated: row.repeated });
        else caller.reject(new Error(`group_members_done returned ${rows.length} rows for ${batch.length} members`));
      });
    } catch (error) {
      for (const caller of batch) caller.reject(error);
    }
  }
}
