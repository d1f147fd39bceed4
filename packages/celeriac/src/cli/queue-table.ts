/** The queue table that `celeriac status` and `celeriac queue list` print. */
import type { QueueInfo } from '@celeriac/core';
import { formatTable } from './table';

/** One row a queue: its counts in each place (failed: in the failed-task registry) and whether it is paused. */
export function formatQueueTable(queues: readonly QueueInfo[]): string {
  if (queues.length === 0) return 'No queues yet.';
  return formatTable(
    ['QUEUE', 'READY', 'SCHEDULED', 'ACTIVE', 'DEAD', 'FAILED', 'PAUSED'],
    queues.map((q) => [
      q.name,
      String(q.ready),
      String(q.delayed),
      String(q.active),
      String(q.dead),
      q.failed === undefined ? '-' : String(q.failed),
      q.paused ? 'yes' : 'no',
    ]),
  );
}
