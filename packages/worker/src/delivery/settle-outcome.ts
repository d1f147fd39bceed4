/**
 * Settling a run by its outcome: success stores the result and acks; a retry stores RETRY and
 * requeues with the delay; a lost run is requeued as lost (dead-lettered at `maxDeliveries`); a
 * failure stores FAILURE and acks into the failed-task registry. Workflow steps move their workflow
 * on between the record and the ack.
 */
import type { Delivery, Failure, RemoteError, StoreEntry, TaskRecord } from '@celeriac/core';
import {
  continueWorkflow,
  failWorkflow,
  logsAt,
  type WorkflowContext,
  type TaskMessage,
} from '@celeriac/core/internal';
import type { RunContext } from '../run-context';
import { successValue } from '../run-task';
import type { Ran } from './ending';
import { entryFor, workflowContext, record } from './records';
import { brief, errorCall, rejected } from './reports';

/** Stores, acks, retries or dead-letters a run by its outcome, with its event, metric and log line. */
export async function settleRun(run: RunContext, delivery: Delivery, ran: Ran): Promise<void> {
  const { app, logger } = run;
  const { message, definition, maxRetries, outcome, duration } = ran;
  const fields = { id: message.id, task: message.task, duration };
  const base = { task: message.task, retries: message.retries };
  switch (outcome.kind) {
    case 'success': {
      const ignore = message.ignoreResult ?? definition.options.ignoreResult ?? false;
      const passed = !ignore && outcome.json !== undefined;
      const entry = entryFor(
        run,
        message,
        record(message.id, 'SUCCESS', ignore || passed ? base : { ...base, result: outcome.value }),
      );
      // A pool child's JSON text goes to the backend as it is.
      if (passed) entry.resultJson = outcome.json;
      if (run.events.enabled) {
        // A pool child's result is JSON text: decoded for the event only when events carry payloads.
        const payload = ignore || !run.events.payloads ? undefined : run.events.payload(successValue(outcome));
        run.events.emit('task-succeeded', message, { runtime: duration, result: payload });
      }
      // Counted before the record is stored: whoever sees the result sees it counted.
      run.metrics?.finished(message, 'SUCCESS', duration);
      await settleStep(run, delivery, message, entry, (context) =>
        continueWorkflow(context, message, successValue(outcome)),
      );
      if (logsAt(logger, 'info'))
        logger.info({ ...fields, state: 'SUCCESS' }, `Task ${message.task}[${message.id}] succeeded in ${duration} ms`);
      return;
    }
    case 'retry': {
      // Signed again with the time it is due again, so a retry stays inside the replay window.
      const body = app.encode({ ...message, retries: message.retries + 1, eta: Date.now() + outcome.delay });
      run.events.emit('task-retried', message, {
        runtime: duration,
        error: brief(outcome.error),
        delay: outcome.delay,
      });
      run.metrics?.retried(message, duration);
      await run.settler.store(
        entryFor(
          run,
          message,
          record(message.id, 'RETRY', { ...base, error: outcome.error, meta: { countdown: outcome.delay } }),
        ),
      );
      await run.broker.requeue(delivery, { delay: outcome.delay, body });
      logger.info(
        { ...fields, state: 'RETRY', delay: outcome.delay },
        `Task ${message.task}[${message.id}] failed; retry ${message.retries + 1}/${maxRetries} in ` +
          `${outcome.delay} ms: ${errorCall(outcome.error)}`,
      );
      return;
    }
    case 'lost': {
      // Redelivered as a lost delivery: bounded by maxDeliveries, then dead-lettered.
      run.settler.dropStarted(message.id);
      const dead =
        (await run.broker.requeueLost(delivery, `${outcome.error.name}: ${outcome.error.message}`)) === 'dead';
      logger.error(
        { ...fields, state: dead ? 'FAILURE' : 'REDELIVERED', error: outcome.error },
        `Task ${message.task}[${message.id}] lost its process: ${dead ? 'dead-lettered' : 'redelivered'}`,
      );
      if (dead) {
        run.metrics?.finished(message, 'FAILURE', duration);
        rejected(run, delivery, message, `${outcome.error.name}: ${outcome.error.message}`);
        await run.settler.store(
          entryFor(run, message, record(message.id, 'FAILURE', { ...base, error: outcome.error })),
        );
        if (message.workflow)
          await failWorkflow(workflowContext(run), message, { state: 'FAILURE', error: outcome.error });
      }
      return;
    }
    case 'failure':
      run.events.emit('task-failed', message, { runtime: duration, error: brief(outcome.error) });
      run.metrics?.finished(message, 'FAILURE', duration);
      await fail(run, delivery, message, outcome.error, base, {
        task: message.task,
        error: outcome.error,
        attempts: message.retries + 1,
      });
      logger.error({ ...fields, state: 'FAILURE', error: outcome.error }, `Task ${message.task}[${message.id}] failed`);
      return;
  }
}

/**
 * Stores a step's final record and acks it. With a workflow, the record is stored, then `moveOn`
 * starts (or settles) what follows, then the step is acked: a crash in between re-runs the step.
 */
export async function settleStep(
  run: RunContext,
  delivery: Delivery,
  message: TaskMessage,
  entry: StoreEntry,
  moveOn: (context: WorkflowContext) => Promise<void>,
  failure?: Failure,
): Promise<void> {
  if (!message.workflow) return run.settler.finish(delivery, entry, failure);
  await run.settler.store(entry);
  await moveOn(workflowContext(run));
  await run.settler.finish(delivery, undefined, failure);
}

/**
 * Stores a FAILURE, settles the workflow steps that will not run, and acks (with `failure`, into the
 * failed-task registry).
 */
export function fail(
  run: RunContext,
  delivery: Delivery,
  message: TaskMessage,
  error: RemoteError,
  fields: Partial<TaskRecord>,
  failure?: Failure,
): Promise<void> {
  const entry = entryFor(run, message, record(message.id, 'FAILURE', { ...fields, error }));
  return settleStep(
    run,
    delivery,
    message,
    entry,
    (context) => failWorkflow(context, message, { state: 'FAILURE', error }),
    failure,
  );
}
