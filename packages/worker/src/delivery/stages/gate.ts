/**
 * The gate stage: what an admitted task must wait for before it runs. Today that is `dependsOn`: a
 * task that runs only once other tasks succeeded. The worker holds it under its lease without a slot
 * while it waits for the dependencies' completion notices (no polling), then takes a slot and lets
 * it through; a failed or revoked dependency ends it instead. (Rate and concurrency limits are held
 * back by the broker, which leases a limited task only once it may run.)
 */
import { DependencyFailedError, type TaskRecord } from '@celeriac/core';
import { isReadyState, toRemoteError, type TaskMessage } from '@celeriac/core/internal';
import type { RunContext } from '../../run-context';
import type { RunSignal } from '../../run-signal';
import { LEFT, type Admitted, type Ending } from '../ending';

/** What leaves the gate: the admitted task, or how it ended while it waited, or {@link LEFT}. */
export type Gated = Admitted | Ending | typeof LEFT;

/** Lets `admitted` through, at once when it has nothing to wait for (most tasks: no promise, no await). */
export function gate(run: RunContext, admitted: Admitted): Gated | Promise<Gated> {
  const { dependsOn } = admitted.message;
  if (dependsOn === undefined || dependsOn.length === 0) return admitted;
  return afterDependencies(run, admitted);
}

/** Waits for every dependency of `admitted`'s task; the task holds no slot meanwhile. */
async function afterDependencies(run: RunContext, admitted: Admitted): Promise<Gated> {
  const { message, stop } = admitted;
  const ids = message.dependsOn ?? [];
  // Most dependencies are already done: look first, and give up the slot only to wait.
  let records = await run.app.backend.getMany(ids);
  if (!records.some(endedBadly) && records.some((record) => record === undefined || !isReadyState(record.state))) {
    run.released(message.id);
    try {
      records = await untilAllSucceedOrOneFails(run, ids, stop);
    } catch (error) {
      if (stop.abandoned) return LEFT;
      if (stop.aborted && run.isRevoked(message.id)) return revoked(message, stop);
      throw error;
    }
    await run.acquire(message.id, stop);
    if (stop.abandoned) return LEFT;
    // Revoked while it waited: refused like any reserved task that has not started.
    if (run.isRevoked(message.id)) return revoked(message, stop);
  }
  const failed = records.findIndex(endedBadly);
  if (failed < 0) return admitted;
  const record = records[failed];
  const how =
    record?.state === 'FAILURE' && record.error
      ? `failed (${record.error.name}: ${record.error.message})`
      : `ended ${record?.state}`;
  const error = new DependencyFailedError(
    `Task ${message.task}[${message.id}] did not run: its dependency ${ids[failed]} ${how}.`,
  );
  run.logger.info({ id: message.id, task: message.task }, error.message);
  return { kind: 'dependency-failed', message, error: toRemoteError(error) };
}

/** A task revoked while it waited: terminated when the revoke stopped its wait, else revoked. */
function revoked(message: TaskMessage, stop: RunSignal): Ending {
  return { kind: 'not-run', message, reason: stop.aborted ? 'terminated' : 'revoked' };
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
