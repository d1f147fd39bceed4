/**
 * The job a runner runs for one message: its time limits and retries, and the hooks the task calls as
 * it runs (began, progress). It notes when the task function began, so the outcome's duration is the
 * task's own and not the time a pool child held the job queued.
 */
import type { Delivery, TaskState } from '@celeriac/core';
import {
  logsAt,
  optionalMilliseconds,
  toRemoteError,
  type TaskDefinition,
  type TaskMessage,
} from '@celeriac/core/internal';
import { queueWait } from '../metrics/task-metrics';
import type { RunContext } from '../run-context';
import type { RunSignal } from '../run-signal';
import type { TaskJob } from '../task-job';
import { entryFor, record, ttlOf, withReply } from './records';

/** A job for the runner, and what its run learned. */
export interface JobRun {
  readonly job: TaskJob;
  /** The most retries the task gets (the message's, else the task's, else none). */
  readonly maxRetries: number;
  /** Marks the run ended: a run abandoned at its hard limit may still report, and must not overwrite its record. */
  readonly end: () => void;
  /** How long the task function has run, ms (0 when it never began). */
  readonly duration: () => number;
}

/** The job that runs `message` with `definition`; `stop` aborts it. */
export function jobRun(
  run: RunContext,
  delivery: Delivery,
  { message, definition, stop }: { message: TaskMessage; definition: TaskDefinition; stop: RunSignal },
): JobRun {
  const { logger } = run;
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
      // Only the record waits to be built (most tasks end before it is needed); anything that can
      // throw, such as a message's invalid resultTtl, runs now, where the run can report it.
      const startedAt = Date.now();
      began = startedAt;
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
      if (logsAt(logger, 'info'))
        logger.info(
          { id: message.id, task: message.task, state: 'STARTED', delivery: delivery.deliveries },
          `Task ${message.task}[${message.id}] started`,
        );
    },
    report: (state: TaskState, meta: unknown) => {
      if (finished) return Promise.resolve();
      run.events.emit('task-progress', message, { state });
      const stored = run.settler.store(
        entryFor(run, message, record(message.id, state, { task: message.task, retries: message.retries, meta })),
      );
      // Tasks often call progress() without awaiting it: a failed store is logged here, so it never
      // becomes an unhandled rejection (which would end the process); a caller that awaits still sees it.
      stored.catch((error: unknown) => {
        logger.warn(
          { id: message.id, task: message.task, state, error: toRemoteError(error) },
          `Task ${message.task}[${message.id}] could not store its ${state} state`,
        );
      });
      return stored;
    },
  };
  return {
    job,
    maxRetries,
    end: () => {
      finished = true;
    },
    duration: () => (began === undefined ? 0 : Date.now() - began),
  };
}
