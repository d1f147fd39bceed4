/** Task states, from Celery's vocabulary, plus custom states set by tasks (e.g. `PROGRESS`). */

/** The built-in states a task moves through. */
export type BuiltInState = 'PENDING' | 'STARTED' | 'RETRY' | 'SUCCESS' | 'FAILURE' | 'REVOKED';

/** A built-in state, or a custom one a task reported (`PROGRESS`, ...). */
export type TaskState = BuiltInState | (string & {});

/** States after which the task will not change again. */
export const READY_STATES: ReadonlySet<TaskState> = new Set(['SUCCESS', 'FAILURE', 'REVOKED']);

/** True when the state is final (SUCCESS, FAILURE or REVOKED). */
export function isReadyState(state: TaskState): boolean {
  return READY_STATES.has(state);
}
