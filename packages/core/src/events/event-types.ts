/**
 * The events of a deployment: every state change of a task and every worker's lifecycle, as one
 * typed union. Workers and senders append them to the app's event log; `app.events` reads them back.
 */

/** The error of a failed or retried run, as events carry it (no stack: see the failed-task registry). */
export interface EventError {
  readonly name: string;
  readonly message: string;
}

/** What every task event carries. */
export interface TaskEventFields {
  readonly taskId: string;
  /** The task name; absent only when the message could not be read (a rejected message). */
  readonly task?: string;
  readonly queue: string;
  /** Epoch ms when it happened. */
  readonly timestamp: number;
  /** The worker (absent for `task-sent`, which the sender emits). */
  readonly hostname?: string;
  readonly pid?: number;
  /** Retries so far. */
  readonly retries?: number;
}

/** A task's state change. Args and results appear only with `events: { payloads: true }`, cut to `payloadLimit`. */
export type TaskEvent =
  | (TaskEventFields & {
      readonly type: 'task-sent';
      readonly eta?: number;
      readonly args?: string;
      /** In a workflow: the task (or group) that this one continues or belongs to. */
      readonly parentId?: string;
      /** In a workflow: the id of its first task. */
      readonly rootId?: string;
    })
  | (TaskEventFields & { readonly type: 'task-received'; readonly delivery: number })
  | (TaskEventFields & {
      readonly type: 'task-started';
      readonly args?: string;
      /** How long it waited in its queue, in ms: from sent (or due, after a countdown or retry) to this start. */
      readonly wait?: number;
    })
  | (TaskEventFields & { readonly type: 'task-progress'; readonly state: string })
  | (TaskEventFields & { readonly type: 'task-succeeded'; readonly runtime: number; readonly result?: string })
  | (TaskEventFields & { readonly type: 'task-failed'; readonly runtime?: number; readonly error: EventError })
  | (TaskEventFields & {
      readonly type: 'task-retried';
      readonly runtime: number;
      readonly error: EventError;
      readonly delay: number;
    })
  | (TaskEventFields & { readonly type: 'task-revoked'; readonly reason: string })
  | (TaskEventFields & { readonly type: 'task-rejected'; readonly reason: string })
  | (TaskEventFields & { readonly type: 'task-expired' });

/** What every worker event carries. */
export interface WorkerEventFields {
  readonly hostname: string;
  readonly pid: number;
  readonly timestamp: number;
}

/** A worker's lifecycle: online at start, a heartbeat every few seconds, offline at a clean stop. */
export type WorkerEvent =
  | (WorkerEventFields & {
      readonly type: 'worker-online';
      readonly queues: readonly string[];
      readonly pool: string;
      readonly concurrency: number;
    })
  | (WorkerEventFields & {
      readonly type: 'worker-heartbeat';
      /** Tasks held now (running or reserved for a slot). */
      readonly active: number;
      /** Of those, the tasks running now (absent from workers older than this field). */
      readonly busy?: number;
      /** Tasks finished so far. */
      readonly processed: number;
      /** The machine's 1, 5 and 15 minute load averages. */
      readonly load: readonly number[];
      /** The worker process's resident set size, in bytes. */
      readonly rss: number;
    })
  | (WorkerEventFields & { readonly type: 'worker-offline'; readonly processed: number });

/** Any event. */
export type CeleriacEvent = TaskEvent | WorkerEvent;

/** The type names of every event. */
export type CeleriacEventType = CeleriacEvent['type'];

/** An event as read back from the log, with its id there (pass it as `since` to resume after it). */
export type StoredEvent = CeleriacEvent & { readonly eventId: string };

/** Every event type, for validation and help texts. */
export const EVENT_TYPES: readonly CeleriacEventType[] = [
  'task-sent',
  'task-received',
  'task-started',
  'task-progress',
  'task-succeeded',
  'task-failed',
  'task-retried',
  'task-revoked',
  'task-rejected',
  'task-expired',
  'worker-online',
  'worker-heartbeat',
  'worker-offline',
];
