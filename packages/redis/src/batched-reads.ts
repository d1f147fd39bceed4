/** Coalesces single-record reads made in the same tick into one multi-key read (chunked). */
import type { TaskRecord } from '@celeriac/core';

const CHUNK = 1_000;

/** Loads records by id, one round trip per tick and chunk. */
export class BatchedReads {
  private pending = new Map<
    string,
    Array<{ resolve(record: TaskRecord | undefined): void; reject(error: unknown): void }>
  >();

  constructor(private readonly loadMany: (ids: readonly string[]) => Promise<Array<TaskRecord | undefined>>) {}

  /** The record of `id`, read together with the others asked for in this tick. */
  load(id: string): Promise<TaskRecord | undefined> {
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) queueMicrotask(() => this.flush());
      const callers = this.pending.get(id) ?? [];
      callers.push({ resolve, reject });
      this.pending.set(id, callers);
    });
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = new Map();
    const ids = [...batch.keys()];
    for (let start = 0; start < ids.length; start += CHUNK) {
      const chunk = ids.slice(start, start + CHUNK);
      this.loadMany(chunk).then(
        (records) => chunk.forEach((id, index) => batch.get(id)?.forEach((caller) => caller.resolve(records[index]))),
        (error: unknown) => chunk.forEach((id) => batch.get(id)?.forEach((caller) => caller.reject(error))),
      );
    }
  }
}
