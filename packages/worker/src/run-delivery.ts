/**
 * Takes one delivery from reservation to its end: decode, refuse what must not run (bad signature,
 * revoked, expired, unknown task), run, then store the outcome and ack, retry or dead-letter.
 */
import {
  CeleriacError,
  InvalidMessageError,
  RecordsRefusedError,
  UnknownTaskError,
  WorkerLostError,
  type Delivery,
  type EventError,
  type Failure,
  type RemoteError,
  type StoreEntry,
  type TaskRecord,
  type TaskState,
} from '@celeriac/core';
import {
  continueFlow,
  logsAt,
  failFlow,
  type FlowContext,
  optionalMilliseconds,
  toRemoteError,
  type TaskDefinition,
  type RevokeReason,
  type TaskMessage,
} from '@celeriac/core/internal';
import { awaitDependencies } from './dependencies';
import { queueWait } from './metrics/task-metrics';
import type { DeliveryReading } from './read-delivery';
import type { RunContext } from './run-context';
import type { RunSignal } from './run-signal';
import { successValue, type TaskJob, type TaskOutcome } from './run-task';
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
  if (reading.kind === 'too-large') {
    const tooLarge = reading.size;
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
      await run.settler.store(
        entryFor(run, undefined, record(delivery.id, 'FAILURE', { error: toRemoteError(error) })),
      );
    }
    return;
  }
  if (reading.kind === 'unreadable') {
    const { error } = reading;
    const reason =
      error instanceof InvalidMessageError
        ? `invalid message: ${error.problem}`
        : `undecodable message: ${(error as Error).message}`;
    logger.error({ id: delivery.id, queue: delivery.queue }, `Dead-lettering message ${delivery.id}: ${reason}`);
    await run.broker.deadLetter(delivery, reason);
    rejected(run, delivery, undefined, reason);
    // A forged or replayed message must not be able to write over a real task's record.
    const code = (error as CeleriacError).code;
    if (code !== 'CELERIAC_BAD_SIGNATURE' && code !== 'CELERIAC_SIGNATURE_EXPIRED') {
      await run.settler.store(
        entryFor(run, undefined, record(delivery.id, 'FAILURE', { error: toRemoteError(error) })),
      );
    }
    return;
  }
  const { message } = reading;
  if (run.isRevoked(message.id)) return notRun(run, delivery, message, 'revoked');
  if (message.expires !== undefined && message.expires <= Date.now()) return notRun(run, delivery, message, 'expired');
  const definition = app.registry.get(message.task);
  if (!definition) {
    const error = toRemoteError(new UnknownTaskError(message.task));
    logger.error({ id: message.id, task: message.task }, error.message);
    // A run span that ends FAILURE with the error: the trace says why the task never ran.
    return traced(startRunSpan(message, delivery.deliveries), 'FAILURE', error, async () => {
      await run.settler.store(entryFor(run, message, record(message.id, 'FAILURE', { task: message.task, error })));
      if (message.flow) await failFlow(flowContext(run), message, { state: 'FAILURE', error });
      await run.broker.deadLetter(delivery, `unknown task ${message.task}`);
      rejected(run, delivery, message, `unknown task ${message.task}`);
    });
  }
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
  const span = startRunSpan(message, delivery.deliveries);
  if (span?.traceparent !== undefined) job.traceparent = span.traceparent;
  const outcome = await run.runner.run(job, delivery.body);
  finished = true;
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
  const duration = began === undefined ? 0 : Date.now() - began;
  await traced(span, spanOutcome(outcome), outcome.kind === 'success' ? undefined : outcome.error, () =>
    settle(run, delivery, message, definition, maxRetries, outcome, duration),
  );
}

async function settle(
  run: RunContext,
  delivery: Delivery,
  message: TaskMessage,
  definition: TaskDefinition,
  maxRetries: number,
  outcome: TaskOutcome,
  duration: number,
): Promise<void> {
  const { app, logger } = run;
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
        continueFlow(context, message, successValue(outcome)),
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
        `Task ${message.task}[${message.id}] failed; retry ${message.retries + 1}/${maxRetries} in ${outcome.delay} ms`,
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
        if (message.flow) await failFlow(flowContext(run), message, { state: 'FAILURE', error: outcome.error });
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
async function settleStep(
  run: RunContext,
  delivery: Delivery,
  message: TaskMessage,
  entry: StoreEntry,
  moveOn: (context: FlowContext) => Promise<void>,
  failure?: Failure,
): Promise<void> {
  if (!message.flow) return run.settler.finish(delivery, entry, failure);
  await run.settler.store(entry);
  await moveOn(flowContext(run));
  await run.settler.finish(delivery, undefined, failure);
}

/**
 * Stores a FAILURE, settles the workflow steps that will not run, and acks (with `failure`, into the
 * failed-task registry).
 */
function fail(
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
    (context) => failFlow(context, message, { state: 'FAILURE', error }),
    failure,
  );
}

/**
 * Revokes a task that will not run, under a run span that ends `REVOKED` and says why: its trace
 * shows the worker took it and why it never ran.
 */
function notRun(run: RunContext, delivery: Delivery, message: TaskMessage, reason: RevokeReason): Promise<void> {
  const span = startRunSpan(message, delivery.deliveries);
  span?.revoked(reason);
  return traced(span, 'REVOKED', undefined, () => revoke(run, delivery, message, reason));
}

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
    failFlow(context, message, { state: 'REVOKED', reason: `step ${message.id} ${reason}` }),
  );
}

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
  if (message?.flow) await failFlow(flowContext(run), message, { state: 'FAILURE', error });
}

/** Settles the workflow after a task that was dead-lettered without running to an end. */
export async function failDeadLettered(run: RunContext, message: TaskMessage, error: RemoteError): Promise<void> {
  if (message.flow) await failFlow(flowContext(run), message, { state: 'FAILURE', error });
}

/** Emits `task-rejected`: the task was dead-lettered. */
function rejected(run: RunContext, delivery: Delivery, message: TaskMessage | undefined, reason: string): void {
  run.metrics?.deadLettered(delivery.queue, message);
  run.events.emit('task-rejected', message ?? delivery, { reason });
}

/** An error as events carry it: its name and message. */
function brief(error: RemoteError): EventError {
  return { name: error.name, message: error.message };
}

function flowContext(run: RunContext): FlowContext {
  return {
    app: run.app,
    store: (entries) => Promise.all(entries.map((entry) => run.settler.store(entry))).then(() => undefined),
    ttlOf: (message) => ttlOf(run, message),
  };
}

/** A record of `id` in `state`, dated now unless `fields` says when. */
function record(id: string, state: TaskState, fields: Partial<TaskRecord>): TaskRecord {
  return { id, state, date: Date.now(), ...fields };
}

function ttlOf(run: RunContext, message: TaskMessage | undefined): number {
  return message ? run.app.resultTtlOf(message.task, message.resultTtl) : run.app.options.resultTtl;
}

function entryFor(run: RunContext, message: TaskMessage | undefined, taskRecord: TaskRecord): StoreEntry {
  return withReply({ record: taskRecord, ttl: ttlOf(run, message) }, message);
}

/** Addresses an entry's notice to the client that sent the task, if it asked for one. */
function withReply(entry: StoreEntry, message: TaskMessage | undefined): StoreEntry {
  if (message?.replyTo !== undefined) entry.replyTo = message.replyTo;
  return entry;
}
