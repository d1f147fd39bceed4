/** What a finished task's record means to its caller: its value, or the error a wait throws. */
import type { TaskRecord } from './backend';
import type { Codec } from './codec';
import type { StepFailureMeta } from './canvas/nodes';
import { TaskFailedError, TaskRevokedError, type CeleriacError } from './errors';
import { reviveError } from './internal/remote-error';

/**
 * The value of a ready record (SUCCESS), or the error it stands for: TaskFailedError (FAILURE),
 * TaskRevokedError (REVOKED). `taskName` names the task when the record does not.
 */
export function outcomeOf<T>(
  record: TaskRecord,
  id: string,
  taskName: string | undefined,
  codec: Codec,
): T | CeleriacError {
  switch (record.state) {
    case 'SUCCESS':
      return record.result as T;
    case 'FAILURE': {
      const remote = record.error ?? { name: 'Error', message: 'unknown failure' };
      return new TaskFailedError(id, record.task ?? taskName, remote, failedStepOf(record), reviveError(remote, codec));
    }
    default: {
      const reason = (record.meta as { reason?: string } | undefined)?.reason ?? 'revoked';
      return new TaskRevokedError(id, reason);
    }
  }
}

/** The earlier workflow step whose error a record carries (see StepFailureMeta), if any. */
function failedStepOf(record: TaskRecord): { id: string; task: string } | undefined {
  const meta = record.meta as Partial<StepFailureMeta> | undefined;
  return typeof meta?.cause === 'string' && typeof meta.causeTask === 'string'
    ? { id: meta.cause, task: meta.causeTask }
    : undefined;
}
