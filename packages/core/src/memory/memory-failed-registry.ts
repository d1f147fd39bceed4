/**
 * The memory broker's failed-task registry: per queue, the tasks that failed for good, newest last,
 * dropped after `ttl` ms or past `limit` entries.
 */
import type { FailedTask } from '../broker';

/** Failed tasks of every queue, in this process. */
export class MemoryFailedRegistry {
  private readonly queues = new Map<string, Map<string, FailedTask>>();

  constructor(
    private readonly ttl: number,
    private readonly limit: number,
  ) {}

  /** Keeps a failed task (nothing when the TTL is 0). */
  add(task: FailedTask): void {
    if (this.ttl <= 0) return;
    const entries = this.queues.get(task.queue) ?? new Map<string, FailedTask>();
    this.queues.set(task.queue, entries);
    entries.delete(task.id);
    entries.set(task.id, task);
    this.prune(entries);
  }

  /** True when the registry holds `id` in `queue`. */
  has(queue: string, id: string): boolean {
    return this.live(queue).has(id);
  }

  list(queue: string, offset: number, limit: number): FailedTask[] {
    return [...this.live(queue).values()].reverse().slice(offset, offset + limit);
  }

  count(queue: string): number {
    return this.live(queue).size;
  }

  get(queue: string, ids: readonly string[]): Array<FailedTask | undefined> {
    const entries = this.live(queue);
    return ids.map((id) => entries.get(id));
  }

  discard(queue: string, ids?: readonly string[]): number {
    const entries = this.live(queue);
    if (ids === undefined) {
      const count = entries.size;
      entries.clear();
      return count;
    }
    return ids.filter((id) => entries.delete(id)).length;
  }

  private live(queue: string): Map<string, FailedTask> {
    const entries = this.queues.get(queue) ?? new Map<string, FailedTask>();
    this.prune(entries);
    return entries;
  }

  private prune(entries: Map<string, FailedTask>): void {
    const oldest = Date.now() - this.ttl;
    for (const [id, task] of entries) {
      if (task.at > oldest && entries.size <= this.limit) break;
      entries.delete(id);
    }
  }
}
