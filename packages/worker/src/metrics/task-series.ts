/**
 * The series of task outcomes, the same in a worker's own registry (`celeriac_*`, what it ran) and
 * in the app-level one counted from the event log (`celeriac_app_*`, what every worker ran): tasks
 * by final state, retries, dead letters, run time and queue wait, labelled by task and queue.
 */
import type { Counter, Histogram, Registry } from 'prom-client';
import { SECONDS_BUCKETS, type Prom } from './prom';

/** The series of one registry. */
export interface TaskSeries {
  readonly tasks: Counter<'task' | 'queue' | 'state'>;
  readonly retries: Counter<'task' | 'queue'>;
  readonly dead: Counter<'task' | 'queue'>;
  readonly runtime: Histogram<'task' | 'queue'>;
  readonly wait: Histogram<'task' | 'queue'>;
}

/** How one registry's series are named and described. */
export interface TaskSeriesNaming {
  /** Prepended to every name (`celeriac_` or `celeriac_app_`). */
  readonly prefix: string;
  /** Whose tasks: `'this worker'` or empty. */
  readonly subject: string;
  /** Appended to every help text (where the counts come from). */
  readonly source: string;
}

/** Registers the task series in `registry`. */
export function registerTaskSeries(prom: Prom, registry: Registry, naming: TaskSeriesNaming): TaskSeries {
  const registers = [registry];
  const labelNames = ['task', 'queue'] as const;
  const { prefix, source } = naming;
  const subject = naming.subject === '' ? '' : ` ${naming.subject}`;
  return {
    tasks: new prom.Counter({
      name: `${prefix}tasks_total`,
      help: `Tasks${subject} brought to a final state, by task, queue and state (SUCCESS, FAILURE, REVOKED)${source}`,
      labelNames: [...labelNames, 'state'],
      registers,
    }),
    retries: new prom.Counter({
      name: `${prefix}task_retries_total`,
      help: `Runs that raised and were sent back to their queue for a retry${source}`,
      labelNames,
      registers,
    }),
    dead: new prom.Counter({
      name: `${prefix}dead_letters_total`,
      help: `Tasks${subject} moved to the dead-letter set${source}`,
      labelNames,
      registers,
    }),
    runtime: new prom.Histogram({
      name: `${prefix}task_runtime_seconds`,
      help: `How long task runs took, from start to outcome (retried runs included)${source}`,
      labelNames,
      buckets: SECONDS_BUCKETS,
      registers,
    }),
    wait: new prom.Histogram({
      name: `${prefix}task_queue_wait_seconds`,
      help: `How long tasks waited from being sent (or due, for a countdown or retry) to starting${source}`,
      labelNames,
      buckets: SECONDS_BUCKETS,
      registers,
    }),
  };
}
