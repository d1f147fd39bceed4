/**
 * Takes one delivery from reservation to its end: decode, refuse what must not run (bad signature,
 * revoked, expired, unknown task), run, then store the outcome and ack, retry or dead-letter.
 */
import {
  CeleriacError,
  decodeMessage,
  encodeMessage,
  optionalMilliseconds,
  toRemoteError,
  UnknownTaskError,
  type Broker,
  type Delivery,
  type StoreEntry,
  type TaskDefinition,
  type TaskMessage,
  type TaskRecord,
  type TaskState,
} from '@celeriac/core';
import { execute, type ExecutionResult } from './execute';
import type { Logger } from './logger';
import type { RunSignal } from './run-signal';
import { decideRetry } from './retry-policy';
import type { Settler } from './settler';
import type { WorkerApp } from './worker-app';

/** What running a delivery needs from the worker. */
export interface RunContext {
  app: WorkerApp;
  /** The broker, as the worker opened it (the app's getter refuses calls once the app is closing). */
  broker: Broker;
  settler: Settler;
  logger: Logger;
  hostname: string;
  isRevoked(id: string): boolean;
  /** Called once the task function is done (or will not run), so its slot can take the next task. */
  released(id: string): void;
}

/**
 * Runs one delivery to its end; throws only when settling failed (the lease then brings the task
 * back). `stop` aborts the run (terminate, shutdown).
 */
export async function runDelivery(run: RunContext, delivery: Delivery, stop: RunSignal): Promise<void> {
  try {
    await prepareAndRun(run, delivery, stop);
  } finally {
    run.released(delivery.id);
  }
}

async function prepareAndRun(run: RunContext, delivery: Delivery, stop: RunSignal): Promise<void> {
  const { app, logger } = run;
  let message: TaskMessage;
  try {
    message = decodeMessage(app.codec, delivery.body, { secret: app.options.secret });
  } catch (error) {
    const reason = `undecodable message: ${(error as Error).message}`;
    logger.error({ id: delivery.id, queue: delivery.queue }, `Dead-lettering message ${delivery.id}: ${reason}`);
    await run.broker.deadLetter(delivery, reason);
    // A forged message must not be able to write over a real task's record.
    if ((error as CeleriacError).code !== 'CELERIAC_BAD_SIGNATURE') {
      await run.settler.store(entryFor(run, undefined, record(delivery.id, 'FAILURE', { error: toRemoteError(error) })));
    }
    return;
  }
  if (run.isRevoked(message.id)) return revoke(run, delivery, message, 'revoked');
  if (message.expires !== undefined && message.expires <= Date.now()) return revoke(run, delivery, message, 'expired');
  const definition = app.registry.get(message.task);
  if (!definition) {
    const error = new UnknownTaskError(message.task);
    logger.error({ id: message.id, task: message.task }, error.message);
    await run.settler.store(entryFor(run, message, record(message.id, 'FAILURE', { task: message.task, error: toRemoteError(error) })));
    await run.broker.deadLetter(delivery, `unknown task ${message.task}`);
    return;
  }
  const maxRetries = message.maxRetries ?? definition.options.retries ?? 0;
  run.settler
    .store(entryFor(run, message, record(message.id, 'STARTED', { task: message.task, retries: message.retries, meta: { hostname: run.hostname, pid: process.pid } })))
    .catch((error: unknown) => logger.warn({ id: message.id, error: toRemoteError(error) }, 'Could not store the STARTED state'));
  // A run abandoned at its hard limit may still report; nothing may overwrite its final record.
  let finished = false;
  const started = Date.now();
  logger.debug({ id: message.id, task: message.task }, `Task ${message.task}[${message.id}] started`);
  const result = await execute({
    message,
    definition,
    deliveries: delivery.deliveries,
    maxRetries,
    stop,
    softTimeLimit: message.softTimeLimit ?? optionalMilliseconds(definition.options.softTimeLimit, 'softTimeLimit'),
    timeLimit: message.timeLimit ?? optionalMilliseconds(definition.options.timeLimit, 'timeLimit'),
    report: async (state: TaskState, meta: unknown) => {
      if (finished) return;
      await run.settler.store(entryFor(run, message, record(message.id, state, { task: message.task, retries: message.retries, meta })));
    },
  });
  finished = true;
  run.released(delivery.id);
  // Handed back to the queue at shutdown: another delivery owns the outcome now.
  if (stop.abandoned) return;
  const duration = Date.now() - started;
  if (stop.aborted && run.isRevoked(message.id)) return revoke(run, delivery, message, 'terminated');
  await settle(run, delivery, message, definition, maxRetries, checkResult(run, message, result), duration);
}

async function settle(
  run: RunContext,
  delivery: Delivery,
  message: TaskMessage,
  definition: TaskDefinition,
  maxRetries: number,
  result: ExecutionResult & { final?: boolean },
  duration: number,
): Promise<void> {
  const { app, logger } = run;
  const fields = { id: message.id, task: message.task, duration };
  if (result.kind === 'success') {
    const ignore = message.ignoreResult ?? definition.options.ignoreResult ?? false;
    const value = ignore ? {} : { result: result.value };
    await run.settler.finish(delivery, entryFor(run, message, record(message.id, 'SUCCESS', { task: message.task, retries: message.retries, ...value })));
    logger.info({ ...fields, state: 'SUCCESS' }, `Task ${message.task}[${message.id}] succeeded in ${duration} ms`);
    await callHook(run, 'onSuccess', () => definition.options.onSuccess?.(result.value, message.id));
    return;
  }
  const decision = decideRetry({ error: result.error, taskName: message.task, options: definition.options, retries: message.retries, maxRetries, final: result.final === true });
  if (decision.retry) {
    const body = encodeMessage(app.codec, { ...message, retries: message.retries + 1 }, { secret: app.options.secret, maxBytes: app.options.maxMessageSize });
    await run.settler.store(entryFor(run, message, record(message.id, 'RETRY', { task: message.task, retries: message.retries, error: toRemoteError(decision.error), meta: { countdown: decision.delay } })));
    await run.broker.requeue(delivery, { delay: decision.delay, body });
    logger.info({ ...fields, state: 'RETRY', delay: decision.delay }, `Task ${message.task}[${message.id}] failed; retry ${message.retries + 1}/${maxRetries} in ${decision.delay} ms`);
    await callHook(run, 'onRetry', () => definition.options.onRetry?.(decision.error, message.id));
    return;
  }
  await run.settler.finish(delivery, entryFor(run, message, record(message.id, 'FAILURE', { task: message.task, retries: message.retries, error: toRemoteError(decision.error) })));
  logger.error({ ...fields, state: 'FAILURE', error: toRemoteError(decision.error) }, `Task ${message.task}[${message.id}] failed`);
  await callHook(run, 'onFailure', () => definition.options.onFailure?.(decision.error, message.id));
}

/** A value that cannot be stored turns the run into a failure that is not retried (it would fail again). */
function checkResult(run: RunContext, message: TaskMessage, result: ExecutionResult): ExecutionResult & { final?: boolean } {
  if (result.kind !== 'success') return result;
  try {
    run.app.codec.assertSerializable(result.value, `the result of ${message.task}`);
    return result;
  } catch (error) {
    return { kind: 'failure', error, timedOut: false, final: true };
  }
}

async function revoke(run: RunContext, delivery: Delivery, message: TaskMessage, reason: string): Promise<void> {
  run.logger.info({ id: message.id, task: message.task, reason }, `Task ${message.task}[${message.id}] not run: ${reason}`);
  await run.settler.finish(delivery, entryFor(run, message, record(message.id, 'REVOKED', { task: message.task, meta: { reason } })));
}

async function callHook(run: RunContext, hook: string, call: () => void | Promise<void> | undefined): Promise<void> {
  try {
    await call();
  } catch (error) {
    run.logger.error({ hook, error: toRemoteError(error) }, `The ${hook} hook threw; the task's outcome stands`);
  }
}

function record(id: string, state: TaskState, fields: Partial<TaskRecord>): TaskRecord {
  return { id, state, date: Date.now(), ...fields };
}

function entryFor(run: RunContext, message: TaskMessage | undefined, taskRecord: TaskRecord): StoreEntry {
  const definitionTtl = message ? run.app.registry.get(message.task)?.options.resultTtl : undefined;
  const ttl = message?.resultTtl ?? optionalMilliseconds(definitionTtl, 'resultTtl') ?? run.app.options.resultTtl;
  const entry: StoreEntry = { record: taskRecord, ttl };
  if (message?.replyTo !== undefined) entry.replyTo = message.replyTo;
  return entry;
}

