/** Ending a run that did not end here: handed back at shutdown, or dead-lettered by lease recovery. */
import { WorkerLostError, type Delivery, type RemoteError } from '@celeriac/core';
import { failWorkflow, toRemoteError, type TaskMessage } from '@celeriac/core/internal';
import type { RunContext } from '../run-context';
import { entryFor, workflowContext, record } from './records';
import { rejected } from './reports';

/**
 * Hands a task still running at shutdown back to its queue. That run is lost, so it counts as a
 * lost delivery: a task that outlasts every shutdown (or brings its worker down) is dead-lettered
 * at `maxDeliveries` instead of being handed from worker to worker forever.
 */
export async function handBackRunning(run: RunContext, delivery: Delivery): Promise<void> {
  const why = 'still running when its worker shut down';
  if ((await run.broker.requeueLost(delivery, why)) !== 'dead') return;
  const message = run.app.decodeOrUndefined(delivery.body);
  const max = run.app.options.maxDeliveries;
  const error = toRemoteError(
    new WorkerLostError(
      `Task ${delivery.id} was dead-lettered: it was ${why}, on delivery ${delivery.deliveries} of at most ${max} ` +
        `(maxDeliveries).`,
    ),
  );
  run.logger.error({ id: delivery.id, task: message?.task, state: 'FAILURE' }, error.message);
  if (message) run.metrics?.finished(message, 'FAILURE');
  rejected(run, delivery, message, why);
  await run.settler.store(entryFor(run, message, record(delivery.id, 'FAILURE', { task: message?.task, error })));
  if (message?.workflow) await failWorkflow(workflowContext(run), message, { state: 'FAILURE', error });
}

/** Settles the workflow after a task that was dead-lettered without running to an end. */
export async function failDeadLettered(run: RunContext, message: TaskMessage, error: RemoteError): Promise<void> {
  if (message.workflow) await failWorkflow(workflowContext(run), message, { state: 'FAILURE', error });
}
