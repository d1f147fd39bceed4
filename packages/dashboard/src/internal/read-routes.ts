/**
 * The dashboard's read API: overview, tasks (list and one task's page), failed tasks, dead letters
 * and beat. Everything comes from the app's public operations APIs, not from raw Redis keys.
 */
import type { CeleriacCore, DeadLetter, FailedTask } from '@celeriac/core';
import { runtimeOf } from '@celeriac/core/internal';
import type { DashboardApp } from '../app';
import { HttpError } from './http';
import type { LiveFeed } from './live-feed';
import { payloadText, preview } from './preview';
import type { TaskQuery } from './task-index';
import { workflowGraph } from './workflow-graph';

/** How many tasks of a workflow a task page draws, unless it asks for more (`?nodes=`), and the most it may. */
const WORKFLOW_NODES = 200;
const MAX_WORKFLOW_NODES = 5_000;

/** What a read route answers with (JSON). */
export type ReadRoute = (params: { id?: string; query: URLSearchParams }) => Promise<unknown>;

/** The read routes, by path pattern (`:id` is one path segment). */
export function readRoutes(app: DashboardApp, feed: LiveFeed): Record<string, ReadRoute> {
  return {
    'api/overview': () => feed.overview(),
    // The task list fills from the event log once the feed runs: a script that reads the API
    // without opening the page (which starts it) starts it here.
    'api/tasks': ({ query }) => {
      feed.start();
      return Promise.resolve({ tasks: feed.tasks.query(taskQuery(query)) });
    },
    'api/tasks/:id': ({ id, query }) => {
      feed.start();
      const nodes = Math.min(numberOf(query, 'nodes') ?? WORKFLOW_NODES, MAX_WORKFLOW_NODES);
      return taskPage(app, feed, required(id), nodes);
    },
    'api/failed': async ({ query }) => ({
      tasks: (await app.failed.list({ ...queueOf(query), limit: numberOf(query, 'limit') ?? 200 })).map((task) =>
        failedView(app, task),
      ),
    }),
    'api/dead': async ({ query }) => {
      const queues = await deadQueues(app, query);
      const letters = await Promise.all(queues.map((queue) => app.broker.listDead(queue, { limit: 200 })));
      return { letters: letters.flat().map((letter) => deadView(app, letter)) };
    },
    'api/beat': async () => {
      if (!app.beat) return { available: false, entries: [], leader: null };
      const [entries, leader] = await Promise.all([app.beat.list(), app.beat.leader()]);
      return { available: true, entries, leader: leader ?? null };
    },
  };
}

async function taskPage(app: CeleriacCore, feed: LiveFeed, id: string, nodes: number): Promise<unknown> {
  const [events, record, failed] = await Promise.all([
    app.events.recent({ task: id, limit: 200 }),
    app.backend.get(id),
    app.failed.show(id),
  ]);
  const summary = feed.tasks.get(id);
  if (!summary && events.length === 0 && !record && !failed)
    throw new HttpError(404, 'CELERIAC_NOT_FOUND', `No task ${id} is known: no events, no result and no failed entry.`);
  const message = failed ? runtimeOf(app).decodeOrUndefined(failed.body) : undefined;
  return {
    id,
    summary: summary ?? null,
    events,
    record: record
      ? {
          state: record.state,
          task: record.task,
          retries: record.retries,
          date: record.date,
          result: record.result === undefined ? undefined : preview(record.result),
          error: record.error,
          meta: record.meta === undefined ? undefined : preview(record.meta),
        }
      : null,
    failed: failed ? failedView(app, failed) : null,
    args: message
      ? preview(message.args)
      : summary?.args === undefined
        ? null
        : payloadText(runtimeOf(app).codec, summary.args),
    workflow: workflowGraph(feed.tasks, id, nodes) ?? null,
  };
}

function failedView(app: CeleriacCore, task: FailedTask): unknown {
  const message = runtimeOf(app).decodeOrUndefined(task.body);
  return {
    id: task.id,
    queue: task.queue,
    task: task.task,
    at: task.at,
    attempts: task.attempts,
    error: task.error,
    args: message ? preview(message.args) : null,
  };
}

function deadView(app: CeleriacCore, letter: DeadLetter): unknown {
  const message = letter.size === undefined ? runtimeOf(app).decodeOrUndefined(letter.body) : undefined;
  return {
    id: letter.id,
    queue: letter.queue,
    task: message?.task ?? null,
    at: letter.at,
    reason: letter.reason,
    args: message ? preview(message.args) : null,
    requeueable: letter.size === undefined,
  };
}

async function deadQueues(app: CeleriacCore, query: URLSearchParams): Promise<string[]> {
  const queue = query.get('queue');
  if (queue) return [queue];
  return (await app.queues.list()).filter((info) => info.dead > 0).map((info) => info.name);
}

function taskQuery(query: URLSearchParams): TaskQuery {
  const text = (name: string) => query.get(name) || undefined;
  return {
    state: text('state'),
    name: text('name'),
    queue: text('queue'),
    worker: text('worker'),
    text: text('q'),
    from: numberOf(query, 'from'),
    to: numberOf(query, 'to'),
    limit: numberOf(query, 'limit'),
  };
}

function queueOf(query: URLSearchParams): { queue?: string } {
  const queue = query.get('queue');
  return queue ? { queue } : {};
}

function numberOf(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  if (value === null || value === '') return undefined;
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0)
    throw new HttpError(400, 'CELERIAC_BAD_REQUEST', `"${name}" must be a non-negative number (got "${value}").`);
  return number;
}

function required(id: string | undefined): string {
  if (id === undefined || id === '') throw new HttpError(400, 'CELERIAC_BAD_REQUEST', 'Give a task id in the path.');
  return id;
}
