/**
 * The last hour, minute by minute, for the overview's charts: tasks finished, failed and retried
 * (from the event log) and the depth of the queues (sampled).
 */
import type { QueueInfo, StoredEvent } from '@celeriac/core';

/** One minute of history. */
export interface MinuteBucket {
  /** Epoch ms of the minute's start. */
  minute: number;
  succeeded: number;
  failed: number;
  retried: number;
  /** Tasks waiting (ready + scheduled) across every queue, at the minute's last sample. */
  waiting?: number;
  /** Tasks leased by workers across every queue, at the minute's last sample. */
  active?: number;
}

const MINUTE = 60_000;
/** Minutes kept. */
const MINUTES = 60;

/** A ring of the last 60 minutes. */
export class History {
  private readonly buckets = new Map<number, MinuteBucket>();

  /** Counts a finished, failed or retried task. */
  add(event: StoredEvent): void {
    if (event.type !== 'task-succeeded' && event.type !== 'task-failed' && event.type !== 'task-retried') return;
    const bucket = this.bucketAt(event.timestamp);
    if (!bucket) return;
    if (event.type === 'task-succeeded') bucket.succeeded += 1;
    else if (event.type === 'task-failed') bucket.failed += 1;
    else bucket.retried += 1;
  }

  /** Records the queues' depth now. */
  sample(queues: readonly QueueInfo[], now: number): void {
    const bucket = this.bucketAt(now, now);
    if (!bucket) return;
    bucket.waiting = queues.reduce((sum, queue) => sum + queue.ready + queue.delayed, 0);
    bucket.active = queues.reduce((sum, queue) => sum + queue.active, 0);
  }

  /** The last 60 minutes, oldest first, one bucket a minute (empty minutes included). */
  lastHour(now: number): MinuteBucket[] {
    const current = Math.floor(now / MINUTE) * MINUTE;
    this.prune(current);
    const minutes: MinuteBucket[] = [];
    for (let minute = current - (MINUTES - 1) * MINUTE; minute <= current; minute += MINUTE)
      minutes.push(this.buckets.get(minute) ?? { minute, succeeded: 0, failed: 0, retried: 0 });
    return minutes;
  }

  private bucketAt(timestamp: number, now = Date.now()): MinuteBucket | undefined {
    const minute = Math.floor(timestamp / MINUTE) * MINUTE;
    if (minute <= now - MINUTES * MINUTE) return undefined;
    let bucket = this.buckets.get(minute);
    if (!bucket) {
      bucket = { minute, succeeded: 0, failed: 0, retried: 0 };
      this.buckets.set(minute, bucket);
    }
    return bucket;
  }

  private prune(current: number): void {
    for (const minute of this.buckets.keys()) if (minute <= current - MINUTES * MINUTE) this.buckets.delete(minute);
  }
}
