/**
 * Counters and histograms of a whole app, counted from its event log by the reader that feeds
 * them (the dashboard's): tasks by name, queue and final state, retries, dead letters, run times and
 * queue waits, whichever worker ran them, the stopped ones too. Named `celeriac_app_*`, apart from
 * each worker's own `celeriac_*` series, so that a sum over every scraped target never adds the
 * same runs twice (docs/observability.md).
 *
 * Counting starts at `since` (the handler's creation): older events, which the dashboard reads back
 * for its history, are not counted, so a restart resets the counters to 0 as Prometheus expects
 * (`rate()` and `increase()` handle it) instead of raising them by the history read again. An event
 * is counted once: the reader resumes after the last id it saw, and ids not after the last counted
 * one are skipped (a second reader fed into the same handler counts nothing twice).
 */
import type { StoredEvent, TaskEvent } from '@celeriac/core';
import { compareEventIdParts, eventIdParts } from '@celeriac/core/internal';
import type { Registry } from 'prom-client';
import type { Prom } from './prom';
import { registerTaskSeries } from './task-series';
import { UNREGISTERED_TASK } from './worker-metrics';

/** The prefix of the metrics counted from the event log. */
export const APP_METRIC_PREFIX = 'celeriac_app_';

/**
 * Most task names learnt from the events (beyond the app's own): a bound on the label values even
 * if some writer sent names without end.
 */
const MAX_LEARNT_NAMES = 1_000;

/**
 * Events that only a worker which registered the task emits (it started, ran or failed it): their
 * task names are real ones. A name seen only in other events (a dead letter of an unknown task, a
 * revoked message) counts as `(unregistered)`, as the workers' own metrics count it.
 */
const RUN_EVENTS: ReadonlySet<string> = new Set(['task-started', 'task-succeeded', 'task-failed', 'task-retried']);

/** Events that count in some metric (the others only move the cursor, or teach a name). */
const COUNTED: ReadonlySet<string> = new Set([...RUN_EVENTS, 'task-revoked', 'task-expired', 'task-rejected']);

/** Options of {@link createEventMetrics}. */
export interface EventMetricsOptions {
  /** Events with ids after this one are counted (an exclusive cursor, as `eventIdBefore` makes). */
  readonly since: string;
  /** Whether the app registered a task of this name. */
  readonly isTask: (name: string) => boolean;
}

/** Registers the event-counted metrics in `registry`; returns what counts one event. */
export function createEventMetrics(
  prom: Prom,
  registry: Registry,
  options: EventMetricsOptions,
): (event: StoredEvent) => void {
  const { tasks, retries, dead, runtime, wait } = registerTaskSeries(prom, registry, {
    prefix: APP_METRIC_PREFIX,
    subject: '',
    // A dead letter's record ends FAILURE: tasks_total counts it there too.
    source: ' (counted from the event log since the dashboard started)',
  });

  const learnt = new Set<string>();
  const known = (name: string) => options.isTask(name) || learnt.has(name);
  const labels = (event: TaskEvent) => ({
    task: event.task !== undefined && known(event.task) ? event.task : UNREGISTERED_TASK,
    queue: event.queue,
  });
  // The last id counted, read once (each event's id is compared with it).
  let last = eventIdParts(options.since);

  return (event) => {
    if (!('taskId' in event)) return;
    const { task } = event;
    if (task !== undefined && RUN_EVENTS.has(event.type) && !known(task) && learnt.size < MAX_LEARNT_NAMES)
      learnt.add(task);
    const id = eventIdParts(event.eventId);
    if (compareEventIdParts(id, last) <= 0) return;
    last = id;
    if (!COUNTED.has(event.type)) return;
    const names = labels(event);
    switch (event.type) {
      case 'task-started':
        if (event.wait !== undefined) wait.observe(names, event.wait / 1_000);
        return;
      case 'task-succeeded':
        tasks.inc({ ...names, state: 'SUCCESS' });
        runtime.observe(names, event.runtime / 1_000);
        return;
      case 'task-failed':
        tasks.inc({ ...names, state: 'FAILURE' });
        if (event.runtime !== undefined) runtime.observe(names, event.runtime / 1_000);
        return;
      case 'task-retried':
        retries.inc(names);
        runtime.observe(names, event.runtime / 1_000);
        return;
      case 'task-revoked':
      case 'task-expired':
        tasks.inc({ ...names, state: 'REVOKED' });
        return;
      case 'task-rejected':
        // Dead-lettered: its record ends FAILURE, so it is a final state too.
        dead.inc(names);
        tasks.inc({ ...names, state: 'FAILURE' });
        return;
      case 'task-sent':
      case 'task-received':
      case 'task-progress':
        return;
    }
  };
}
