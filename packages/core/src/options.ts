/**
 * Typed options of the app, of tasks and of calls, with their defaults in one place.
 */
import type { TransactionClient } from './transaction-client';
import type { Durability } from './capabilities';

export type { Durability };
import type { CallOptions } from './call-options';
import type { Composable } from './canvas/composable';
import type { ResultBackend } from './backend';
import type { Broker, ReplicationSettings } from './broker';
import type { Duration } from './duration';
import type { FlowOptions } from './flow/flow-options';
import type { TransportClient } from './transport-client';

/** Options of `new Celeriac(...)`. */
export interface CeleriacOptions {
  /**
   * Where messages go: `'redis://host:port/db'`, `'memory://'` (one process), or a Broker object.
   * @defaultValue `'memory://'`
   */
  broker?: string | Broker;
  /**
   * Where results go: a URL or a ResultBackend object.
   * @defaultValue the broker's URL
   */
  backend?: string | ResultBackend;
  /**
   * Namespace of every key this app uses.
   * @defaultValue `'celeriac'`
   */
  prefix?: string;
  /**
   * How long a task stays leased to a worker without renewal; a worker that dies loses its tasks to
   * another worker after this long. Live workers renew well before it passes.
   * @defaultValue `'30s'`
   */
  visibilityTimeout?: Duration;
  /**
   * The wire format on a Redis broker: Celeriac's own, or Celery's (protocol v2 on kombu's Redis
   * transport, results in Celery's Redis result backend), so Python Celery workers and callers share
   * tasks with this app. See docs/celery-interop.md for what crosses.
   * @defaultValue `'celeriac'`
   */
  protocol?: WireProtocol;
  /** With `protocol: 'celery'`: the kombu transport options the Python side uses. */
  celery?: CeleryProtocolOptions;
  /**
   * How long results and failures are kept.
   * @defaultValue `'1d'`
   */
  resultTtl?: Duration;
  /**
   * The queue of tasks that name none.
   * @defaultValue `'default'`
   */
  defaultQueue?: string;
  /**
   * A task delivered more often than this (its workers kept dying) is dead-lettered.
   * @defaultValue `5`
   */
  maxDeliveries?: number;
  /**
   * When set, messages are signed with HMAC-SHA256 and workers reject unsigned or forged ones.
   */
  secret?: string;
  /**
   * With `secret`: how long after it became due (its eta, or when it was sent) a signed message may
   * still start. An older one is dead-lettered unrun, so a copied message cannot be replayed after
   * this window. Retries are signed again and count from when they are due again.
   * @defaultValue `'7d'`
   */
  signatureMaxAge?: Duration;
  /**
   * Largest encoded message, in bytes.
   * @defaultValue `1_048_576` (1 MiB)
   */
  maxMessageSize?: number;
  /**
   * How long revocations are remembered.
   * @defaultValue `'1d'`
   */
  revokeTtl?: Duration;
  /**
   * The event log (see docs/operations.md): `true` turns it on (as Celery's `-E`); an object tunes it.
   * @defaultValue off (its measured cost is in bench/README.md); when on: no payloads, 100,000 entries
   */
  events?: boolean | EventOptions;
  /**
   * How long tasks that failed for good stay in the failed-task registry (`app.failed`); `0` keeps none.
   * @defaultValue `'7d'`
   */
  failedTtl?: Duration;
  /**
   * Most failed tasks kept per queue; the oldest go first.
   * @defaultValue `10_000`
   */
  failedLimit?: number;
  /**
   * How far a write must have gone before it counts as done. `'async'`: the Redis master holds it
   * (Redis replicates later, so a failover can lose the last writes). `'replicated'`: a sender's
   * publish, a worker's records and its acks also wait (`WAIT 1`) until a replica holds them, and
   * fail with `CELERIAC_NOT_REPLICATED` when none confirms within `replicationTimeout`.
   * @defaultValue `'async'`
   */
  durability?: Durability;
  /**
   * With `durability: 'replicated'`: how long a write waits for a replica before failing.
   * @defaultValue `'1s'`
   */
  replicationTimeout?: Duration;
}

/** Options of the event log. */
export interface EventOptions {
  /**
   * Emit events.
   * @defaultValue `true` when `events` is an object, else `events` itself (default `false`)
   */
  enabled?: boolean;
  /**
   * Include task arguments and results (they may hold private data), cut to `payloadLimit`.
   * @defaultValue `false`
   */
  payloads?: boolean;
  /**
   * Most characters of an argument list or result in an event.
   * @defaultValue `1024`
   */
  payloadLimit?: number;
  /**
   * Most entries the log keeps (older ones are trimmed, approximately). On Redis an entry holds the
   * events of one write (a worker's batch of settled tasks, a sender's batch of publishes); in memory, one event.
   * @defaultValue `100_000`
   */
  maxLength?: number;
}

/** Matches errors for `autoretryFor`: an error class, or an error name. */
export type ErrorMatcher = (abstract new (...args: never[]) => Error) | string;

/** Options of one task, given to `app.task(...)` or `@task(...)`. */
export interface TaskOptions<R = unknown> extends FlowOptions {
  /**
   * The queue the task is sent to.
   * @defaultValue the app's `defaultQueue`
   */
  queue?: string;
  /**
   * 0–255; higher runs first within a queue.
   * @defaultValue `0`
   */
  priority?: number;
  /**
   * How many times a failing run is retried. Without `autoretryFor`, any error is retried.
   * @defaultValue `0`
   */
  retries?: number;
  /**
   * Delay before the first retry; the base of the backoff.
   * @defaultValue `'1s'`
   */
  retryDelay?: Duration;
  /**
   * `'fixed'` waits `retryDelay` each time; `'exponential'` doubles it on each retry.
   * @defaultValue `'fixed'`
   */
  backoff?: 'fixed' | 'exponential';
  /**
   * Upper bound of the backoff delay.
   * @defaultValue `'10m'`
   */
  backoffMax?: Duration;
  /**
   * Randomize each delay between 0 and its computed value, so retries of many tasks spread out.
   * @defaultValue `false`
   */
  jitter?: boolean;
  /** Retry only errors of these classes or names. */
  autoretryFor?: readonly ErrorMatcher[];
  /** Hard limit: past it the run is stopped and fails with TimeLimitExceededError. */
  timeLimit?: Duration;
  /** Soft limit: past it `currentTask().signal` aborts with SoftTimeLimitError. */
  softTimeLimit?: Duration;
  /**
   * Do not store the result (states are still stored).
   * @defaultValue `false`
   */
  ignoreResult?: boolean;
  /**
   * How long this task's result is kept.
   * @defaultValue the app's `resultTtl`
   */
  resultTtl?: Duration;
  /** Called in the worker after a successful run. */
  onSuccess?: (result: R, taskId: string) => void | Promise<void>;
  /** Called in the worker after the final failed run. */
  onFailure?: (error: unknown, taskId: string) => void | Promise<void>;
  /** Called in the worker when a run fails and a retry is scheduled. */
  onRetry?: (error: unknown, taskId: string) => void | Promise<void>;
}

/** Options of one call: `handle.applyAsync(args, options)`. */
export interface ApplyOptions extends CallOptions {
  /** Run these when the task succeeds, with its result as the first argument (unless immutable). */
  link?: Callbacks;
  /** Run these with `(taskId, error)` when the task fails for good (after its retries). */
  linkError?: Callbacks;
  /**
   * Run only once these tasks (ids or result handles) succeeded; if one fails or is revoked, this
   * task fails with DependencyFailedError instead of running. Waiting costs no worker slot.
   */
  dependsOn?: Dependency | readonly Dependency[];
  /**
   * A database client on which you ran `BEGIN`: the task is stored through it, so workers see it
   * only if your transaction commits, and never after a ROLLBACK; `sent` resolves once it is stored
   * in the transaction. Only a broker that declares `transactionalPublish` (PostgreSQL) takes it;
   * on any other it throws `CELERIAC_UNSUPPORTED_BY_TRANSPORT`. It is not part of the message (a
   * signature's `set()` should not carry it).
   */
  transaction?: TransactionClient;
}

/** A task that another waits for: its id or its result handle. */
export type Dependency = string | { readonly id: string };

/** One callback signature (or workflow), or a list of them. */
export type Callbacks = Composable | readonly Composable[];

/** The wire formats an app can speak on a Redis broker. */
export type WireProtocol = 'celeriac' | 'celery';

/** Options of `protocol: 'celery'`, named after the kombu transport options they mirror. */
export interface CeleryProtocolOptions {
  /**
   * kombu's `global_keyprefix` (broker transport option): prepended to every broker key (queues,
   * `unacked`, bindings). Results (`celery-task-meta-<id>`) are not prefixed by it, as in Celery
   * (see `resultKeyPrefix`).
   * @defaultValue `''`
   */
  keyPrefix?: string;
  /**
   * What Celery's result backend puts before its key names: results are
   * `<resultKeyPrefix>celery-task-meta-<id>`, chords `<resultKeyPrefix>celery-taskset-meta-<id>.j`.
   * Celery 5.2 has none; Celery 5.3+ prepends `result_backend_transport_options`' `global_keyprefix`
   * (and a separator): set this to the text Python's result keys then start with.
   * @defaultValue `''`
   */
  resultKeyPrefix?: string;
  /**
   * kombu's `visibility_timeout`: a task neither acknowledged nor renewed this long after delivery
   * goes back to its queue. Use the same value as the Python side.
   * @defaultValue `'1h'` (kombu's default)
   */
  visibilityTimeout?: Duration;
}

/** The app's options after defaults and parsing. */
export interface ResolvedAppOptions {
  /** A URL, a Broker, or a client object the app's transports connect through (see TransportClient). */
  broker: string | Broker | TransportClient;
  backend: string | ResultBackend | TransportClient;
  prefix: string;
  visibilityTimeout: number;
  protocol: WireProtocol;
  celery: { keyPrefix: string; resultKeyPrefix: string; visibilityTimeout: number };
  resultTtl: number;
  defaultQueue: string;
  maxDeliveries: number;
  secret: string | undefined;
  signatureMaxAge: number;
  maxMessageSize: number;
  revokeTtl: number;
  events: Required<EventOptions>;
  failedTtl: number;
  failedLimit: number;
  /** Undefined for `durability: 'async'`. */
  replication: ReplicationSettings | undefined;
}

/** Defaults of {@link CeleriacOptions}. */
export const APP_DEFAULTS = {
  broker: 'memory://',
  prefix: 'celeriac',
  visibilityTimeout: '30s',
  protocol: 'celeriac',
  celery: { keyPrefix: '', resultKeyPrefix: '', visibilityTimeout: '1h' },
  resultTtl: '1d',
  defaultQueue: 'default',
  maxDeliveries: 5,
  maxMessageSize: 1_048_576,
  signatureMaxAge: '7d',
  revokeTtl: '1d',
  events: { enabled: false, payloads: false, payloadLimit: 1024, maxLength: 100_000 },
  failedTtl: '7d',
  failedLimit: 10_000,
  durability: 'async',
  replicationTimeout: '1s',
} as const satisfies CeleriacOptions;

/** Defaults of {@link TaskOptions}. */
export const TASK_DEFAULTS = {
  priority: 0,
  retries: 0,
  retryDelay: '1s',
  backoff: 'fixed',
  backoffMax: '10m',
  jitter: false,
  ignoreResult: false,
} as const satisfies TaskOptions;
