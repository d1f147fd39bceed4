/**
 * The worker: reserves tasks from its queues and runs them, at most `concurrency` at a time.
 *
 * States:  idle ──start()──► running ──close()──► closing ──► closed
 *
 * - running: the fetch loop reserves up to the free slots (at most `prefetch`) per round trip, and
 *   blocks in `broker.waitForWork` when nothing is ready (no polling). The lease keeper renews leases.
 * - closing: no new reservations; running tasks get `shutdownTimeout` to finish, then their signals
 *   abort and their messages go back to the queue at once (not after the lease lapses).
 *
 * This class wires the parts and runs the lifecycle; the fetch loop (fetch-loop.ts), the slots and
 * prefetch (worker-slots.ts), one delivery's way (delivery/pipeline.ts), the hand-backs at shutdown
 * (shutdown-hand-back.ts) and the control answers (worker-control.ts) live in modules of their own.
 */
import {
  CeleriacError,
  type Broker,
  type CeleriacCore,
  type Delivery,
  type Revocation,
  type WorkerEvent,
} from '@celeriac/core';
import { keepProcessAlive, runtimeOf, terminationOf, toRemoteError, type Closeable } from '@celeriac/core/internal';
import { failDeadLettered } from './delivery/hand-back';
import { readDelivery, runDelivery } from './delivery/pipeline';
import { FetchLoop } from './fetch-loop';
import { Heartbeat } from './heartbeat';
import type { MetricsServer } from './metrics/metrics-server';
import { serveWorkerMetrics } from './metrics/serve-worker-metrics';
import type { TaskMetrics } from './metrics/task-metrics';
import { LeaseKeeper } from './lease-keeper';
import {
  resolveWorkerOptions,
  type ResolvedMetricsEndpoint,
  type ResolvedWorkerOptions,
  type WorkerOptions,
} from './options';
import { Revocations } from './revocations';
import { createRunner } from './pool/create-runner';
import type { TaskRunner } from './runner';
import type { RunContext } from './run-context';
import { Settler } from './settler';
import { ShutdownHandBack } from './shutdown-hand-back';
import { TaskEvents } from './task-events';
import type { WorkerApp } from './worker-app';
import { WorkerControl, type ControlledWorker } from './worker-control';
import { WorkerSlots, type HeldRun } from './worker-slots';
import { waitAll } from './wait-all';
import { WorkerAutoscale } from './worker-autoscale';

/** A worker's lifecycle state. */
export type WorkerState = 'idle' | 'running' | 'closing' | 'closed';

/** Runs tasks from a broker inside this process. */
export class Worker implements Closeable {
  /** The options after defaults. */
  readonly options: ResolvedWorkerOptions;
  private stateValue: WorkerState = 'idle';
  /** The deliveries held until settled, and the slots they run in. */
  private readonly slots = new WorkerSlots({
    // The concurrency, or more when pool children queue one ahead.
    slots: () => Math.max(this.concurrency, this.runner?.capacity ?? 0),
    canStart: () => this.stateValue === 'running',
    run: (entry) => this.dispatch(entry),
    changed: () => this.autoscale?.observe(),
  });
  private readonly forced = new AbortController();
  private fetchLoop!: FetchLoop;
  private closing: Promise<void> | undefined;
  private untrack: (() => void) | undefined;
  private settler!: Settler;
  private leases!: LeaseKeeper;
  private revocations!: Revocations;
  private processedCount = 0;
  private runContext!: RunContext;
  private broker!: Broker;
  private runner!: TaskRunner;
  private handBacks!: ShutdownHandBack;
  private heartbeat: Heartbeat | undefined;
  private metrics: TaskMetrics | undefined;
  private metricsServer: MetricsServer | undefined;
  private control: WorkerControl | undefined;
  private events: TaskEvents | undefined;
  private autoscale: WorkerAutoscale | undefined;
  /** The resize in progress: control commands and the autoscaler take turns. */
  private resizing: Promise<void> = Promise.resolve();
  /** The queues consumed now (control add-consumer/cancel-consumer change them). */
  private queues: string[] = [];
  /** Tasks run at once now (control pool-grow/pool-shrink change it). */
  private concurrency = 1;
  private readonly stoppedPromise: Promise<void>;
  private markStopped!: () => void;
  private releaseProcess: (() => void) | undefined;

  private readonly app: WorkerApp;

  /** A worker for `app` (what `app.worker(options)` makes); call `start()` on it. */
  constructor(app: CeleriacCore, options: WorkerOptions = {}) {
    this.app = runtimeOf(app);
    this.options = resolveWorkerOptions(options, this.app.options.defaultQueue);
    this.queues = [...this.options.queues];
    this.concurrency = this.options.concurrency;
    this.stoppedPromise = new Promise((resolve) => (this.markStopped = resolve));
    // A running worker holds its process open: its connections let go of it when they are quiet.
    void this.stoppedPromise.then(() => this.releaseProcess?.());
  }

  /** Resolves once the worker has stopped, whoever stopped it (`close()`, or a control `shutdown`). */
  get stopped(): Promise<void> {
    return this.stoppedPromise;
  }

  /** The current lifecycle state. */
  get state(): WorkerState {
    return this.stateValue;
  }

  /** The URL of this worker's metrics endpoint, once started with the `metrics` option. */
  get metricsUrl(): string | undefined {
    return this.metricsServer?.url;
  }

  /** How many tasks this worker has finished (any outcome). */
  get processed(): number {
    return this.processedCount;
  }

  /** Connects, loads revocations, and starts reserving tasks. Resolves once the worker is consuming. */
  async start(): Promise<void> {
    if (this.stateValue !== 'idle') {
      throw new CeleriacError(
        'CELERIAC_INVALID_STATE',
        `This worker is ${this.stateValue}; a worker starts once. Create a new one with app.worker().`,
      );
    }
    this.stateValue = 'running';
    this.releaseProcess = keepProcessAlive();
    const { broker, backend, options } = this.app;
    this.broker = broker;
    // Made now, so a close() during the start stops it before it begins.
    this.fetchLoop = new FetchLoop({
      broker,
      prefetch: this.options.autoscale
        ? () => this.autoscale?.prefetch() ?? this.options.prefetch
        : this.options.prefetch,
      logger: this.options.logger,
      slots: this.slots,
      queues: () => this.queues,
      hold: (delivery) => this.hold(delivery),
    });
    if (this.options.metrics) {
      try {
        await this.serveMetrics(this.options.metrics);
      } catch (error) {
        // Nothing else was started: the worker is done, as after close().
        this.stateValue = 'closed';
        this.markStopped();
        throw error;
      }
    }
    this.untrack = this.app.track(this);
    this.settler = new Settler(backend, broker);
    const events = new TaskEvents(
      this.app,
      this.options.hostname,
      (event) => this.settler.event(event),
      this.options.events ?? options.events.enabled,
    );
    this.events = events;
    this.revocations = new Revocations(broker, options.revokeTtl, (revocation) => this.terminate(revocation));
    this.leases = new LeaseKeeper({
      broker,
      queues: () => this.queues,
      visibilityTimeout: options.visibilityTimeout,
      resultTtl: options.resultTtl,
      held: () => [...this.slots.held.values()].map((run) => run.delivery),
      store: (entries) => backend.store(entries),
      dead: (dead, message) => {
        this.metrics?.deadLettered(dead.queue, message);
        events.emit('task-rejected', message ?? dead, { reason: dead.reason });
      },
      decode: (body) => this.app.decodeOrUndefined(body),
      failed: (message, error) => failDeadLettered(this.runContext, message, error),
      logger: this.options.logger,
    });
    this.runner = createRunner(this.app, this.options, () => this.metrics?.childReplaced());
    this.runContext = {
      app: this.app,
      broker,
      runner: this.runner,
      limits: { timeLimit: this.options.timeLimit, softTimeLimit: this.options.softTimeLimit },
      settler: this.settler,
      events,
      metrics: this.metrics,
      logger: this.options.logger,
      hostname: this.options.hostname,
      isRevoked: (id) => this.revocations.has(id),
      began: (id, childPid) => this.slots.began(id, childPid),
      released: (id) => this.slots.release(id),
      acquire: (id, stop) => this.slots.acquire(id, stop),
    };
    this.handBacks = new ShutdownHandBack({ run: this.runContext, runner: this.runner, slots: this.slots });
    try {
      await this.runner.start();
    } catch (error) {
      await this.abandonStart();
      throw error;
    }
    await this.revocations.start();
    this.leases.start();
    const started = Date.now();
    this.heartbeat = new Heartbeat(
      broker,
      () => ({
        hostname: this.options.hostname,
        pid: process.pid,
        queues: this.queues,
        pool: this.options.pool,
        concurrency: this.concurrency,
        ...this.autoscale?.report(),
        started,
        heartbeat: Date.now(),
        processed: this.processedCount,
        active: this.slots.held.size,
        busy: this.slots.busy(),
      }),
      this.options.logger,
      // Read at each beat: `control enable-events` turns the worker events on with the task events.
      (worker: WorkerEvent[]) => (events.enabled ? this.app.emitEvents(worker) : Promise.resolve()),
    );
    this.heartbeat.start();
    this.control = new WorkerControl(broker, this.controlled(started), this.options.logger);
    await this.control.start();
    this.startAutoscale();
    this.fetchLoop.start();
    this.options.logger.info(
      { queues: this.options.queues, concurrency: this.options.concurrency },
      `Worker ${this.options.hostname} started`,
    );
  }

  /** Starts the metrics endpoint and the metrics its hooks feed. */
  private async serveMetrics(endpoint: ResolvedMetricsEndpoint): Promise<void> {
    const served = await serveWorkerMetrics(
      endpoint,
      {
        busy: () => this.slots.busy(),
        concurrency: () => this.concurrency,
        concurrencyMin: () => this.autoscale?.bounds.min ?? this.concurrency,
        concurrencyMax: () => this.autoscale?.bounds.max ?? this.concurrency,
        held: () => this.slots.held.size,
        reserved: () => this.slots.held.size - this.slots.busy(),
        queues: () => this.queues,
        isTask: (name) => this.app.registry.get(name) !== undefined,
        broker: this.broker,
      },
      this.options.logger,
    );
    this.metrics = served.metrics;
    this.metricsServer = served.server;
  }

  /**
   * The runner could not start (a pool child could not load the app): stop the children that did,
   * and the respawns of those that did not, and end closed; nothing was reserved yet.
   */
  private async abandonStart(): Promise<void> {
    this.stateValue = 'closed';
    this.closing = Promise.resolve();
    await this.runner.close({ force: true }).catch(() => undefined);
    this.untrack?.();
    // It ends closed: `stopped` resolves, and the process is no longer held for it.
    this.markStopped();
  }

  /**
   * Stops gracefully: no new tasks, running ones get `shutdownTimeout` to finish, the rest go back
   * to their queue. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  /** Stops now: running tasks are aborted and handed back to the queue without waiting. */
  forceClose(): Promise<void> {
    this.forced.abort();
    return this.close();
  }

  /**
   * Keeps a reserved delivery (its lease is renewed from now on) until a slot runs it. Its message
   * is read now: the task is received, whether a slot is free or it waits in prefetch.
   */
  private hold(delivery: Delivery): void {
    this.slots.hold(delivery, readDelivery(this.runContext, delivery));
  }

  /** Runs a held delivery in the slot just taken for it, then hands it back if the shutdown abandoned it. */
  private dispatch(entry: HeldRun): void {
    const { delivery, stop } = entry;
    entry.done = runDelivery(this.runContext, entry)
      .catch((error: unknown) => {
        this.options.logger.error(
          { id: delivery.id, error: toRemoteError(error) },
          'Settling a task failed; its lease will bring it back',
        );
      })
      // A pool child may give a job back at shutdown later than the take-back waited for.
      .then(() => (stop.abandoned ? this.handBacks.handBack(entry) : undefined))
      .finally(() => {
        this.slots.held.delete(delivery.id);
        this.processedCount += 1;
      });
  }

  /** What the control channel reads and changes. */
  private controlled(started: number): ControlledWorker {
    return {
      hostname: this.options.hostname,
      pool: this.options.pool,
      started,
      queues: () => this.queues,
      concurrency: () => this.concurrency,
      autoscale: () => this.autoscale?.bounds,
      processed: () => this.processedCount,
      active: () => this.slots.active(),
      reserved: () => this.slots.reserved(),
      registered: () => this.app.registry.names(),
      resize: async (size) => {
        this.autoscale?.resized(size);
        await this.resize(size);
      },
      addQueue: (queue) => {
        if (!this.queues.includes(queue)) this.queues = [...this.queues, queue];
        this.fetchLoop.wake();
      },
      cancelQueue: (queue) => {
        this.queues = this.queues.filter((name) => name !== queue);
        this.fetchLoop.wake();
      },
      shutdown: () => void this.close(),
      enableEvents: (on) => this.events?.enable(on),
    };
  }

  /** Sets the pool's size (control commands, the autoscaler), one change at a time; then renews the heartbeat. */
  private resize(size: number): Promise<void> {
    this.resizing = this.resizing
      .catch(() => undefined)
      .then(async () => {
        if (this.stateValue !== 'running') return;
        await this.runner.resize?.(size);
        this.concurrency = size;
        this.slots.pump();
        this.fetchLoop.wake();
        await this.heartbeat?.refresh();
      });
    return this.resizing;
  }

  /** With `autoscale`: starts watching the demand, from the pool's first size. */
  private startAutoscale(): void {
    const { autoscale, prefetch, prefetchGiven, logger } = this.options;
    if (!autoscale) return;
    this.autoscale = new WorkerAutoscale({
      autoscale,
      prefetch,
      prefetchGiven,
      logger,
      demand: () => this.slots.demand(),
      size: () => this.concurrency,
      resize: (size) => this.resize(size),
    });
  }

  private terminate(revocation: Revocation): void {
    const { id } = revocation;
    const run = this.slots.held.get(id);
    run?.stop.terminate(new Error(`Task ${id} was revoked with terminate`), terminationOf(revocation));
    // Logged once what the abort sends a pool child has left (its pipe writes go in a microtask).
    const what = run ? 'stopping it' : 'it is not held here';
    queueMicrotask(() => this.options.logger.info({ id }, `Task ${id} revoked with terminate: ${what}`));
  }

  private async shutdown(): Promise<void> {
    if (this.stateValue === 'idle') {
      this.stateValue = 'closed';
      return;
    }
    this.stateValue = 'closing';
    this.autoscale?.stop();
    const { logger, shutdownTimeout } = this.options;
    logger.info({ running: this.slots.held.size }, `Worker ${this.options.hostname} stopping: no new tasks`);
    await this.fetchLoop.stop();
    await this.handBacks.unstarted();
    const finished = await waitAll(
      [...this.slots.held.values()].map((run) => run.done),
      shutdownTimeout,
      this.forced.signal,
    );
    if (!finished) await this.handBacks.running();
    await this.settler.drain();
    if (finished) await this.runner.close();
    await this.leases.stop();
    await this.revocations.stop();
    await this.heartbeat?.stop(this.options.hostname);
    await this.control?.stop();
    await this.metricsServer?.close();
    this.untrack?.();
    this.stateValue = 'closed';
    this.markStopped();
    logger.info({ processed: this.processedCount }, `Worker ${this.options.hostname} stopped`);
  }
}
