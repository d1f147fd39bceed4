/** The inline runner: tasks run as async functions in the worker process. */
import type { Codec } from '@celeriac/core';
import type { TaskRunner } from './runner';
import { runTask, type HookErrorHandler, type TaskJob, type TaskOutcome } from './run-task';

/** Runs jobs in this process (highest throughput for I/O-bound tasks; a hard limit abandons, not kills). */
export class InlineRunner implements TaskRunner {
  constructor(
    private readonly codec: Codec,
    private readonly onHookError: HookErrorHandler,
  ) {}

  async start(): Promise<void> {}

  run(job: TaskJob): Promise<TaskOutcome> {
    job.stop.started = true;
    job.onStart();
    return runTask(job, this.codec, this.onHookError);
  }

  async close(): Promise<void> {}
}
