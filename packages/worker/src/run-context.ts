/** What running a delivery needs from the worker: the stages of its pipeline (delivery/pipeline.ts) share it. */
import type { Broker } from '@celeriac/core';
import type { Logger } from './logger';
import type { TaskMetrics } from './metrics/task-metrics';
import type { RunSignal } from './run-signal';
import type { TaskRunner } from './runner';
import type { Settler } from './settler';
import type { TaskEvents } from './task-events';
import type { WorkerApp } from './worker-app';

/** What running a delivery needs from the worker. */
export interface RunContext {
  app: WorkerApp;
  /** The broker, as the worker opened it (the app's getter refuses calls once the app is closing). */
  broker: Broker;
  settler: Settler;
  /** The task events this worker emits (they leave with the settler's batches). */
  events: TaskEvents;
  /** The worker's metrics; absent when it serves none. */
  metrics: TaskMetrics | undefined;
  runner: TaskRunner;
  /** The worker's time limits for tasks that set none. */
  limits: { timeLimit: number | undefined; softTimeLimit: number | undefined };
  logger: Logger;
  hostname: string;
  isRevoked(id: string): boolean;
  /** Called when the task function begins, with the pool child that runs it (for `inspect active`). */
  began(id: string, childPid: number | undefined): void;
  /** Called once the task function is done (or will not run), so its slot can take the next task. */
  released(id: string): void;
  /** Takes a slot again after `released` (a task that waited for its dependencies); resolves early if `stop` aborts. */
  acquire(id: string, stop: RunSignal): Promise<void>;
}
