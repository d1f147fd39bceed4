/** Revoking a task that will not run (revoked, expired, terminated): REVOKED, its event, and its workflow. */
import type { Delivery } from '@celeriac/core';
import { failFlow, type RevokeReason, type TaskMessage } from '@celeriac/core/internal';
import type { RunContext } from '../run-context';
import { startRunSpan, traced } from '../tracing/run-span';
import { entryFor, record } from './records';
import { settleStep } from './settle-outcome';

/**
 * Revokes a task that will not run, under a run span that ends `REVOKED` and says why: its trace
 * shows the worker took it and why it never ran.
 */
export function notRun(run: RunContext, delivery: Delivery, message: TaskMessage, reason: RevokeReason): Promise<void> {
  const span = startRunSpan(message, delivery.deliveries);
  span?.revoked(reason);
  return traced(span, 'REVOKED', undefined, () => revoke(run, delivery, message, reason));
}

/** Stores REVOKED with the reason, settles the workflow steps that will not run, and acks. */
export function revoke(run: RunContext, delivery: Delivery, message: TaskMessage, reason: RevokeReason): Promise<void> {
  run.logger.info(
    { id: message.id, task: message.task, reason },
    `Task ${message.task}[${message.id}] not run: ${reason}`,
  );
  run.metrics?.finished(message, 'REVOKED');
  if (reason === 'expired') run.events.emit('task-expired', message);
  else run.events.emit('task-revoked', message, { reason });
  const entry = entryFor(run, message, record(message.id, 'REVOKED', { task: message.task, meta: { reason } }));
  return settleStep(run, delivery, message, entry, (context) =>
    failFlow(context, message, { state: 'REVOKED', reason: `step ${message.id} ${reason}` }),
  );
}
