/**
 * Celeriac's events as Celery events, so `celery events`, Flower and Python's `app.events.Receiver`
 * see Celeriac workers and their tasks. Celery sends each event as a dict on the `celeryev` fanout
 * exchange (on Redis), its routing key the type with a dot (`task.succeeded`); every event carries
 * `hostname`, `utcoffset`, `pid`, `clock` (a Lamport clock) and `timestamp` (epoch seconds), and each
 * type its own fields, named as Celery's worker names them. Events Celery has no type for
 * (`task-progress`) are not sent; an expired task is `task-revoked` with `expired`, as in Celery.
 */
import { hostname, loadavg } from 'node:os';
import type { CeleriacEvent, EventError } from '@celeriac/core';

/** Celery's event exchange. */
export const EVENT_EXCHANGE = 'celeryev';

/** How often a Celeriac worker beats, in seconds (Celery's `freq`: a receiver expects the next beat by then). */
const HEARTBEAT_FREQ = 5;

/** A Celery event: its routing key and its dict. */
export interface CeleryEvent {
  readonly routingKey: string;
  readonly body: Record<string, unknown>;
}

/** Sends one Celery event where Celery's receivers listen (the transport's way: Redis, RabbitMQ). */
export type CeleryEventSender = (event: CeleryEvent) => Promise<unknown>;

/** Celery's Lamport clock of this process: each event a higher value. */
let clock = 0;

/** The Celery event for a Celeriac event, or undefined when Celery has no such event. */
export function toCeleryEvent(event: CeleriacEvent): CeleryEvent | undefined {
  const fields = ownFields(event);
  if (!fields) return undefined;
  const type = event.type === 'task-expired' ? 'task-revoked' : event.type;
  clock += 1;
  const body = {
    // A sender has no worker hostname: Celery names it `gen<pid>@<host>`.
    hostname: event.hostname ?? `gen${event.pid ?? process.pid}@${hostname()}`,
    // Celery's utcoffset(): hours west of UTC, as Python's time.timezone counts them.
    utcoffset: Math.floor(new Date(event.timestamp).getTimezoneOffset() / 60),
    pid: event.pid ?? process.pid,
    clock,
    ...fields,
    timestamp: event.timestamp / 1000,
    type,
  };
  return { routingKey: type.replace('-', '.'), body };
}

/** The fields of Celery's event of this type (beyond those every event has). */
function ownFields(event: CeleriacEvent): Record<string, unknown> | undefined {
  switch (event.type) {
    case 'task-sent':
      return {
        uuid: event.taskId,
        name: event.task,
        args: plain(event.args),
        kwargs: '',
        retries: event.retries ?? 0,
        eta: event.eta === undefined ? null : new Date(event.eta).toISOString(),
        expires: null,
        root_id: event.rootId ?? event.taskId,
        parent_id: event.parentId ?? null,
        queue: event.queue,
        exchange: '',
        routing_key: event.queue,
      };
    case 'task-received':
      return { uuid: event.taskId, name: event.task, args: '', kwargs: '', retries: event.retries ?? 0 };
    case 'task-started':
      return { uuid: event.taskId };
    case 'task-succeeded':
      return { uuid: event.taskId, result: plain(event.result), runtime: event.runtime / 1000 };
    case 'task-failed':
      return { uuid: event.taskId, exception: pythonRepr(event.error), traceback: '', runtime: seconds(event.runtime) };
    case 'task-retried':
      return { uuid: event.taskId, exception: pythonRepr(event.error), traceback: '' };
    case 'task-revoked':
      return { uuid: event.taskId, terminated: event.reason === 'terminated', signum: null, expired: false };
    case 'task-expired':
      return { uuid: event.taskId, terminated: false, signum: null, expired: true };
    case 'task-rejected':
      return { uuid: event.taskId, requeue: false };
    case 'task-progress':
      return undefined;
    case 'worker-online':
      return workerFields(0, 0);
    case 'worker-heartbeat':
      return { ...workerFields(event.active, event.processed), loadavg: event.load.map(round2) };
    case 'worker-offline':
      return workerFields(0, event.processed);
  }
}

/** What Celery's worker-online, -heartbeat and -offline carry. */
function workerFields(active: number, processed: number): Record<string, unknown> {
  return {
    freq: HEARTBEAT_FREQ,
    active,
    processed,
    loadavg: loadavg().map(round2),
    sw_ident: 'celeriac',
    sw_ver: '',
    sw_sys: process.platform === 'linux' ? 'Linux' : process.platform,
  };
}

/**
 * A payload (the codec's text, present with `events: { payloads: true }`) as the plain JSON of its value,
 * as a Celery event shows a value; one cut to the payload limit stays as it is.
 */
function plain(payload: string | undefined): string {
  if (payload === undefined) return '';
  try {
    const encoded = JSON.parse(payload) as unknown;
    const isWrapped = typeof encoded === 'object' && encoded !== null && 'json' in encoded;
    return isWrapped ? JSON.stringify(encoded.json) : payload;
  } catch {
    return payload;
  }
}

/** An error as Python's repr writes an exception: `TypeError('bad input')`. */
function pythonRepr(error: EventError): string {
  return `${error.name}('${error.message.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}')`;
}

function seconds(ms: number | undefined): number | null {
  return ms === undefined ? null : ms / 1000;
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
