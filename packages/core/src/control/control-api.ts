/**
 * `app.control`: asks live workers what they hold now and steers them, over the broker's control
 * channel. Every call resolves with the replies that came within the timeout, one per worker.
 */
import { randomUUID } from 'node:crypto';
import type { Broker } from '../broker';
import { toMilliseconds, type Duration } from '../duration';
import { CeleriacError } from '../errors';
import type { RateLimitOptions, RateLimitSpec } from '../flow/flow-options';
import type { RateSetting } from '../flow/message-limits';
import { parseRate } from '../flow/resolve-limits';
import { brokerSupports, type BrokerWith } from '../supports';
import { brokerWith, type TransportSupport } from '../internal/transport-support';
import type { ControlCommand, ControlReply } from './control-types';

/** What `inspect` can ask a worker. */
export type InspectWhat = 'active' | 'reserved' | 'scheduled' | 'registered' | 'stats';

/** Which workers a control call reaches, and how long it waits for them. */
export interface ControlOptions {
  /** Only these worker hostnames answer (the call returns as soon as they all did). Default: every worker. */
  readonly destination?: string | readonly string[];
  /**
   * How long to wait for replies.
   * @defaultValue `'1s'`
   */
  readonly timeout?: Duration;
}

/** A task a worker holds, as `inspect('active' | 'reserved')` lists it. */
export interface HeldTask {
  readonly id: string;
  readonly name: string;
  readonly queue: string;
  /** The arguments, shortened to a readable preview. */
  readonly args: string;
  /** Epoch ms when it started (active only). */
  readonly started?: number;
  /** The pid of the pool child running it (`prefork` and `fork` pools, once the child began it). */
  readonly childPid?: number;
  readonly deliveries: number;
}

const DEFAULT_TIMEOUT_MS = 1_000;

/** Broadcast requests to workers; reached as `app.control`. */
export class Control {
  constructor(
    private readonly broker: () => Broker,
    private readonly support: () => TransportSupport,
  ) {}

  /** Every worker answers `{ pong: true }`. */
  ping(options: ControlOptions = {}): Promise<ControlReply[]> {
    return this.send('ping', undefined, options);
  }

  /**
   * What each worker holds now: `active` (running), `reserved` (prefetched, not started), `scheduled`
   * (waiting on an ETA in the worker: always empty, since delayed tasks wait in the broker),
   * `registered` (task names) or `stats` (counters).
   */
  inspect(what: InspectWhat, options: ControlOptions = {}): Promise<ControlReply[]> {
    return this.send(what, undefined, options);
  }

  /** Stops workers gracefully (running tasks finish within their shutdown timeout). */
  shutdown(options: ControlOptions = {}): Promise<ControlReply[]> {
    return this.send('shutdown', undefined, options);
  }

  /** Raises each worker's concurrency by `n` (a prefork pool starts `n` more children). */
  poolGrow(n: number, options: ControlOptions = {}): Promise<ControlReply[]> {
    return this.send('pool-grow', positive(n), options);
  }

  /** Lowers each worker's concurrency by `n` (not below 1; idle prefork children leave first). */
  poolShrink(n: number, options: ControlOptions = {}): Promise<ControlReply[]> {
    return this.send('pool-shrink', positive(n), options);
  }

  /** Makes workers reserve from `queue` too. */
  addConsumer(queue: string, options: ControlOptions = {}): Promise<ControlReply[]> {
    return this.send('add-consumer', queueName(queue), options);
  }

  /** Makes workers stop reserving from `queue` (tasks they hold from it still run). */
  cancelConsumer(queue: string, options: ControlOptions = {}): Promise<ControlReply[]> {
    return this.send('cancel-consumer', queueName(queue), options);
  }

  /**
   * Makes workers emit task and worker events from now on (Celery's `enable_events`), for an app
   * whose code leaves `events` off; each answers `{ events: true }`. Lasts until the worker stops
   * or {@link Control.disableEvents}.
   */
  enableEvents(options: ControlOptions = {}): Promise<ControlReply[]> {
    return this.send('enable-events', undefined, options);
  }

  /** Makes workers stop emitting events (Celery's `disable_events`); each answers `{ events: false }`. */
  disableEvents(options: ControlOptions = {}): Promise<ControlReply[]> {
    return this.send('disable-events', undefined, options);
  }

  /**
   * Changes the rate limit of task `name` (every key's budget, for a keyed limit) across every
   * worker, from their next reservation on: `'50/s'`, `{ limit, per, burst }`, or `null` to go back
   * to the limit the task was registered with. Kept in the broker, so it outlives this process.
   * @throws CeleriacError `CELERIAC_INVALID_OPTION` for a bad rate, `CELERIAC_INVALID_STATE` for a
   * broker without flow control.
   */
  async rateLimit(name: string, rate: RateLimitSpec | Omit<RateLimitOptions, 'key'> | null): Promise<void> {
    if (typeof name !== 'string' || name.length === 0)
      throw new CeleriacError(
        'CELERIAC_INVALID_OPTION',
        'Name the task, e.g. app.control.rateLimit("api.call", "50/s").',
      );
    const setting = rate === null ? undefined : parseRate(rate, 'rate limit', `task ${name}`);
    await this.flowControl('app.control.rateLimit').setRateLimit(name, setting);
  }

  /** The rate limits changed at run time (see {@link Control.rateLimit}), by task name. */
  rateLimits(): Promise<Record<string, RateSetting>> {
    return this.flowControl('app.control.rateLimits').rateLimits();
  }

  /** The broker, when it enforces flow control; else `CELERIAC_UNSUPPORTED_BY_TRANSPORT` naming `option`. */
  private flowControl(option: string): BrokerWith<'flowControl'> {
    return brokerWith(this.support(), this.broker(), 'flowControl', option);
  }

  /** Sends one request and collects the replies. */
  private send(
    command: ControlCommand,
    argument: string | number | undefined,
    options: ControlOptions,
  ): Promise<ControlReply[]> {
    const transport = controlOf(this.broker());
    const destination =
      options.destination === undefined
        ? undefined
        : typeof options.destination === 'string'
          ? [options.destination]
          : [...options.destination];
    const timeout = options.timeout === undefined ? DEFAULT_TIMEOUT_MS : toMilliseconds(options.timeout, 'timeout');
    const request = {
      id: randomUUID(),
      command,
      ...(argument === undefined ? {} : { argument }),
      ...(destination ? { destination } : {}),
    };
    return transport.broadcast(request, { timeout, ...(destination ? { limit: destination.length } : {}) });
  }
}

/** The broker's control channel, or an error saying this broker declares none. */
export function controlOf(broker: Broker): BrokerWith<'remoteControl'> {
  if (!brokerSupports(broker, 'remoteControl')) {
    throw new CeleriacError(
      'CELERIAC_INVALID_STATE',
      `${broker.capabilities.transport} has no control channel; use the memory or Redis broker for inspect ` +
        'and control.',
    );
  }
  return broker;
}

function positive(n: number): number {
  if (!Number.isInteger(n) || n < 1)
    throw new CeleriacError(
      'CELERIAC_INVALID_OPTION',
      `The pool size change must be a positive integer, got ${String(n)}.`,
    );
  return n;
}

function queueName(queue: string): string {
  if (typeof queue !== 'string' || queue.length === 0)
    throw new CeleriacError('CELERIAC_INVALID_OPTION', 'Name the queue, e.g. app.control.addConsumer("reports").');
  return queue;
}
