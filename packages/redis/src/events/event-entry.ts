/**
 * How a batch of events is stored in one stream entry, compactly: each event is a row (an array)
 * holding its values in a fixed order per type, without field names; what every event of the batch
 * shares (the worker's hostname and pid, and a base time) is written once, beside the rows. A
 * worker's batch of a hundred settled tasks then stores about half the bytes of the same events as
 * JSON objects (bench/README.md has the figures), and reads back into the same typed events.
 *
 * Entry fields:
 * - `rows`: a JSON array of rows, `[type, ms after base, ...values]`. Task events' values start with
 *   `taskId, task, queue, retries`, then the type's own fields ({@link OWN_FIELDS}); worker events have
 *   only their own fields. Missing values are `null`, and trailing missing values are left out.
 * - `base`: the time (epoch ms) the rows count from.
 * - `hostname`, `pid`: the worker that emitted every event of the entry (absent for a sender's).
 * - `e` (entries written before rows): a JSON array of event objects, still read.
 */
import type { CeleriacEvent, CeleriacEventType, StoredEvent } from '@celeriac/core';

/** Values every task event stores after its type and time. */
const TASK_FIELDS = ['taskId', 'task', 'queue', 'retries'] as const;

/** The fields of each type beyond the shared ones, in the order its rows store them. */
const OWN_FIELDS = {
  'task-sent': ['eta', 'args', 'parentId', 'rootId'],
  'task-received': ['delivery'],
  // `wait` after `args`: rows keep their columns' order, and rows written before it still read.
  'task-started': ['args', 'wait'],
  'task-progress': ['state'],
  'task-succeeded': ['runtime', 'result'],
  'task-failed': ['runtime', 'error'],
  'task-retried': ['runtime', 'error', 'delay'],
  'task-revoked': ['reason'],
  'task-rejected': ['reason'],
  'task-expired': [],
  'worker-online': ['queues', 'pool', 'concurrency'],
  'worker-heartbeat': ['active', 'processed', 'load', 'rss', 'busy'],
  'worker-offline': ['processed'],
} as const satisfies { [T in CeleriacEventType]: readonly OwnField<T>[] };

/** The fields of an event of type `T` that its row stores after the shared ones. */
type OwnField<T extends CeleriacEventType> = Exclude<
  keyof Extract<CeleriacEvent, { type: T }>,
  'type' | 'timestamp' | 'hostname' | 'pid' | (typeof TASK_FIELDS)[number]
>;

/** Fields an event type has and its row would drop; `never` while {@link OWN_FIELDS} lists them all. */
type Unstored = {
  [T in CeleriacEventType]: Exclude<OwnField<T>, (typeof OWN_FIELDS)[T][number]>;
}[CeleriacEventType];

// Fails to compile when an event type gains a field that OWN_FIELDS does not store.
const everyFieldStored: [Unstored] extends [never] ? true : Unstored = true;
void everyFieldStored;

/** Each type's stored values after `[type, time]`, in order. */
const COLUMNS = new Map<string, readonly string[]>(
  Object.entries(OWN_FIELDS).map(([type, own]) => [type, type.startsWith('task-') ? [...TASK_FIELDS, ...own] : own]),
);

/** The stream fields and values (XADD's field-value list) storing `events`, oldest first. */
export function encodeEventEntry(events: readonly CeleriacEvent[]): string[] {
  const first = events[0];
  if (first === undefined) return [];
  const { hostname, pid } = first;
  const base = first.timestamp;
  const rows: unknown[][] = [];
  for (const event of events) {
    const columns = COLUMNS.get(event.type);
    // Events of several workers in one entry (none of Celeriac's writers makes one) keep their own form.
    if (columns === undefined || event.hostname !== hostname || event.pid !== pid) return objectEntry(events);
    const row: unknown[] = [event.type, event.timestamp - base];
    const values = event as unknown as Record<string, unknown>;
    for (const column of columns) row.push(values[column] ?? null);
    while (row.length > 2 && row[row.length - 1] === null) row.pop();
    rows.push(row);
  }
  const fields = ['rows', JSON.stringify(rows), 'base', String(base)];
  if (hostname !== undefined) fields.push('hostname', hostname, 'pid', String(pid));
  return fields;
}

/** The events of one stream entry, with their ids (`<entry id>.<index>`); what is not ours is skipped. */
export function decodeEventEntry(entryId: string, fields: readonly string[]): StoredEvent[] {
  const value = (name: string) => {
    for (let i = 0; i < fields.length - 1; i += 2) if (fields[i] === name) return fields[i + 1];
    return undefined;
  };
  const rows = value('rows');
  if (rows === undefined) return decodeObjects(entryId, value('e'));
  const parsed = parseJson(rows);
  if (!Array.isArray(parsed)) return [];
  const base = Number(value('base'));
  const hostname = value('hostname');
  const pid = hostname === undefined ? undefined : Number(value('pid'));
  const events: StoredEvent[] = [];
  parsed.forEach((row: unknown, index) => {
    if (!Array.isArray(row)) return;
    const [type, offset] = row as unknown[];
    const columns = COLUMNS.get(type as string);
    if (columns === undefined || typeof offset !== 'number') return;
    const event: Record<string, unknown> = { type, timestamp: base + offset };
    if (hostname !== undefined) {
      event['hostname'] = hostname;
      event['pid'] = pid;
    }
    columns.forEach((column, at) => {
      const stored: unknown = row[at + 2];
      if (stored !== null && stored !== undefined) event[column] = stored;
    });
    event['eventId'] = `${entryId}.${index}`;
    events.push(event as unknown as StoredEvent);
  });
  return events;
}

/** An entry holding events as JSON objects (a batch of several workers' events). */
function objectEntry(events: readonly CeleriacEvent[]): string[] {
  return ['e', JSON.stringify(events)];
}

function decodeObjects(entryId: string, text: string | undefined): StoredEvent[] {
  const parsed = parseJson(text ?? '');
  const list: unknown[] = Array.isArray(parsed) ? parsed : [parsed];
  const events: StoredEvent[] = [];
  list.forEach((event, index) => {
    if (typeof event === 'object' && event !== null && typeof (event as { type?: unknown }).type === 'string')
      events.push({ ...(event as CeleriacEvent), eventId: `${entryId}.${index}` });
  });
  return events;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
