/**
 * The worker: reserves tasks from its queues and runs them, at most `concurrency` at a time.
 *
 * States:  idle ──start()──► running ──close()──► closing ──► closed
 *
 * - running: the fetch loop reserves up to the free slots (at most `prefetch`) per round trip, and
 *   blocks in `broker.waitForWork` when nothing is ready (no polling). The lease keeper renews leases.
 * - closing: no new reservations; running tasks get `shutdownTimeout` to finish, then their signals
 *   abort and their messages go back to the queue at once (not after the lease lapses).
 */
import {
  CeleriacError,
  type Broker,
  type CeleriacCore,
  type Delivery,
  type HeldTask,
  type Revocation,
  type WorkerEvent,
} from '@celeriac/core';
import {
  clearLongTimeout,
  runtimeOf,
  setLongTimeout,
  terminationOf,
  toRemoteError,
  type Closeable,
  type LongTimeout,
} from '@celeriac/core/internal';
import { Heartbeat } from './heartbeat';
import { startMetricsServer, type MetricsServer } from './metrics/metrics-server';
import { loadProm } from './metrics/prom';
import type { TaskMetrics } from './metrics/task-metrics';
import { createWorkerMetrics } from './metrics/worker-metrics';
import { LeaseKeeper } from './lease-keeper';
import { nextTurn } from './next-turn';
import { resolveWorkerOptions, type ResolvedWorkerOptions, type WorkerOptions } from './options';
import { Revocations } from './revocations';
import { RunSignal } from './run-signal';
import { createRunner } from './pool/create-runner';
import type { TaskRunner } from './runner';
import type { RunContext } from './run-context';
import { readDelivery, type DeliveryReading } from './read-delivery';
import { failDeadLettered, handBackRunning } from './delivery/hand-back';
import { runDelivery } from './run-delivery';
import { Settler } from './settler';
import { TaskEvents } from './task-events';
import type { WorkerApp } from './worker-app';
import { argsPreview, WorkerControl } from './worker-control';

/** How long a shutdown waits for pool children to say which queued jobs they had not begun. */
const TAKE_BACK_MS = 1_000;

/** A worker's lifecycle state. */
export type WorkerState = 'idle' | 'running' | 'closing' | 'closed';

interface Running {
  delivery: Delivery;
  /** Its message, read when it was reserved. */
  reading: DeliveryReading;
  stop: RunSignal;
  done: Promise<void>;
  /** Set once it was handed back to the queue (at shutdown). */
  handedBack?: true;
  /** Epoch ms when a slot began running it. */
  started?: number;
  /** The pool child whose task function runs it, once the child said it began it. */
  childPid?: number;
}

/** Runs tasks from a broker inside this process. */
export class Worker implements Closeable {
  /** The options after defaults. */
  readonly options: ResolvedWorkerOptions;
  private stateValue: WorkerState = 'idle';
  /** Deliveries held (leased) until settled; their leases are renewed. */
  private readonly running = new Map<string, Running>();
  /** Ids whose task function is running: these occupy the `concurrency` slots. */
  private readonly executing = new Set<string>();
  /** Reserved but not started yet, in reservation order. */
  private prefetched: Running[] = [];
  /** Tasks waiting for a slot again after their dependencies finished. */
  private readonly resuming: Array<{ id: string; resume: () => void }> = [];
  private readonly stopLoop = new AbortController();
  private readonly forced = new AbortController();
  private slotFreed: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private untrack: (() => void) | undefined;
  private settler!: Settler;
  private leases!: LeaseKeeper;
  private revocations!: Revocations;
  private processedCount = 0;
  private runContext!: RunContext;
  private broker!: Broker;
  private runner!: TaskRunner;
  private heartbeat: Heartbeat | undefined;
  private metrics: TaskMetrics | undefined;
  private metricsServer: MetricsServer | undefined;
  private control: WorkerControl | undefined;
  /** The queues consumed now (control add-consumer/cancel-consumer change them). */
  private queues: string[] = [];
  /** Tasks run at once now (control pool-grow/pool-shrink change it). */
  private concurrency = 1;
  private readonly stoppedPromise: Promise<void>;
  private markStopped!: () => void;
  /** Ends the fetch loop's current wait early (a control command changed queues or slots). */
  private waitAbort: AbortController | undefined;
  /** Raised by each control change, so a wait begun after it was read goes round again instead. */
  private changes = 0;

  /** Jobs handed to the runner at once: the concurrency, or more when pool children queue one ahead. */
  private get slots(): number {
    return Math.max(this.concurrency, this.runner?.capacity ?? 0);
  }

  private readonly app: WorkerApp;

  /** A worker for `app` (what `app.worker(options)` makes); call `start()` on it. */
  constructor(app: CeleriacCore, options: WorkerOptions = {}) {
    this.app = runtimeOf(app);
    this.options = resolveWorkerOptions(options, this.app.options.defaultQueue);
    this.queues = [...this.options.queues];
    this.concurrency = this.options.concurrency;
    this.stoppedPromise = new Promise((resolve) => (this.markStopped = resolve));
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
    const { broker, backend, options } = this.app;
    this.broker = broker;
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
    const events = new TaskEvents(this.app, this.options.hostname, (event) => this.settler.event(event));
    this.revocations = new Revocations(broker, options.revokeTtl, (revocation) => this.terminate(revocation));
    this.leases = new LeaseKeeper({
      broker,
      queues: this.options.queues,
      visibilityTimeout: options.visibilityTimeout,
      resultTtl: options.resultTtl,
      held: () => [...this.running.values()].map((run) => run.delivery),
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
      began: (id, childPid) => {
        const entry = this.running.get(id);
        if (entry && childPid !== undefined) entry.childPid = childPid;
      },
      released: (id) => this.release(id),
      acquire: (id, stop) => this.acquire(id, stop),
    };
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
        started,
        heartbeat: Date.now(),
        processed: this.processedCount,
        active: this.running.size,
        busy: this.executing.size,
      }),
      this.options.logger,
      events.enabled ? (worker: WorkerEvent[]) => this.app.emitEvents(worker) : undefined,
    );
    this.heartbeat.start();
    this.control = new WorkerControl(broker, this.controlled(started), this.options.logger);
    await this.control.start();
    this.loop = this.fetchLoop();
    this.options.logger.info(
      { queues: this.options.queues, concurrency: this.options.concurrency },
      `Worker ${this.options.hostname} started`,
    );
  }

  /** Starts the metrics endpoint (loading prom-client only now) and the metrics its hooks feed. */
  private async serveMetrics({ host, port }: { host: string; port: number }): Promise<void> {
    const prom = loadProm();
    const registry = new prom.Registry();
    prom.collectDefaultMetrics({ register: registry });
    this.metrics = createWorkerMetrics(prom, registry, {
      busy: () => this.executing.size,
      concurrency: () => this.concurrency,
      held: () => this.running.size,
      queues: () => this.queues,
      isTask: (name) => this.app.registry.get(name) !== undefined,
      broker: this.broker,
    });
    this.metricsServer = await startMetricsServer(registry, host, port);
    this.options.logger.info({ metrics: this.metricsServer.url }, `Metrics at ${this.metricsServer.url}`);
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

  private async fetchLoop(): Promise<void> {
    const broker = this.broker;
    const signal = this.stopLoop.signal;
    const { prefetch } = this.options;
    let failures = 0;
    let drained = false;
    while (!signal.aborted) {
      const queues = this.queues;
      const changes = this.changes;
      // Reserve ahead (up to `prefetch` waiting here) so the next batch is on hand when slots free up.
      const room = this.slots + prefetch - this.executing.size - this.prefetched.length;
      if (room <= 0) {
        await new Promise<void>((resolve) => (this.slotFreed = resolve));
        continue;
      }
      try {
        // After a short batch from a single queue, that queue is empty: wait for work right away
        // (the wait reserves the moment it ends) instead of asking again first.
        const skipAsking: boolean =
          (drained || broker.drained?.(queues) === true) && queues.length === 1 && broker.waitAndReserve !== undefined;
        let deliveries: Delivery[] = skipAsking || queues.length === 0 ? [] : await broker.reserve(queues, room);
        if (deliveries.length === 0) {
          // Let tasks that end in this tick settle first: their writes are on a caller's critical path.
          await nextTurn();
          // Ends on stop, or early when a control command changed the queues or slots.
          const waitAbort = new AbortController();
          const stop = () => waitAbort.abort();
          signal.addEventListener('abort', stop, { once: true });
          if (signal.aborted) stop();
          this.waitAbort = waitAbort;
          const wait = waitAbort.signal;
          try {
            if (changes !== this.changes) deliveries = [];
            else if (queues.length === 0) await aborted(wait);
            else if (broker.waitAndReserve) deliveries = await broker.waitAndReserve(queues, room, wait);
            else await broker.waitForWork(queues, wait);
          } finally {
            signal.removeEventListener('abort', stop);
            this.waitAbort = undefined;
          }
        }
        // Skip asking next time only after a short but non-empty batch: an empty wake-up (a due
        // time passed, a spurious wake) must be followed by a real reservation, or it could spin.
        drained = deliveries.length > 0 && deliveries.length < room;
        failures = 0;
        if (signal.aborted) {
          await Promise.all(deliveries.map((delivery) => broker.requeue(delivery)));
          break;
        }
        for (const delivery of deliveries) this.hold(delivery);
        this.pump();
      } catch (error) {
        failures += 1;
        const delay = Math.min(5_000, 100 * 2 ** Math.min(failures, 6));
        this.options.logger.error({ error: toRemoteError(error), retryIn: delay }, 'Reserving tasks failed');
        await sleep(delay, signal);
      }
    }
  }

  /**
   * Keeps a reserved delivery (its lease is renewed from now on) until a slot runs it. Its message
   * is read now: the task is received, whether a slot is free or it waits in prefetch.
   */
  private hold(delivery: Delivery): void {
    const reading = readDelivery(this.app, delivery);
    if (reading.kind === 'message')
      this.runContext.events.emit('task-received', reading.message, { delivery: delivery.deliveries });
    const entry: Running = { delivery, reading, stop: new RunSignal(), done: Promise.resolve() };
    this.running.set(delivery.id, entry);
    this.prefetched.push(entry);
  }

  /** Starts prefetched tasks while slots are free; tasks whose dependencies came through go first. */
  private pump(): void {
    while (this.executing.size < this.slots && this.resuming.length > 0 && this.stateValue === 'running') {
      const next = this.resuming.shift() as { id: string; resume: () => void };
      this.executing.add(next.id);
      next.resume();
    }
    while (this.executing.size < this.slots && this.prefetched.length > 0 && this.stateValue === 'running') {
      this.dispatch(this.prefetched.shift() as Running);
    }
  }

  /** Gives a slot back to a task that released it to wait for its dependencies. */
  private acquire(id: string, stop: RunSignal): Promise<void> {
    return new Promise((resolve) => {
      const waiting = { id, resume: resolve };
      this.resuming.push(waiting);
      // Shutdown hands waiting tasks back to the queue: let them return without a slot.
      stop.onAbort(() => {
        const index = this.resuming.indexOf(waiting);
        if (index >= 0) this.resuming.splice(index, 1);
        resolve();
      });
      this.pump();
    });
  }

  private dispatch(entry: Running): void {
    const { delivery, stop } = entry;
    this.executing.add(delivery.id);
    entry.started = Date.now();
    entry.done = runDelivery(this.runContext, delivery, entry.reading, stop)
      .catch((error: unknown) => {
        this.options.logger.error(
          { id: delivery.id, error: toRemoteError(error) },
          'Settling a task failed; its lease will bring it back',
        );
      })
      // A pool child may give a job back at shutdown later than the take-back waited for.
      .then(() => (stop.abandoned ? this.handBack(entry) : undefined))
      .finally(() => {
        this.running.delete(delivery.id);
        this.processedCount += 1;
      });
  }

  private release(id: string): void {
    if (!this.executing.delete(id)) return;
    this.pump();
    const wake = this.slotFreed;
    this.slotFreed = undefined;
    wake?.();
  }

  /**
   * Hands a reserved task back to its queue, once: a run that began as a lost delivery (it counts),
   * one that never began uncounted.
   */
  private async handBack(entry: Running): Promise<void> {
    if (entry.handedBack) return;
    entry.handedBack = true;
    const { delivery, stop } = entry;
    await (stop.started ? handBackRunning(this.runContext, delivery) : this.broker.requeue(delivery)).catch(
      (error: unknown) => {
        this.options.logger.error(
          { id: delivery.id, error: toRemoteError(error) },
          'Handing a task back to its queue failed; its lease will bring it back',
        );
      },
    );
  }

  /** What the control channel reads and changes. */
  private controlled(started: number): ConstructorParameters<typeof WorkerControl>[1] {
    const held = (entries: Iterable<Running>): HeldTask[] =>
      [...entries].map(({ delivery, reading, started: at, childPid }) => {
        const message = reading.kind === 'message' ? reading.message : undefined;
        return {
          id: delivery.id,
          name: message?.task ?? '?',
          queue: delivery.queue,
          args: argsPreview(message?.args),
          deliveries: delivery.deliveries,
          ...(at === undefined ? {} : { started: at }),
          ...(childPid === undefined ? {} : { childPid }),
        };
      });
    return {
      hostname: this.options.hostname,
      pool: this.options.pool,
      started,
      queues: () => this.queues,
      concurrency: () => this.concurrency,
      processed: () => this.processedCount,
      active: () => held([...this.running.values()].filter((entry) => this.executing.has(entry.delivery.id))),
      reserved: () => held([...this.running.values()].filter((entry) => !this.executing.has(entry.delivery.id))),
      registered: () => this.app.registry.names(),
      resize: async (size) => {
        await this.runner.resize?.(size);
        this.concurrency = size;
        this.pump();
        this.wakeLoop();
      },
      addQueue: (queue) => {
        if (!this.queues.includes(queue)) this.queues = [...this.queues, queue];
        this.wakeLoop();
      },
      cancelQueue: (queue) => {
        this.queues = this.queues.filter((name) => name !== queue);
        this.wakeLoop();
      },
      shutdown: () => void this.close(),
    };
  }

  /** Ends the fetch loop's current wait, so it picks up changed queues or slots. */
  private wakeLoop(): void {
    this.changes += 1;
    const wake = this.slotFreed;
    this.slotFreed = undefined;
    wake?.();
    this.waitAbort?.abort();
  }

  private terminate(revocation: Revocation): void {
    const { id } = revocation;
    const run = this.running.get(id);
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
    const { logger, shutdownTimeout } = this.options;
    logger.info({ running: this.running.size }, `Worker ${this.options.hostname} stopping: no new tasks`);
    this.stopLoop.abort();
    this.slotFreed?.();
    await this.loop;
    const unstarted = this.prefetched;
    this.prefetched = [];
    for (const entry of unstarted) this.running.delete(entry.delivery.id);
    // Jobs a pool child holds but has not begun count as prefetched too: the pool takes them back,
    // and only those its children gave back go back to the queue. A job a child has not answered for
    // yet (it is busy) stays its child's: the child may still begin it, and then it runs here once;
    // if it gives it back later, its run ends abandoned and it goes back then.
    const held = [...this.running.values()];
    await this.runner.takeBackQueued?.(TAKE_BACK_MS);
    for (const entry of held) {
      if (entry.stop.started || entry.stop.inChild) continue;
      entry.stop.abandon(new Error('Worker shutting down; the task goes back to the queue'));
      unstarted.push(entry);
    }
    if (unstarted.length > 0) logger.info({ count: unstarted.length }, 'Handing prefetched tasks back to the queue');
    const unanswered = held.filter((entry) => entry.stop.inChild).length;
    if (unanswered > 0)
      logger.info(
        { count: unanswered },
        'Tasks queued in busy pool children go back to the queue once their child gives them back',
      );
    await Promise.all(unstarted.map((entry) => this.handBack(entry)));
    const finished = await waitAll(
      [...this.running.values()].map((run) => run.done),
      shutdownTimeout,
      this.forced.signal,
    );
    if (!finished) {
      const left = [...this.running.values()];
      logger.warn(
        { ids: left.map((run) => run.delivery.id) },
        `Shutdown timeout: handing ${left.length} running task(s) back to the queue`,
      );
      for (const run of left) run.stop.abandon(new Error('Worker shutting down; the task goes back to the queue'));
      // Their children die first: a job a child held must not begin after it went back to the queue.
      await this.runner.close({ force: true });
      await Promise.all(left.map((run) => this.handBack(run)));
    }
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

/** Resolves true when all promises settle within `ms` (and before `forced` aborts), false otherwise. */
async function waitAll(promises: Array<Promise<void>>, ms: number, forced: AbortSignal): Promise<boolean> {
  let timer: LongTimeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setLongTimeout(() => resolve(false), ms);
    forced.addEventListener('abort', () => resolve(false), { once: true });
  });
  try {
    return await Promise.race([Promise.allSettled(promises).then(() => true), timeout]);
  } finally {
    clearLongTimeout(timer);
  }
}

/** Resolves once `signal` has aborted (at once when it has). */
function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
