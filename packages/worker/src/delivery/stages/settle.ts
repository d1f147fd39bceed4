/**
 * The settle stage: settles every way a delivery's pipeline ends. A run goes by its outcome
 * (settle-outcome.ts); what did not run is dead-lettered (too large, unreadable, unknown task),
 * stored REVOKED (revoked, expired, terminated) or FAILURE (a dependency failed). Records are stored
 * before the ack, in the settler's batches.
 */
import { CeleriacError, InvalidMessageError, type Delivery, type RecordsRefusedError } from '@celeriac/core';
import { failWorkflow, toRemoteError, type RevokeReason, type TaskMessage } from '@celeriac/core/internal';
import type { RunContext } from '../../run-context';
import type { Ending } from '../ending';
import { entryFor, record, workflowContext } from '../records';
import { brief, rejected } from '../reports';
import { fail, settleRun, settleStep } from '../settle-outcome';

/** Stores, acks, retries or dead-letters `delivery` as `ending` says. */
export function settle(run: RunContext, delivery: Delivery, ending: Ending): Promise<void> {
  switch (ending.kind) {
    case 'ran':
      return settleRun(run, delivery, ending);
    case 'too-large':
      return deadLetterTooLarge(run, delivery, ending.size);
    case 'unreadable':
      return deadLetterUnreadable(run, delivery, ending.error);
    case 'unknown-task':
      return deadLetterUnknownTask(run, delivery, ending);
    case 'not-run':
      return revoke(run, delivery, ending.message, ending.reason);
    case 'dependency-failed': {
      const { message, error } = ending;
      run.events.emit('task-failed', message, { error: brief(error) });
      run.metrics?.finished(message, 'FAILURE');
      return fail(run, delivery, message, error, { task: message.task, retries: message.retries });
    }
    case 'handed-back':
      run.settler.dropStarted(ending.message.id);
      return Promise.resolve();
  }
}

/**
 * Dead-letters a task whose record the backend refused: it would refuse it again on every re-run.
 * Called once settling failed so, outside the run span that recorded the failure.
 */
export async function deadLetterRefused(
  run: RunContext,
  delivery: Delivery,
  error: RecordsRefusedError,
): Promise<void> {
  const reason = `result not stored: ${error.refused.get(delivery.id)?.message ?? error.message}`;
  run.logger.error(
    { id: delivery.id, queue: delivery.queue, error: toRemoteError(error) },
    `Dead-lettering task ${delivery.id}: ${reason}`,
  );
  await run.broker.deadLetter(delivery, reason);
  rejected(run, delivery, undefined, reason);
}

/** Stores REVOKED with the reason, settles the workflow steps that will not run, and acks. */
function revoke(run: RunContext, delivery: Delivery, message: TaskMessage, reason: RevokeReason): Promise<void> {
  run.logger.info(
    { id: message.id, task: message.task, reason },
    `Task ${message.task}[${message.id}] not run: ${reason}`,
  );
  run.metrics?.finished(message, 'REVOKED');
  if (reason === 'expired') run.events.emit('task-expired', message);
  else run.events.emit('task-revoked', message, { reason });
  const entry = entryFor(run, message, record(message.id, 'REVOKED', { task: message.task, meta: { reason } }));
  return settleStep(run, delivery, message, entry, (context) =>
    failWorkflow(context, message, { state: 'REVOKED', reason: `step ${message.id} ${reason}` }),
  );
}

/** Dead-letters a message too large to read; without a secret, stores FAILURE under its id. */
async function deadLetterTooLarge(run: RunContext, delivery: Delivery, tooLarge: number): Promise<void> {
  const { app, logger } = run;
  const reason = `message too large: ${tooLarge} bytes, over maxMessageSize (${app.options.maxMessageSize} bytes)`;
  logger.error(
    { id: delivery.id, queue: delivery.queue, size: tooLarge },
    `Dead-lettering message ${delivery.id}: ${reason}`,
  );
  await run.broker.deadLetter(delivery, reason);
  rejected(run, delivery, undefined, reason);
  // Unread, it is unverified: with a secret set, it must not write over a real task's record.
  if (app.options.secret === undefined) {
    const error = new CeleriacError(
      'CELERIAC_MESSAGE_TOO_LARGE',
      `The message is ${tooLarge} bytes, over the worker's maxMessageSize of ${app.options.maxMessageSize}; it was ` +
        `not run.`,
    );
    await run.settler.store(entryFor(run, undefined, record(delivery.id, 'FAILURE', { error: toRemoteError(error) })));
  }
}

/** Dead-letters a message that cannot be read; unless it may be forged, stores FAILURE under its id. */
async function deadLetterUnreadable(run: RunContext, delivery: Delivery, error: unknown): Promise<void> {
  const reason =
    error instanceof InvalidMessageError
      ? `invalid message: ${error.problem}`
      : `undecodable message: ${(error as Error).message}`;
  run.logger.error({ id: delivery.id, queue: delivery.queue }, `Dead-lettering message ${delivery.id}: ${reason}`);
  await run.broker.deadLetter(delivery, reason);
  rejected(run, delivery, undefined, reason);
  // A forged or replayed message must not be able to write over a real task's record.
  const code = (error as CeleriacError).code;
  if (code !== 'CELERIAC_BAD_SIGNATURE' && code !== 'CELERIAC_SIGNATURE_EXPIRED') {
    await run.settler.store(entryFor(run, undefined, record(delivery.id, 'FAILURE', { error: toRemoteError(error) })));
  }
}

/** Stores FAILURE for a task this worker does not know, fails its workflow, and dead-letters it. */
async function deadLetterUnknownTask(
  run: RunContext,
  delivery: Delivery,
  { message, error }: Extract<Ending, { kind: 'unknown-task' }>,
): Promise<void> {
  await run.settler.store(entryFor(run, message, record(message.id, 'FAILURE', { task: message.task, error })));
  if (message.workflow) await failWorkflow(workflowContext(run), message, { state: 'FAILURE', error });
  await run.broker.deadLetter(delivery, `unknown task ${message.task}`);
  rejected(run, delivery, message, `unknown task ${message.task}`);
}
