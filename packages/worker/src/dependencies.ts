/**
 * `dependsOn`: a task that runs only once other tasks succeeded. The worker holds it under its lease
 * without a slot while it waits for the dependencies' completion notices (no polling), then takes a
 * slot and runs it; a failed or revoked dependency fails it instead.
 */
import { DependencyFailedError, type TaskRecord } from '@celeriac/core';
import { isReadyState, type TaskMessage } from '@celeriac/core/internal';
import type { RunContext } from './run-context';
import type { RunSignal } from './run-signal';

/** What became of a task's dependencies: all succeeded, one did not, or the wait was cut short. */
export type DependencyVerdict = 'ready' | 'abandoned' | 'revoked' | DependencyFailedError;

/** Waits for every dependency of `message`; the task holds no slot meanwhile. */
export async function awaitDependencies(
  run: RunContext,
  message: TaskMessage,
  stop: RunSignal,
): Promise<DependencyVerdict> {
  const ids = message.dependsOn ?? [];
  const backend = run.app.backend;
  // Most dependencies are already done: look first, and give up the slot only to wait.
  let records = await backend.getMany(ids);
  if (!records.some(endedBadly) && records.some((record) => record === undefined || !isReadyState(record.state))) {
    run.released(message.id);
    try {
      records = await untilAllSucceedOrOneFails(run, ids, stop);
    } catch (error) {
      if (stop.abandoned) return 'abandoned';
      if (stop.aborted && run.isRevoked(message.id)) return 'revoked';
      throw error;
    }
    await run.acquire(message.id, stop);
    if (stop.abandoned) return 'abandoned';
    // Revoked while it waited: refused like any reserved task that has not started.
    if (run.isRevoked(message.id)) return 'revoked';
  }
  const failed = records.findIndex(endedBadly);
  if (failed < 0) return 'ready';
  const record = records[failed];
  const how =
    record?.state === 'FAILURE' && record.error
      ? `failed (${record.error.name}: ${record.error.message})`
      : `ended ${record?.state}`;
  return new DependencyFailedError(
    `Task ${message.task}[${message.id}] did not run: its dependency ${ids[failed]} ${how}.`,
  );
}

/**
 * Waits for every dependency's final record, but stops at the first that did not succeed: the task
 * fails then, however long the others take.
 */
async function untilAllSucceedOrOneFails(
  run: RunContext,
  ids: readonly string[],
  stop: RunSignal,
): Promise<Array<TaskRecord | undefined>> {
  const done = new AbortController();
  const signal = AbortSignal.any([stop.signal, done.signal]);
  const records = new Array<TaskRecord | undefined>(ids.length);
  try {
    await new Promise<void>((resolve, reject) => {
      let left = ids.length;
      ids.forEach((id, index) => {
        run.app.backend.waitFor(id, signal).then((record) => {
          records[index] = record;
          left -= 1;
          if (record.state !== 'SUCCESS' || left === 0) resolve();
        }, reject);
      });
    });
  } finally {
    done.abort(new Error('dependencies settled'));
  }
  return records;
}

/** A dependency that ended, but not in success (FAILURE, REVOKED). */
function endedBadly(record: TaskRecord | undefined): boolean {
  return record !== undefined && isReadyState(record.state) && record.state !== 'SUCCESS';
}
