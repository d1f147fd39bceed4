/** What a run reports besides its records: dead-lettered tasks, and errors as events carry them. */
import type { Delivery, EventError, RemoteError } from '@celeriac/core';
import type { TaskMessage } from '@celeriac/core/internal';
import type { RunContext } from '../run-context';

/** Emits `task-rejected` and counts the dead letter: the task was dead-lettered. */
export function rejected(run: RunContext, delivery: Delivery, message: TaskMessage | undefined, reason: string): void {
  run.metrics?.deadLettered(delivery.queue, message);
  run.events.emit('task-rejected', message ?? delivery, { reason });
}

/** An error as events carry it: its name and message. */
export function brief(error: RemoteError): EventError {
  return { name: error.name, message: error.message };
}

/** An error as a log line names it, the way Celery's lines do: `Error('attempt 1 failed')`. */
export function errorCall(error: RemoteError): string {
  return `${error.name}('${error.message.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}')`;
}
