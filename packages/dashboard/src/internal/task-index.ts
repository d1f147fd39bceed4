/**
 * The task list of the dashboard: one summary per task, built from the event log and kept in memory
 * (the least recently changed go first past `maxTasks`). Filtered by state, name, queue, worker,
 * text and time range.
 */
import type { EventError, StoredEvent, TaskEvent } from '@celeriac/core';
import { WorkflowLinks } from './workflow-links';

/** What the dashboard knows of one task from its events. */
export interface TaskSummary {
  id: string;
  name?: string;
  queue: string;
  state: string;
  worker?: string;
  retries: number;
  sent?: number;
  started?: number;
  /** Epoch ms of the latest event. */
  updated: number;
  runtime?: number;
  error?: EventError;
  /** The arguments as encoded in the events (only with `events: { payloads: true }`). */
  args?: string;
  result?: string;
  /** In a workflow: the task or group it continues or belongs to, and the workflow's first task. */
  parentId?: string;
  rootId?: string;
}

/** Filters of {@link TaskIndex.query}; all optional, all must hold. */
export interface TaskQuery {
  state?: string;
  name?: string;
  queue?: string;
  worker?: string;
  /** Text searched in the id, the name and the arguments. */
  text?: string;
  /** Epoch ms: changed at or after. */
  from?: number;
  /** Epoch ms: changed at or before. */
  to?: number;
  limit?: number;
}

/** The state a task is in after each kind of event. */
const STATE_AFTER: Record<Exclude<TaskEvent['type'], 'task-progress'>, string> = {
  'task-sent': 'PENDING',
  'task-received': 'RECEIVED',
  'task-started': 'STARTED',
  'task-succeeded': 'SUCCESS',
  'task-failed': 'FAILURE',
  'task-retried': 'RETRY',
  'task-revoked': 'REVOKED',
  'task-rejected': 'REJECTED',
  'task-expired': 'EXPIRED',
};

/** Task summaries by id, most recently changed last. */
export class TaskIndex {
  private readonly tasks = new Map<string, TaskSummary>();
  /** How the kept tasks hang together in workflows. */
  readonly links = new WorkflowLinks();

  /** The readable text of each task's arguments, made on the first search that reads it. */
  private readonly argsText = new WeakMap<TaskSummary, { payload: string; text: string }>();

  /**
   * @param readable - the arguments as the page shows them (as the user passed them), from their
   *   payload in the events: what the text search matches, never the codec's wire form.
   */
  constructor(
    private readonly maxTasks: number,
    private readonly readable: (payload: string) => string = (payload) => payload,
  ) {}

  /** Folds one event in; worker events are ignored. */
  add(event: StoredEvent): void {
    if (!('taskId' in event)) return;
    const known = this.tasks.get(event.taskId);
    const task: TaskSummary = known ?? {
      id: event.taskId,
      queue: event.queue,
      state: 'PENDING',
      retries: 0,
      updated: 0,
    };
    if (event.task !== undefined) task.name = event.task;
    if (event.hostname !== undefined) task.worker = event.hostname;
    if (event.retries !== undefined) task.retries = Math.max(task.retries, event.retries);
    task.queue = event.queue;
    this.apply(task, event);
    this.links.add(task);
    this.tasks.delete(task.id);
    this.tasks.set(task.id, task);
    if (this.tasks.size > this.maxTasks) {
      const oldest = this.tasks.values().next().value;
      if (oldest !== undefined) {
        this.tasks.delete(oldest.id);
        this.links.delete(oldest);
      }
    }
  }

  /** One task's summary. */
  get(id: string): TaskSummary | undefined {
    return this.tasks.get(id);
  }

  /** The tasks that match, most recently changed first. */
  query(query: TaskQuery): TaskSummary[] {
    const limit = query.limit ?? 200;
    const text = query.text?.toLowerCase();
    const found: TaskSummary[] = [];
    for (const task of [...this.tasks.values()].reverse()) {
      if (found.length >= limit) break;
      if (query.state !== undefined && task.state !== query.state) continue;
      if (query.name !== undefined && !(task.name ?? '').includes(query.name)) continue;
      if (query.queue !== undefined && task.queue !== query.queue) continue;
      if (query.worker !== undefined && task.worker !== query.worker) continue;
      if (query.from !== undefined && task.updated < query.from) continue;
      if (query.to !== undefined && task.updated > query.to) continue;
      if (
        text !== undefined &&
        ![task.id, task.name ?? '', this.readableArgs(task)].some((f) => f.toLowerCase().includes(text))
      )
        continue;
      found.push(task);
    }
    return found;
  }

  private readableArgs(task: TaskSummary): string {
    if (task.args === undefined) return '';
    const known = this.argsText.get(task);
    if (known?.payload === task.args) return known.text;
    const text = this.readable(task.args);
    this.argsText.set(task, { payload: task.args, text });
    return text;
  }

  private apply(task: TaskSummary, event: TaskEvent & { eventId: string }): void {
    if (event.type === 'task-sent') {
      task.sent = event.timestamp;
      if (event.args !== undefined) task.args = event.args;
      if (event.parentId !== undefined) task.parentId = event.parentId;
      if (event.rootId !== undefined) task.rootId = event.rootId;
    }
    if (event.type === 'task-started') {
      task.started = event.timestamp;
      if (event.args !== undefined) task.args = event.args;
    }
    if (event.type === 'task-succeeded' && event.result !== undefined) task.result = event.result;
    if (event.type === 'task-succeeded' || event.type === 'task-failed' || event.type === 'task-retried')
      task.runtime = event.runtime;
    if (event.type === 'task-failed' || event.type === 'task-retried') task.error = event.error;
    // Events of one task may be read out of order (a sender's and a worker's batches): the latest
    // decides the state, and a `task-sent` never hides what a worker did since (except a new run).
    if (event.timestamp < task.updated) return;
    task.updated = event.timestamp;
    const state = event.type === 'task-progress' ? event.state : STATE_AFTER[event.type];
    if (event.type === 'task-sent' && task.state !== 'PENDING' && !isFinal(task.state)) return;
    if (event.type === 'task-sent' || event.type === 'task-received') delete task.error;
    task.state = state;
  }
}

function isFinal(state: string): boolean {
  return ['SUCCESS', 'FAILURE', 'REVOKED', 'REJECTED', 'EXPIRED'].includes(state);
}
