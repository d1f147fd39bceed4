/**
 * A worker's own metrics, in a prom-client registry: counters and histograms of the tasks it ran,
 * gauges of its slots, and the depth of the queues it consumes. Counters start at 0 with each
 * worker process (Prometheus' `rate()` and `increase()` handle the reset).
 */
import type { Broker } from '@celeriac/core';
import { readQueue, type TaskMessage } from '@celeriac/core/internal';
import type { Gauge, Registry } from 'prom-client';
import { METRIC_PREFIX, type Prom } from './prom';
import { registerQueueGauges } from './queue-gauges';
import { queueWait, type TaskMetrics } from './task-metrics';
import { registerTaskSeries } from './task-series';

/** The label of a task not registered here: names from messages are not trusted to stay few. */
export const UNREGISTERED_TASK = '(unregistered)';

/** What the gauges read from the worker when scraped. */
export interface WorkerGaugeSource {
  /** Tasks whose function runs now. */
  busy: () => number;
  /** Tasks it runs at once. */
  concurrency: () => number;
  /** The bounds autoscale moves `concurrency` between (both the concurrency for a fixed pool). */
  concurrencyMin: () => number;
  concurrencyMax: () => number;
  /** Tasks it holds (running, prefetched, or waiting for their dependencies). */
  held: () => number;
  /** Of those, the tasks not running: held for a slot, as `inspect reserved` lists them. */
  reserved: () => number;
  /** The queues it consumes now. */
  queues: () => readonly string[];
  /** Whether a task name is registered (others are counted as `(unregistered)`). */
  isTask: (name: string) => boolean;
  broker: Broker;
}

/** Registers a worker's metrics in `registry` and returns the hooks that feed them. */
export function createWorkerMetrics(prom: Prom, registry: Registry, source: WorkerGaugeSource): TaskMetrics {
  const registers = [registry];
  const { tasks, retries, dead, runtime, wait } = registerTaskSeries(prom, registry, {
    prefix: METRIC_PREFIX,
    subject: 'this worker',
    source: '',
  });
  const restarts = new prom.Counter({
    name: `${METRIC_PREFIX}worker_child_restarts_total`,
    help: 'Pool children replaced (died, or retired at maxTasksPerChild or maxMemoryPerChild)',
    registers,
  });
  for (const [name, help, read] of [
    ['worker_busy_slots', 'Tasks whose function runs now (busy slots)', source.busy],
    ['worker_concurrency', 'Tasks the worker runs at once (its slots; the pool size now)', source.concurrency],
    [
      'worker_concurrency_min',
      'The fewest slots autoscale shrinks to (the concurrency without it)',
      source.concurrencyMin,
    ],
    ['worker_concurrency_max', 'The most slots autoscale grows to (the concurrency without it)', source.concurrencyMax],
    ['worker_held_tasks', 'Tasks the worker holds: running, prefetched or waiting for dependencies', source.held],
    [
      'worker_reserved_tasks',
      'Tasks the worker holds but does not run: prefetched, queued in a pool child or waiting for dependencies',
      source.reserved,
    ],
  ] as const) {
    const gauge: Gauge = new prom.Gauge({
      name: `${METRIC_PREFIX}${name}`,
      help,
      registers,
      collect: () => gauge.set(read()),
    });
  }
  registerQueueGauges(prom, registry, () => Promise.all(source.queues().map((name) => readQueue(source.broker, name))));

  const labels = (message: TaskMessage) => ({
    task: source.isTask(message.task) ? message.task : UNREGISTERED_TASK,
    queue: message.queue,
  });
  return {
    started(message, at) {
      wait.observe(labels(message), queueWait(message, at) / 1_000);
    },
    finished(message, state, ms) {
      const names = labels(message);
      tasks.inc({ ...names, state });
      if (ms !== undefined) runtime.observe(names, ms / 1_000);
    },
    retried(message, ms) {
      const names = labels(message);
      retries.inc(names);
      runtime.observe(names, ms / 1_000);
    },
    deadLettered(queue, message) {
      dead.inc(message ? labels(message) : { task: UNREGISTERED_TASK, queue });
    },
    childReplaced() {
      restarts.inc();
    },
  };
}
