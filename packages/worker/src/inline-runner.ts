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
    // Metadata is checked as it is reported, so a bad value fails that call in the task, not the
    // batch of records it would be written with (a pool child checks it when it encodes it).
    const report: TaskJob['report'] = (state, meta) => {
      this.codec.assertSerializable(meta, () => `the ${state} metadata of ${job.message.task}`);
      return job.report(state, meta);
    };
    return runTask({ ...job, report }, this.codec, this.onHookError);
  }

  async close(): Promise<void> {}
}
