/** Helpers that wait for task records through backend notifications (no polling). */
import type { AsyncResult, Celeriac, TaskRecord, TaskState } from 'celeriac';

function listen(app: Celeriac, id: string, listener: (record: TaskRecord) => void): () => void {
  const { backend } = app;
  if (!backend.onChange) throw new Error('This backend has no onChange; these helpers need one');
  return backend.onChange(id, listener);
}

/** Resolves with the task's record once it is in `state` (at once if it already is). */
export function stateReached(
  app: Celeriac,
  result: AsyncResult<unknown> | string,
  state: TaskState,
): Promise<TaskRecord> {
  const id = typeof result === 'string' ? result : result.id;
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (record: TaskRecord | undefined) => {
      if (done || record?.state !== state) return;
      done = true;
      unsubscribe();
      resolve(record);
    };
    const unsubscribe = listen(app, id, finish);
    app.backend.get(id).then(finish, reject);
  });
}

/** Records every state change of a task from now on; call the returned function to stop and read them. */
export function recordChanges(app: Celeriac, result: AsyncResult<unknown>): () => TaskRecord[] {
  const records: TaskRecord[] = [];
  const unsubscribe = listen(app, result.id, (record) => records.push(record));
  return () => {
    unsubscribe();
    return records;
  };
}
