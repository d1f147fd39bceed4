/** The records a run stores: built, given the task's result TTL, and addressed to the sender's reply channel. */
import type { StoreEntry, TaskRecord, TaskState } from '@celeriac/core';
import type { WorkflowContext, TaskMessage } from '@celeriac/core/internal';
import type { RunContext } from '../run-context';

/** A record of `id` in `state`, dated now unless `fields` says when. */
export function record(id: string, state: TaskState, fields: Partial<TaskRecord>): TaskRecord {
  return { id, state, date: Date.now(), ...fields };
}

/** How long a record of `message`'s task is kept (the app's default when the message could not be read). */
export function ttlOf(run: RunContext, message: TaskMessage | undefined): number {
  return message ? run.app.resultTtlOf(message.task, message.resultTtl) : run.app.options.resultTtl;
}

/** The store entry of a record of `message`'s task. */
export function entryFor(run: RunContext, message: TaskMessage | undefined, taskRecord: TaskRecord): StoreEntry {
  return withReply({ record: taskRecord, ttl: ttlOf(run, message) }, message);
}

/** Addresses an entry's notice to the client that sent the task, if it asked for one. */
export function withReply(entry: StoreEntry, message: TaskMessage | undefined): StoreEntry {
  if (message?.replyTo !== undefined) entry.replyTo = message.replyTo;
  return entry;
}

/** What a workflow step needs to move its workflow on: the app, and storing records through the settler. */
export function workflowContext(run: RunContext): WorkflowContext {
  return {
    app: run.app,
    store: (entries) => Promise.all(entries.map((entry) => run.settler.store(entry))).then(() => undefined),
    ttlOf: (message) => ttlOf(run, message),
  };
}
