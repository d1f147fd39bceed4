/**
 * Task records in the shape of Celery's Redis result backend: `celery-task-meta-<id>` holds
 * `{status, result, traceback, children, date_done, task_id}` as JSON, with `name` and `retries` as
 * Celery 5 writes them under `result_extended`; a failure's `result` is a Celery exception
 * (celery-exception.ts). What of a Celeriac record Celery has no field for rides in `x_celeriac`,
 * which Python ignores: superjson's metadata of a value richer than JSON (a Date, a Map, a BigInt),
 * the metadata of a ready state, the error's own fields, the date of a state Celery does not date.
 * Python reads plain JSON; Celeriac reads back the record it stored, value for value.
 */
import {
  CeleriacError,
  SerializationError,
  type Codec,
  type RemoteError,
  type SerializedValue,
  type TaskRecord,
} from '@celeriac/core';
import { isReadyState } from '@celeriac/core/internal';
import { remoteErrorOf, toCeleryException } from './celery-exception';
import { assertKombuJson, stringifyKombuJson, untagAll, withZone } from './kombu-json';

/** What Celeriac keeps of a record beside Celery's fields: `x_celeriac`, encoded by the codec. */
interface CeleriacFields {
  /** superjson's metadata of the `result` field's value, when that value is richer than JSON. */
  result?: unknown;
  /** The record's metadata, when `result` holds something else (the value, or an exception). */
  meta?: unknown;
  /** The record's error, without its stack: that is the traceback. */
  error?: Omit<RemoteError, 'stack'>;
  /** The record's date, for a state Celery gives no `date_done`. */
  date?: number;
}

/** A result record as Celery's JSON holds it (any field may be missing from one Python wrote). */
interface CeleryMeta {
  status?: unknown;
  result?: unknown;
  traceback?: unknown;
  date_done?: unknown;
  name?: unknown;
  retries?: unknown;
  x_celeriac?: unknown;
}

/** States whose `result` is an exception in Celery. */
const EXCEPTION_STATES = new Set(['FAILURE', 'RETRY', 'REVOKED']);

/** True for the states whose metadata is Celery's `result` (custom states, as `update_state` writes them). */
function metaIsResult(state: string): boolean {
  return state !== 'SUCCESS' && !EXCEPTION_STATES.has(state);
}

/**
 * The Celery meta text of a record; `resultJson` is the result as JSON text, when already encoded.
 * @throws SerializationError when the result or metadata holds a value the codec cannot encode.
 */
export function toCeleryMeta(record: TaskRecord, codec: Codec, resultJson?: string): string {
  const ready = isReadyState(record.state);
  const spliced = resultJson !== undefined && record.state === 'SUCCESS';
  const value = spliced ? { json: 0 } : encodeValue(codec, resultOf(record), `the result of task ${record.id}`);
  const fields: CeleriacFields = {};
  if (value.meta !== undefined) fields.result = value.meta;
  if (record.meta !== undefined && !metaIsResult(record.state)) fields.meta = record.meta;
  if (record.error) {
    const { stack, ...error } = record.error;
    fields.error = error;
  }
  if (!ready) fields.date = record.date;
  const meta = {
    status: record.state,
    result: value.json ?? null,
    traceback: record.error?.stack ?? null,
    children: [],
    date_done: ready ? new Date(record.date).toISOString().replace(/Z$/, '') : null,
    task_id: record.id,
    ...(record.task === undefined ? {} : { name: record.task }),
    ...(record.retries === undefined ? {} : { retries: record.retries }),
    x_celeriac: codec.serialize(fields, () => `the metadata of task ${record.id}`),
  };
  const text = stringifyKombuJson(meta);
  if (!spliced) return text;
  // The result is JSON text already: splice it in rather than parse and encode it again.
  const at = text.indexOf('"result":0');
  return `${text.slice(0, at)}"result":${resultJson}${text.slice(at + '"result":0'.length)}`;
}

/**
 * The record of a Celery meta text: the one Celeriac stored when it has `x_celeriac`, else what
 * Python's fields say.
 * @throws CeleriacError `CELERIAC_UNSUPPORTED_CONTENT` when the text is not JSON (a Python app
 * with `result_serializer = 'pickle'`).
 */
export function fromCeleryMeta(id: string, text: string, codec: Codec): TaskRecord {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CeleriacError(
      'CELERIAC_UNSUPPORTED_CONTENT',
      `The result of task ${id} is not JSON; Celeriac reads JSON only (pickle would run code from Redis). Set ` +
        `result_serializer = 'json' on the Python side.`,
      { cause: error },
    );
  }
  const meta: CeleryMeta = typeof parsed === 'object' && parsed !== null ? parsed : {};
  const record: TaskRecord = { id, state: typeof meta.status === 'string' ? meta.status : 'PENDING', date: 0 };
  if (typeof meta.name === 'string') record.task = meta.name;
  if (typeof meta.retries === 'number') record.retries = meta.retries;
  if (isSerialized(meta.x_celeriac)) {
    readCeleriacFields(record, meta, codec.deserialize(meta.x_celeriac) as CeleriacFields, codec);
  } else readPythonFields(record, untagAll(meta) as CeleryMeta);
  return record;
}

/**
 * The `result` field Celery stores for a record: the value, the exception of a failure, or the
 * metadata (undefined when there is none, or no value: written as null, read back as it was).
 */
export function resultOf(record: TaskRecord): unknown {
  if (record.state === 'SUCCESS') return record.result;
  if (record.state === 'REVOKED') {
    const reason = (record.meta as { reason?: unknown } | undefined)?.reason;
    return toCeleryException({ name: 'TaskRevokedError', message: typeof reason === 'string' ? reason : 'revoked' });
  }
  if (record.error && EXCEPTION_STATES.has(record.state)) return toCeleryException(record.error);
  return record.meta;
}

/** The record Celeriac stored: `result` read back with its superjson metadata, the rest from `fields`. */
function readCeleriacFields(record: TaskRecord, meta: CeleryMeta, fields: CeleriacFields, codec: Codec): void {
  record.date = fields.date ?? dateOf(meta.date_done);
  const value =
    fields.result === undefined ? meta.result : codec.deserialize({ json: meta.result, meta: fields.result });
  if (value !== undefined && record.state === 'SUCCESS') record.result = value;
  if (value !== undefined && metaIsResult(record.state)) record.meta = value;
  if (fields.meta !== undefined) record.meta = fields.meta;
  if (fields.error) {
    record.error = { ...fields.error };
    if (typeof meta.traceback === 'string') record.error.stack = meta.traceback;
  }
}

/** The record of what Python stored: a failure's exception as the error, a custom state's `result` as the metadata. */
function readPythonFields(record: TaskRecord, meta: CeleryMeta): void {
  record.date = dateOf(meta.date_done);
  if (record.state === 'SUCCESS') record.result = meta.result;
  else if (EXCEPTION_STATES.has(record.state)) {
    const error = remoteErrorOf(meta.result, meta.traceback);
    record.error = error;
    if (record.state === 'REVOKED') record.meta = { reason: error.message || 'revoked' };
  } else if (meta.result !== null && meta.result !== undefined) record.meta = meta.result;
}

/**
 * superjson's JSON and metadata of a value. A Buffer, which the codec has no place for unless the app
 * registered one, is written as kombu 5.2 writes bytes, as text (read back as a string).
 */
function encodeValue(codec: Codec, value: unknown, label: string): SerializedValue {
  try {
    return codec.serialize(value, label);
  } catch (error) {
    if (error instanceof SerializationError && isKombuJson(value, label)) return { json: value };
    throw error;
  }
}

function isKombuJson(value: unknown, label: string): boolean {
  try {
    assertKombuJson(value, label);
    return true;
  } catch {
    return false;
  }
}

function isSerialized(value: unknown): value is SerializedValue {
  return typeof value === 'object' && value !== null && 'json' in value;
}

/** `date_done` as epoch ms: Python writes naive UTC datetimes, read as UTC; now when there is none. */
function dateOf(dateDone: unknown): number {
  const date = typeof dateDone === 'string' ? Date.parse(withZone(dateDone)) : NaN;
  return Number.isFinite(date) ? date : Date.now();
}
