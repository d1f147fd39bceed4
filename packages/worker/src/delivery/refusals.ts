/**
 * Dead-lettering what must not run: a message over `maxMessageSize`, one that cannot be read (bad
 * signature, undecodable, invalid), and one naming a task this worker does not know.
 */
import { CeleriacError, InvalidMessageError, UnknownTaskError, type Delivery } from '@celeriac/core';
import { failFlow, toRemoteError, type TaskMessage } from '@celeriac/core/internal';
import type { RunContext } from '../run-context';
import { startRunSpan, traced } from '../tracing/run-span';
import { entryFor, flowContext, record } from './records';
import { rejected } from './reports';

/** Dead-letters a message too large to read; without a secret, stores FAILURE under its id. */
export async function refuseTooLarge(run: RunContext, delivery: Delivery, tooLarge: number): Promise<void> {
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
export async function refuseUnreadable(run: RunContext, delivery: Delivery, error: unknown): Promise<void> {
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
export function refuseUnknownTask(run: RunContext, delivery: Delivery, message: TaskMessage): Promise<void> {
  const error = toRemoteError(new UnknownTaskError(message.task));
  run.logger.error({ id: message.id, task: message.task }, error.message);
  // A run span that ends FAILURE with the error: the trace says why the task never ran.
  return traced(startRunSpan(message, delivery.deliveries), 'FAILURE', error, async () => {
    await run.settler.store(entryFor(run, message, record(message.id, 'FAILURE', { task: message.task, error })));
    if (message.flow) await failFlow(flowContext(run), message, { state: 'FAILURE', error });
    await run.broker.deadLetter(delivery, `unknown task ${message.task}`);
    rejected(run, delivery, message, `unknown task ${message.task}`);
  });
}
