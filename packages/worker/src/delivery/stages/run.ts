/**
 * The run stage: runs an admitted task as a job on the worker's runner (inline or in a pool child),
 * with its time limits and retries and the hooks the task calls as it runs (began, progress), then
 * gives its slot back and says how the run ended. It notes when the task function began, so the
 * outcome's duration is the task's own and not the time a pool child held the job queued.
 */
import type { TaskState } from '@celeriac/core';
import { logsAt, optionalMilliseconds, toRemoteError, type TaskMessage } from '@celeriac/core/internal';
import { queueWait } from '../../metrics/task-metrics';
import type { RunContext } from '../../run-context';
import type { TaskJob } from '../../task-job';
import type { Admitted, Ending } from '../ending';
import { entryFor, record, ttlOf, withReply } from '../records';

/**
 * Runs `admitted`'s task to its end; `traceparent` is the run span's, for the task function to run
 * under. Never throws: the runner turns whatever happens into an outcome.
 */
export async function runJob(run: RunContext, admitted: Admitted, traceparent: string | undefined): Promise<Ending> {
  const { delivery, message, definition, stop } = admitted;
  const maxRetries = message.maxRetries ?? definition.options.retries ?? 0;
  // A run abandoned at its hard limit may still report; nothing may overwrite its final record.
  let finished = false;
  // When the task function began: a pool child may hold a job queued a while first, and says when.
  let began: number | undefined;
  const job: TaskJob = {
    message,
    definition,
    deliveries: delivery.deliveries,
    maxRetries,
    stop,
    softTimeLimit:
      message.softTimeLimit ??
      optionalMilliseconds(definition.options.softTimeLimit, 'softTimeLimit') ??
      run.limits.softTimeLimit,
    timeLimit:
      message.timeLimit ?? optionalMilliseconds(definition.options.timeLimit, 'timeLimit') ?? run.limits.timeLimit,
    onStart: (childPid) => {
      run.began(delivery.id, childPid);
      began = Date.now();
      started(run, admitted, began);
    },
    report: (state: TaskState, meta: unknown) => (finished ? Promise.resolve() : reported(run, message, state, meta)),
  };
  if (traceparent !== undefined) job.traceparent = traceparent;
  const outcome = await run.runner.run(job, delivery.body);
  finished = true;
  // The task function is done: its slot takes the next task while this one settles.
  run.released(delivery.id);
  // Handed back to the queue at shutdown: another delivery owns the outcome now.
  if (stop.abandoned) return { kind: 'handed-back', message };
  if (stop.aborted && run.isRevoked(message.id)) return { kind: 'not-run', message, reason: 'terminated' };
  const duration = began === undefined ? 0 : Date.now() - began;
  return { kind: 'ran', message, definition, maxRetries, outcome, duration };
}

/** The task function began at `startedAt`: its metric, its STARTED record (held back), event and log line. */
function started(run: RunContext, { delivery, message }: Admitted, startedAt: number): void {
  // Only the record waits to be built (most tasks end before it is needed); anything that can
  // throw, such as a message's invalid resultTtl, runs now, where the run can report it.
  run.metrics?.started(message, startedAt);
  const ttl = ttlOf(run, message);
  run.settler.started(message.id, () =>
    withReply(
      {
        record: record(message.id, 'STARTED', {
          task: message.task,
          retries: message.retries,
          meta: { hostname: run.hostname, pid: process.pid },
          date: startedAt,
        }),
        ttl,
      },
      message,
    ),
  );
  if (run.events.enabled)
    run.events.emit('task-started', message, {
      args: run.events.payload(message.args),
      wait: queueWait(message, startedAt),
    });
  if (logsAt(run.logger, 'info'))
    run.logger.info(
      { id: message.id, task: message.task, state: 'STARTED', delivery: delivery.deliveries },
      `Task ${message.task}[${message.id}] started`,
    );
}

/** Stores a state the task reported (progress, a custom state) as it runs. */
function reported(run: RunContext, message: TaskMessage, state: TaskState, meta: unknown): Promise<void> {
  run.events.emit('task-progress', message, { state });
  const stored = run.settler.store(
    entryFor(run, message, record(message.id, state, { task: message.task, retries: message.retries, meta })),
  );
  // Tasks often call progress() without awaiting it: a failed store is logged here, so it never
  // becomes an unhandled rejection (which would end the process); a caller that awaits still sees it.
  stored.catch((error: unknown) => {
    run.logger.warn(
      { id: message.id, task: message.task, state, error: toRemoteError(error) },
      `Task ${message.task}[${message.id}] could not store its ${state} state`,
    );
  });
  return stored;
}
