/**
 * A worker's side of the control channel: answers `inspect` from what it holds now and carries out
 * `control` commands (shutdown, pool size, consumed queues). Requests naming other workers are ignored.
 */
import type { Broker, ControlReply, ControlRequest, HeldTask } from '@celeriac/core';
import { controlOf, plainJson } from '@celeriac/core/internal';
import type { Logger } from './logger';

/** How much of a task's arguments `inspect` shows. */
const ARGS_PREVIEW_CHARS = 200;

/** What the control responder may read and change on its worker. */
export interface ControlledWorker {
  readonly hostname: string;
  readonly pool: string;
  readonly started: number;
  queues(): readonly string[];
  concurrency(): number;
  /** The autoscale bounds, when the pool autoscales (`concurrency` is then its size now). */
  autoscale(): { min: number; max: number } | undefined;
  processed(): number;
  /** Tasks running now. */
  active(): HeldTask[];
  /** Tasks reserved but not started. */
  reserved(): HeldTask[];
  registered(): string[];
  resize(concurrency: number): Promise<void>;
  addQueue(queue: string): void;
  cancelQueue(queue: string): void;
  /** Starts a graceful shutdown (after the reply went out). */
  shutdown(): void;
  /** Turns this worker's task and worker events on or off. */
  enableEvents(on: boolean): void;
}

/** Listens for control requests while the worker runs. */
export class WorkerControl {
  private unsubscribe: (() => Promise<void>) | undefined;

  constructor(
    private readonly broker: Broker,
    private readonly worker: ControlledWorker,
    private readonly logger: Logger,
  ) {}

  /** Subscribes, when the broker has a control channel. */
  async start(): Promise<void> {
    if (!this.broker.capabilities.remoteControl) return;
    this.unsubscribe = await controlOf(this.broker).onControl((request) => this.answer(request));
  }

  /** Stops listening. */
  async stop(): Promise<void> {
    await this.unsubscribe?.().catch(() => undefined);
    this.unsubscribe = undefined;
  }

  private async answer(request: ControlRequest): Promise<ControlReply | undefined> {
    const { hostname } = this.worker;
    if (request.destination && !request.destination.includes(hostname)) return undefined;
    try {
      return { hostname, ok: true, value: await this.run(request) };
    } catch (error) {
      return { hostname, ok: false, error: (error as Error).message };
    }
  }

  private async run(request: ControlRequest): Promise<unknown> {
    const worker = this.worker;
    switch (request.command) {
      case 'ping':
        return { pong: true };
      case 'active':
        return worker.active();
      case 'reserved':
        return worker.reserved();
      case 'scheduled':
        // Delayed tasks (countdown, ETA, retry backoff) wait in the broker, not in a worker.
        return [];
      case 'registered':
        return worker.registered();
      case 'stats':
        return {
          hostname: worker.hostname,
          pid: process.pid,
          pool: worker.pool,
          concurrency: worker.concurrency(),
          ...autoscaleField(worker.autoscale()),
          queues: worker.queues(),
          started: worker.started,
          uptime: Date.now() - worker.started,
          processed: worker.processed(),
          active: worker.active().length,
          reserved: worker.reserved().length,
          rss: process.memoryUsage().rss,
        };
      case 'shutdown':
        this.logger.info({ request: request.id }, 'Shutdown requested over the control channel');
        setImmediate(() => worker.shutdown());
        return { ok: 'shutting down' };
      case 'pool-grow':
      case 'pool-shrink': {
        const n = Number(request.argument);
        if (!Number.isInteger(n) || n < 1)
          throw new Error(`${request.command} needs a positive count, got ${String(request.argument)}`);
        const size = Math.max(1, worker.concurrency() + (request.command === 'pool-grow' ? n : -n));
        await worker.resize(size);
        this.logger.info({ concurrency: size }, `Concurrency changed to ${size} over the control channel`);
        return { concurrency: size };
      }
      case 'add-consumer':
      case 'cancel-consumer': {
        const queue = String(request.argument ?? '');
        if (queue === '') throw new Error(`${request.command} needs a queue name`);
        if (request.command === 'add-consumer') worker.addQueue(queue);
        else worker.cancelQueue(queue);
        this.logger.info({ queues: worker.queues() }, `Now consuming ${worker.queues().join(', ') || 'no queue'}`);
        return { queues: worker.queues() };
      }
      case 'enable-events':
      case 'disable-events': {
        const on = request.command === 'enable-events';
        worker.enableEvents(on);
        this.logger.info({ events: on }, `Events ${on ? 'enabled' : 'disabled'} over the control channel`);
        return { events: on };
      }
      default:
        throw new Error(`Unknown control command ${String(request.command)}`);
    }
  }
}

function autoscaleField(bounds: { min: number; max: number } | undefined): {
  autoscale?: { min: number; max: number };
} {
  return bounds === undefined ? {} : { autoscale: bounds };
}

/** A short, readable preview of a task's arguments. */
export function argsPreview(args: readonly unknown[] | undefined): string {
  if (args === undefined) return '?';
  let text: string;
  try {
    // Plain JSON data (a Map as an object, a BigInt as a number), not the codec's wire form.
    text = JSON.stringify(plainJson(args)) ?? '';
  } catch {
    text = '[unserializable]';
  }
  return text.length > ARGS_PREVIEW_CHARS ? `${text.slice(0, ARGS_PREVIEW_CHARS - 1)}…` : text;
}
