/**
 * The failed-task registry: tasks that failed for good, kept `failedTtl` with their message and
 * error, at most `failedLimit` a queue (the oldest go). Expired entries are left out of every read
 * and deleted when a queue's registry is trimmed.
 */
import type { FailedTask } from '@celeriac/core';
import type { BrokerContext } from './broker-context';

/** Default of `failedLimit` when the settings leave it out. */
const DEFAULT_FAILED_LIMIT = 10_000;

interface FailedRow {
  queue: string;
  id: string;
  body: string;
  task: string;
  error: FailedTask['error'];
  attempts: number;
  at: string;
}

function failedTask(row: FailedRow): FailedTask {
  const { queue, id, body, task, error, attempts, at } = row;
  return { id, queue, body, task, error, attempts, at: Number(at) };
}

/** Deletes the expired entries of `queues` and those past `failedLimit`, oldest first. */
export async function trimFailed(context: BrokerContext, queues: readonly string[]): Promise<void> {
  const { failed, now } = context.tables;
  await context.connection.query(
    `DELETE FROM ${failed} AS f USING (
        SELECT queue, id, expires_at, row_number() OVER (PARTITION BY queue ORDER BY seq DESC) AS place
        FROM ${failed} WHERE queue = ANY($1::text[])) AS ranked
      WHERE f.queue = ranked.queue AND f.id = ranked.id AND (ranked.place > $2 OR ranked.expires_at <= ${now})`,
    [queues, context.settings.failedLimit ?? DEFAULT_FAILED_LIMIT],
  );
}

/** The registry of `queue`, newest first. */
export async function listFailed(
  context: BrokerContext,
  queue: string,
  options: { offset?: number; limit?: number } = {},
): Promise<FailedTask[]> {
  const { failed, now } = context.tables;
  const rows = await context.connection.query<FailedRow>(
    `SELECT queue, id, body, task, error, attempts, at FROM ${failed}
      WHERE queue = $1 AND expires_at > ${now} ORDER BY seq DESC OFFSET $2 LIMIT $3`,
    [queue, options.offset ?? 0, options.limit ?? null],
  );
  return rows.map(failedTask);
}

/** The entries of `ids` in `queue`, in the order of `ids` (undefined where absent). */
export async function getFailed(
  context: BrokerContext,
  queue: string,
  ids: readonly string[],
): Promise<Array<FailedTask | undefined>> {
  const { failed, now } = context.tables;
  const rows = await context.connection.query<FailedRow>(
    `SELECT queue, id, body, task, error, attempts, at FROM ${failed}
      WHERE queue = $1 AND id = ANY($2::text[]) AND expires_at > ${now}`,
    [queue, ids],
  );
  const byId = new Map(rows.map((row) => [row.id, failedTask(row)]));
  return ids.map((id) => byId.get(id));
}

/** Removes the entries of `ids` from `queue`'s registry, or all of them when `ids` is left out. */
export async function discardFailed(context: BrokerContext, queue: string, ids?: readonly string[]): Promise<number> {
  if (ids?.length === 0) return 0;
  const { failed, now } = context.tables;
  const rows = await context.connection.query<{ live: boolean }>(
    `DELETE FROM ${failed} WHERE queue = $1 AND ($2::text[] IS NULL OR id = ANY($2::text[]))
      RETURNING expires_at > ${now} AS live`,
    [queue, ids ?? null],
  );
  return rows.filter((row) => row.live).length;
}

/** How many live entries `queue`'s registry holds. */
export async function countFailed(context: BrokerContext, queue: string): Promise<number> {
  const { failed, now } = context.tables;
  const [row] = await context.connection.query<{ count: string }>(
    `SELECT count(*) FROM ${failed} WHERE queue = $1 AND expires_at > ${now}`,
    [queue],
  );
  return Number(row?.count ?? 0);
}

/** The names of every queue ever published to. */
export async function queueNames(context: BrokerContext): Promise<string[]> {
  const rows = await context.connection.query<{ name: string }>(
    `SELECT name FROM ${context.tables.queues} ORDER BY name`,
  );
  return rows.map((row) => row.name);
}
