/**
 * Errors in Celery's shape: a failure's `result` is `{exc_type, exc_message, exc_module}`, which
 * Python's `AsyncResult.get()` raises as that exception (a built-in one when the module is
 * `builtins`, else a class Celery makes of that name).
 */
import type { RemoteError } from '@celeriac/core';

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

/** The remote error of a Celery exception (as Python stored it) and its traceback. */
export function remoteErrorOf(result: unknown, traceback: unknown): RemoteError {
  const exception = (typeof result === 'object' && result !== null ? result : {}) as Partial<CeleryException>;
  const parts: unknown[] = Array.isArray(exception.exc_message) ? exception.exc_message : [exception.exc_message ?? ''];
  const message = parts.map((part) => (typeof part === 'string' ? part : JSON.stringify(part))).join(', ');
  const error: RemoteError = { name: String(exception.exc_type ?? 'Exception'), message };
  if (typeof traceback === 'string') error.stack = traceback;
  return error;
}
