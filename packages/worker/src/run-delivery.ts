/**
 * Takes one delivery from reservation to its end: decode, refuse what must not run (bad signature,
 * revoked, expired, unknown task), run, then store the outcome and ack, retry or dead-letter.
 * The steps live in `delivery/`: refusals, the job and its hooks, settling the outcome, not running.
 */
import { RecordsRefusedError, type Delivery } from '@celeriac/core';
import { toRemoteError } from '@celeriac/core/internal';
import { awaitDependencies } from './dependencies';
import { jobRun } from './delivery/job-run';
import { notRun, revoke } from './delivery/not-run';
import { refuseTooLarge, refuseUnknownTask, refuseUnreadable } from './delivery/refusals';
import { brief, rejected } from './delivery/reports';
import { fail, settle } from './delivery/settle-outcome';
import type { DeliveryReading } from './read-delivery';
import type { RunContext } from './run-context';
import type { RunSignal } from './run-signal';
import { spanOutcome, startRunSpan, traced } from './tracing/run-span';

/**
 * Runs one delivery to its end; throws only when settling failed (the lease then brings the task
 * back). `stop` aborts the run (terminate, shutdown).
 */
export async function runDelivery(
  run: RunContext,
  delivery: Delivery,
  reading: DeliveryReading,
  stop: RunSignal,
): Promise<void> {
  try {
    await prepareAndRun(run, { delivery, reading }, stop);
  } catch (error) {
    if (!(error instanceof RecordsRefusedError)) throw error;
    // The backend would refuse the record again on every re-run: dead-letter the task now.
    const reason = `result not stored: ${error.refused.get(delivery.id)?.message ?? error.message}`;
    run.logger.error(
      { id: delivery.id, queue: delivery.queue, error: toRemoteError(error) },
      `Dead-lettering task ${delivery.id}: ${reason}`,
    );
    await run.broker.deadLetter(delivery, reason);
    rejected(run, delivery, undefined, reason);
  } finally {
    run.released(delivery.id);
  }
}

async function prepareAndRun(
  run: RunContext,
  { delivery, reading }: { delivery: Delivery; reading: DeliveryReading },
  stop: RunSignal,
): Promise<void> {
  const { app, logger } = run;
  if (reading.kind === 'too-large') return refuseTooLarge(run, delivery, reading.size);
  if (reading.kind === 'unreadable') return refuseUnreadable(run, delivery, reading.error);
  const { message } = reading;
  if (run.isRevoked(message.id)) return notRun(run, delivery, message, 'revoked');
  if (message.expires !== undefined && message.expires <= Date.now()) return notRun(run, delivery, message, 'expired');
  const definition = app.registry.get(message.task);
  if (!definition) return refuseUnknownTask(run, delivery, message);
  if (message.dependsOn && message.dependsOn.length > 0) {
    const verdict = await awaitDependencies(run, message, stop);
    if (verdict === 'abandoned') return;
    if (verdict === 'revoked') return notRun(run, delivery, message, stop.aborted ? 'terminated' : 'revoked');
    if (verdict !== 'ready') {
      const error = toRemoteError(verdict);
      logger.info({ id: message.id, task: message.task }, verdict.message);
      run.events.emit('task-failed', message, { error: brief(error) });
      run.metrics?.finished(message, 'FAILURE');
      return traced(startRunSpan(message, delivery.deliveries), 'FAILURE', error, () =>
        fail(run, delivery, message, error, { task: message.task, retries: message.retries }),
      );
    }
  }
  const { job, maxRetries, end, duration } = jobRun(run, delivery, { message, definition, stop });
  const span = startRunSpan(message, delivery.deliveries);
  if (span?.traceparent !== undefined) job.traceparent = span.traceparent;
  const outcome = await run.runner.run(job, delivery.body);
  end();
  run.released(delivery.id);
  // Handed back to the queue at shutdown: another delivery owns the outcome now.
  if (stop.abandoned) {
    span?.end('HANDED_BACK');
    return run.settler.dropStarted(message.id);
  }
  if (stop.aborted && run.isRevoked(message.id)) {
    span?.revoked('terminated');
    return traced(span, 'REVOKED', undefined, () => revoke(run, delivery, message, 'terminated'));
  }
  const ran = duration();
  await traced(span, spanOutcome(outcome), outcome.kind === 'success' ? undefined : outcome.error, () =>
    settle(run, delivery, message, { definition, maxRetries, outcome, duration: ran }),
  );
}
