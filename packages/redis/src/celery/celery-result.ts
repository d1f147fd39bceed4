/**
 * Task records in the shape of Celery's Redis result backend: `celery-task-meta-<id>` holds
 * `{status, result, traceback, children, date_done, task_id}` as JSON. A failure's `result` is
 * `{exc_type, exc_message, exc_module}`, which Python's `AsyncResult.get()` raises as that exception
 * (a built-in one when the module is `builtins`, else a class Celery makes of that name).
 */
import { CeleriacError, type RemoteError, type TaskRecord } from '@celeriac/core';
import { assertKombuJson, parseKombuJson, stringifyKombuJson, withZone } from './kombu-json';

/** A Celery exception, as stored. */
export interface CeleryException {
  exc_type: string;
  exc_message: unknown;
  exc_module: string | null;
}

/** JavaScript errors that have a Python built-in of the same name and sense. */
const PYTHON_BUILTINS = new Set([
  'TypeError',
  'SyntaxError',
  'ReferenceError',
  'ValueError',
  'KeyError',
  'RuntimeError',
]);

/** Celeriac's errors that Celery has its own class for. */
const CELERY_NAMES: Record<string, [string, string]> = {
  TimeLimitExceededError: ['TimeLimitExceeded', 'billiard.exceptions'],
  SoftTimeLimitError: ['SoftTimeLimitExceeded', 'billiard.exceptions'],
  TaskRevokedError: ['TaskRevokedError', 'celery.exceptions'],
};

/** States whose `result` is an exception in Celery. */
const EXCEPTION_STATES = new Set(['FAILURE', 'RETRY', 'REVOKED']);
const READY = new Set(['SUCCESS', 'FAILURE', 'REVOKED']);

/** The Celery meta text of a record; `resultJson` is the result as JSON text, when already encoded. */
export function toCeleryMeta(record: TaskRecord, resultJson?: string): string {
  const date = READY.has(record.state) ? new Date(record.date).toISOString().replace(/Z$/, '') : null;
  const meta = {
    status: record.state,
    result: resultOf(record),
    traceback: record.error?.stack ?? null,
    children: [],
    date_done: date,
    task_id: record.id,
  };
  if (resultJson === undefined) assertKombuJson(meta.result, `the result of task ${record.id}`);
  if (resultJson === undefined || record.state !== 'SUCCESS') return stringifyKombuJson(meta);
  // The result is JSON text already: splice it in rather than parse and encode it again.
  const text = stringifyKombuJson({ ...meta, result: 0 });
  const at = text.indexOf('"result":0');
  return `${text.slice(0, at)}"result":${resultJson}${text.slice(at + '"result":0'.length)}`;
}

/** The Celery exception of a Celeriac error. */
export function toCeleryException(error: RemoteError): CeleryException {
  const celery = CELERY_NAMES[error.name];
  if (celery) return { exc_type: celery[0], exc_message: [error.message], exc_module: celery[1] };
  return {
    exc_type: error.name,
    exc_message: [error.message],
    exc_module: PYTHON_BUILTINS.has(error.name) ? 'builtins' : null,
  };
}

/**
 * The record of a Celery meta text.
 * @throws CeleriacError `CELERIAC_UNSUPPORTED_CONTENT` when the result is not JSON (a Python app
 * with `result_serializer = 'pickle'`).
 */
export function fromCeleryMeta(id: string, text: string): TaskRecord {
  let meta: { status?: unknown; result?: unknown; traceback?: unknown; date_done?: unknown };
  try {
    meta = parseKombuJson(text) as typeof meta;
  } catch (error) {
    throw new CeleriacError(
      'CELERIAC_UNSUPPORTED_CONTENT',
      `The result of task ${id} is not JSON; Celeriac reads JSON only (pickle would run code from Redis). Set ` +
        `result_serializer = 'json' on the Python side.`,
      { cause: error },
    );
  }
  const state = typeof meta.status === 'string' ? meta.status : 'PENDING';
  const date = typeof meta.date_done === 'string' ? Date.parse(withZone(meta.date_done)) : Date.now();
  const record: TaskRecord = { id, state, date: Number.isFinite(date) ? date : Date.now() };
  if (state === 'SUCCESS') record.result = meta.result;
  else if (EXCEPTION_STATES.has(state)) {
    const error = remoteErrorOf(meta.result, meta.traceback);
    record.error = error;
    if (state === 'REVOKED') record.meta = { reason: error.message || 'revoked' };
  } else if (meta.result !== null && meta.result !== undefined) record.meta = meta.result;
  return record;
}

/** The `result` field Celery stores for a record: the value, or the exception of a failure. */
export function resultOf(record: TaskRecord): unknown {
  if (record.state === 'SUCCESS') return record.result ?? null;
  if (record.state === 'REVOKED') {
    const reason = (record.meta as { reason?: unknown } | undefined)?.reason;
    return toCeleryException({ name: 'TaskRevokedError', message: typeof reason === 'string' ? reason : 'revoked' });
  }
  if (record.error && EXCEPTION_STATES.has(record.state)) return toCeleryException(record.error);
  return record.meta ?? null;
}

function remoteErrorOf(result: unknown, traceback: unknown): RemoteError {
  const exception = (typeof result === 'object' && result !== null ? result : {}) as Partial<CeleryException>;
  const parts: unknown[] = Array.isArray(exception.exc_message) ? exception.exc_message : [exception.exc_message ?? ''];
  const message = parts.map((part) => (typeof part === 'string' ? part : JSON.stringify(part))).join(', ');
  const error: RemoteError = { name: String(exception.exc_type ?? 'Exception'), message };
  if (typeof traceback === 'string') error.stack = traceback;
  return error;
}
