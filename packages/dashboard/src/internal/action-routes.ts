/**
 * The dashboard's actions: retry and discard failed tasks, requeue and discard dead letters, revoke
 * (optionally terminating), pause, resume and purge queues, shut a worker down, add and remove beat
 * entries. Each takes a JSON body and answers what it did. None runs in read-only mode (the router
 * refuses them before they get here).
 */
import { crontab, every, type Schedule } from '@celeriac/beat';
import type { CeleriacError, Duration, TerminateSignal } from '@celeriac/core';
import { isQueueName, QUEUE_NAME_RULE, runtimeOf } from '@celeriac/core/internal';
import type { DashboardApp } from '../app';
import { HttpError, selectionOf, stringField } from './http';

/** What an action answers with (JSON). */
export type ActionRoute = (params: { id?: string; body: Record<string, unknown> }) => Promise<unknown>;

/** The action routes, by path pattern (`:id` is one path segment). */
export function actionRoutes(app: DashboardApp): Record<string, ActionRoute> {
  return {
    'api/failed/retry': async ({ body }) => ({ retried: await app.failed.retry(selectionOf(body), queueOf(body)) }),
    'api/failed/discard': async ({ body }) => ({
      discarded: await app.failed.discard(selectionOf(body), queueOf(body)),
    }),
    'api/dead/requeue': async ({ body }) => {
      const ids = selectionOf(body);
      const queue = queueName(body.queue);
      return { requeued: await app.broker.requeueDead(queue, ids === 'all' ? undefined : ids) };
    },
    'api/dead/discard': async ({ body }) => {
      const ids = selectionOf(body);
      const queue = queueName(body.queue);
      return { discarded: await app.broker.discardDead(queue, ids === 'all' ? undefined : ids) };
    },
    'api/tasks/:id/revoke': async ({ id, body }) => {
      const terminate = body.terminate === true;
      const signal = signalOf(body.signal);
      await app.revoke(stringField(id, 'id'), { terminate, ...(signal ? { signal } : {}) });
      return { revoked: id, terminate };
    },
    'api/queues/:id/pause': async ({ id }) => {
      await app.queues.pause(queueName(id));
      return { paused: id };
    },
    'api/queues/:id/resume': async ({ id }) => {
      await app.queues.resume(queueName(id));
      return { resumed: id };
    },
    'api/queues/:id/purge': async ({ id }) => ({ purged: await app.queues.purge(queueName(id)) }),
    'api/workers/:id/shutdown': async ({ id }) => {
      const replies = await app.control.shutdown({ destination: stringField(id, 'worker'), timeout: '2s' });
      if (replies.length === 0)
        throw new HttpError(504, 'CELERIAC_NO_REPLY', `Worker ${id} did not answer within 2 s; is it still running?`);
      return { replies };
    },
    'api/beat/add': async ({ body }) => {
      const beat = beatOf(app);
      const name = stringField(body.name, 'name');
      const task = stringField(body.task, 'task');
      const args = body.args ?? [];
      if (!Array.isArray(args)) throw new HttpError(400, 'CELERIAC_BAD_REQUEST', '"args" must be a JSON array.');
      if (body.force !== true) assertRegistered(app, task);
      await invalidAs400(() => beat.add(name, { task, schedule: scheduleOf(body), args: args as unknown[] }));
      return { added: name };
    },
    'api/beat/remove': async ({ body }) => {
      const name = stringField(body.name, 'name');
      if (!(await beatOf(app).remove(name)))
        throw new HttpError(404, 'CELERIAC_NOT_FOUND', `No runtime entry named ${name} (entries in code stay).`);
      return { removed: name };
    },
  };
}

function queueOf(body: Record<string, unknown>): { queue?: string } {
  return body.queue === undefined ? {} : { queue: queueName(body.queue) };
}

/** A queue name as senders take it (the same rule), or a 400. */
function queueName(value: unknown): string {
  if (isQueueName(value)) return value;
  throw new HttpError(
    400,
    'CELERIAC_BAD_REQUEST',
    `${JSON.stringify(value ?? null)} is not a queue name: queue names take ${QUEUE_NAME_RULE}.`,
  );
}

/**
 * A mistyped task name would be fired for ever and dead-lettered by every worker: refuse it, as
 * `celeriac beat add` does.
 */
function assertRegistered(app: DashboardApp, task: string): void {
  const { registry } = runtimeOf(app);
  if (registry.get(task)) return;
  throw new HttpError(
    400,
    'CELERIAC_UNKNOWN_TASK',
    `The dashboard's app registers no task named "${task}" (it registers: ${registry.describeNames()}). Check the ` +
      'name, or send "force": true when only the workers\' app registers it.',
  );
}

function signalOf(value: unknown): TerminateSignal | undefined {
  if (value === undefined) return undefined;
  if (value === 'SIGTERM' || value === 'SIGKILL') return value;
  throw new HttpError(400, 'CELERIAC_BAD_REQUEST', '"signal" must be "SIGTERM" or "SIGKILL".');
}

function beatOf(app: DashboardApp): NonNullable<DashboardApp['beat']> {
  if (!app.beat)
    throw new HttpError(
      501,
      'CELERIAC_NO_BEAT',
      "This app has no periodic tasks support: create it with `new Celeriac(...)` from the 'celeriac' package.",
    );
  return app.beat;
}

function scheduleOf(body: Record<string, unknown>): Schedule {
  const { cron, every: interval, tz } = body;
  if ((cron === undefined) === (interval === undefined))
    throw new HttpError(
      400,
      'CELERIAC_BAD_REQUEST',
      'Give exactly one of "cron" (e.g. "*/5 * * * *") or "every" ("30s").',
    );
  if (cron !== undefined)
    return crontab(stringField(cron, 'cron'), tz === undefined ? {} : { tz: stringField(tz, 'tz') });
  return every(typeof interval === 'number' ? interval : (stringField(interval, 'every') as Duration & string));
}

/** Runs `work`; an invalid entry (a Celeriac validation error) becomes a 400 with its message. */
async function invalidAs400(work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    const code = (error as Partial<CeleriacError>).code;
    if (
      code === 'CELERIAC_INVALID_SCHEDULE' ||
      code === 'CELERIAC_INVALID_OPTION' ||
      code === 'CELERIAC_INVALID_DURATION'
    )
      throw new HttpError(400, code, (error as Error).message);
    throw error;
  }
}
