/**
 * The Broker interface: where task messages wait, are leased to workers, and are settled.
 *
 * Lifecycle of one message (every arrow is one atomic step of the broker):
 *
 *   publish ──► delayed ──(eta reached)──► queued ──reserve──► active (leased)
 *                  ▲                          ▲                   │
 *                  └────── requeue(delay) ────┴── requeue(0) ─────┤
 *                                             ▲                   ├── ack ──► gone (finished)
 *                                             └ lease lapsed ─────┤
 *                                               (deliveries++)    └── deadLetter ──► dead
 *   dead ──requeueDead──► queued               dead ──discardDead──► gone
 */
import type { BrokerCapabilities } from './capabilities';
import type { ControlTransport } from './control/control-types';
import type { RemoteError } from './errors';
import type { RateSetting } from './flow/message-limits';
import type { Envelope } from './message';
import type { TransactionClient } from './transaction-client';

/**
 * What happened to one published envelope: stored, skipped (its chosen id is still waiting or
 * running), or skipped as a duplicate of the unique task with id `duplicateOf`.
 *
 * A debounced envelope (limits `debounce`) whose key a task is waiting out its window with is not
 * stored: the outcome names that task (`debounceInto`), and the sender publishes the message again,
 * encoded under that id, with `replaces` set. That replacement swaps the waiting task's message and
 * start time (`duplicateOf`: that id), or, if the task left its wait meanwhile, names the task now
 * waiting for the key (`debounceInto`) or is `'missed'` (none is: send afresh).
 */
export type PublishOutcome =
  'published' | 'duplicate' | 'missed' | { readonly duplicateOf: string } | { readonly debounceInto: string };

/** A message leased to a worker. Hand it back to `ack`, `requeue` or `deadLetter`. */
export interface Delivery {
  readonly id: string;
  readonly queue: string;
  /** The encoded message, as published. */
  readonly body: string;
  /** 1 on the first delivery; raised each time a lapsed lease brought the message back. */
  readonly deliveries: number;
}

/** A message that ended in the dead-letter set. */
export interface DeadLetter {
  readonly id: string;
  readonly queue: string;
  readonly body: string;
  /** Why it was dead-lettered, for the operator. */
  readonly reason: string;
  /** Epoch ms when it was dead-lettered. */
  readonly at: number;
  /**
   * Set when the body was over `maxMessageSize`: its size in bytes. Only its first KiB is kept (in
   * `body`), and it cannot be requeued.
   */
  readonly size?: number;
}

/** Why a task failed for good, recorded with its ack in the failed-task registry. */
export interface Failure {
  /** The task name. */
  readonly task: string;
  /** The error of its last run, with its stack. */
  readonly error: RemoteError;
  /** Runs it made (retries + 1). */
  readonly attempts: number;
}

/** A task kept in the failed-task registry: its message, as last published, and why it failed. */
export interface FailedTask extends Failure {
  readonly id: string;
  readonly queue: string;
  /** The encoded message of its last run. */
  readonly body: string;
  /** Epoch ms when it failed. */
  readonly at: number;
}

/** What a lease sweep did: lapsed messages returned to their queue, or dead-lettered. */
export interface RecoveryReport {
  readonly requeued: readonly string[];
  readonly dead: readonly DeadLetter[];
}

/** A message that `purge` removed before it ran. */
export interface PurgedMessage {
  readonly id: string;
  /** Its encoded message, for the app to find its reply channel, result TTL and workflow. */
  readonly body: string;
}

/** A revocation, as kept by the broker until it expires. */
export interface Revocation {
  readonly id: string;
  /** Also stop the task if it is running. */
  readonly terminate: boolean;
  /** With `terminate`: the signal that kills a pool child still running the task after `grace` (absent: SIGTERM). */
  readonly signal?: TerminateSignal;
  /** With `terminate`: how long a pool child may run on after the task's signal aborted, in ms (absent: 1 s). */
  readonly grace?: number;
}

/** The signals `revoke({ terminate: true, signal })` may kill a pool child with. */
export type TerminateSignal = 'SIGTERM' | 'SIGKILL';

/** Settings every broker receives from the app. */
export interface BrokerSettings {
  /** Key namespace. */
  readonly prefix: string;
  /** How long a reservation stays valid without renewal, in ms. */
  readonly visibilityTimeout: number;
  /** A message delivered more often than this is dead-lettered. */
  readonly maxDeliveries: number;
  /** How long revocations are remembered, in ms. */
  readonly revokeTtl: number;
  /** A dead letter keeps a body up to this many bytes whole, and only a preview of a larger one. */
  readonly maxMessageSize?: number;
  /** How long failed tasks stay in the failed-task registry, in ms (0: not kept). */
  readonly failedTtl?: number;
  /** Most failed tasks kept per queue. */
  readonly failedLimit?: number;
  /** With `durability: 'replicated'`: publishes and acks wait for replicas; undefined: they do not. */
  readonly replication?: ReplicationSettings;
}

/** What `durability: 'replicated'` asks of a write: how many replicas must hold it, and how long to wait. */
export interface ReplicationSettings {
  /** Replicas that must confirm a write. */
  readonly replicas: number;
  /** How long to wait for them, in ms, before the write fails with `CELERIAC_NOT_REPLICATED`. */
  readonly timeout: number;
}

/**
 * Moves messages between the places of the diagram above. Implementations: the memory broker
 * (`memory://`, one process), the Redis broker and the Celery broker. `@celeriac/core/testing` holds
 * a conformance suite. The optional members are what some transports implement: callers branch on
 * {@link Broker.capabilities} (see `brokerSupports`), never on whether a member exists.
 */
export interface Broker extends Partial<ControlTransport> {
  /** What this broker can do; each flag set promises the members it stands for. */
  readonly capabilities: BrokerCapabilities;
  /**
   * Stores envelopes (ready or delayed by `eta`), in order; idempotent ones are skipped when their id is still waiting
   * or running.
   */
  publish(envelopes: readonly Envelope[]): Promise<PublishOutcome[]>;
  /**
   * Like `publish`, but the envelopes are stored through `transaction`, a client of the caller's open
   * transaction: workers see them only if it commits (the `transaction` send option).
   */
  publishInTransaction?(envelopes: readonly Envelope[], transaction: TransactionClient): Promise<PublishOutcome[]>;
  /**
   * Leases up to `count` ready messages, taking queues in the given order (earlier queues drain
   * first) and, within a queue, higher priority first, then first in first out. Never blocks.
   */
  reserve(queues: readonly string[], count: number): Promise<Delivery[]>;
  /**
   * Resolves when work may be ready in one of the queues: a publish, or a delayed message coming due.
   * Resolves at once when the signal aborts. Spurious wake-ups are allowed; busy polling is not.
   */
  waitForWork(queues: readonly string[], signal: AbortSignal): Promise<void>;
  /**
   * Optional fast path of `waitForWork` then `reserve(queues, count)`: the reservation happens the
   * moment the wait ends, without a round trip in between. May resolve with no deliveries.
   */
  waitAndReserve?(queues: readonly string[], count: number, signal: AbortSignal): Promise<Delivery[]>;
  /**
   * True when this broker's last reservation on `queues` left them empty, so a worker may go
   * straight to `waitAndReserve` (a message published since wakes it at once).
   */
  drained?(queues: readonly string[]): boolean;
  /**
   * Settles leased messages as done. Those named in `failures` failed for good: in the same atomic
   * step they go into the failed-task registry (kept `failedTtl`, at most `failedLimit` a queue).
   * A delivery after the first that is acked as done drops an entry an earlier delivery of the
   * same message kept (it failed, then its worker died before the ack: the run that counts is this).
   */
  ack(deliveries: readonly Delivery[], failures?: ReadonlyMap<string, Failure>): Promise<void>;
  /**
   * Writes the failed-task registry entries of leased deliveries that failed for good, before their
   * FAILURE records are stored, so whoever sees a failure finds its entry (`ack` with `failures`
   * follows and settles them). A delivery whose lease was lost writes nothing.
   */
  keepFailed?(deliveries: readonly Delivery[], failures: ReadonlyMap<string, Failure>): Promise<void>;
  /** Lists the failed-task registry of a queue, newest first (expired entries are left out). */
  listFailed?(queue: string, options?: { offset?: number; limit?: number }): Promise<FailedTask[]>;
  /** The registry entries of these ids in a queue, in the order of `ids` (undefined where absent). */
  getFailed?(queue: string, ids: readonly string[]): Promise<Array<FailedTask | undefined>>;
  /** Removes entries from a queue's registry: those of `ids`, or all when left out. Returns how many went. */
  discardFailed?(queue: string, ids?: readonly string[]): Promise<number>;
  /** How many tasks a queue's failed-task registry holds (expired entries left out). */
  countFailed?(queue: string): Promise<number>;
  /** The names of the queues ever published to. */
  queueNames?(): Promise<string[]>;
  /**
   * Returns a leased message to its queue, after `delay` ms, optionally with a new body (a retry
   * raises its counter). A requeue does not count as a lost delivery.
   */
  requeue(delivery: Delivery, options?: { delay?: number; body?: string }): Promise<void>;
  /**
   * Returns a leased message whose run was lost (its process died) to its queue, counting a lost
   * delivery like a lapsed lease does; past `maxDeliveries` it is dead-lettered with `reason`.
   */
  requeueLost(delivery: Delivery, reason: string): Promise<'requeued' | 'dead'>;
  /** Moves a leased message to the dead-letter set with a reason. */
  deadLetter(delivery: Delivery, reason: string): Promise<void>;
  /** Pushes the lease deadline of running messages to now + visibility timeout. */
  extendLeases(deliveries: readonly Delivery[]): Promise<void>;
  /**
   * Returns messages whose lease lapsed to their queues (raising their delivery count), or
   * dead-letters those past `maxDeliveries`. Any live worker may call this.
   */
  recoverLapsed(queues: readonly string[]): Promise<RecoveryReport>;
  /** Lists dead-lettered messages of a queue, oldest first. */
  listDead(queue: string, options?: { offset?: number; limit?: number }): Promise<DeadLetter[]>;
  /**
   * Puts dead-lettered messages back into their queue with a fresh delivery count: those of `ids`,
   * or all of the queue when `ids` is left out (an empty list moves none). Returns how many moved.
   */
  requeueDead(queue: string, ids?: readonly string[]): Promise<number>;
  /**
   * Deletes dead-lettered messages for good: those of `ids`, or all of the queue when `ids` is left
   * out (an empty list deletes none). Returns how many went.
   */
  discardDead(queue: string, ids?: readonly string[]): Promise<number>;
  /**
   * Records a revocation (remembered for `revokeTtl`), tells running workers, and removes the message if it is still
   * waiting.
   */
  revoke(revocation: Revocation): Promise<{ removed: boolean; body?: string }>;
  /** The revocations still remembered. */
  listRevoked(): Promise<Revocation[]>;
  /** Calls `listener` for every revocation from now on; returns an unsubscribe function. */
  onRevoke(listener: (revocation: Revocation) => void): Promise<() => Promise<void>>;
  /** Records that a worker is alive (for inspection and the dashboard); forgotten after `ttl` ms unless renewed. */
  heartbeat?(info: WorkerInfo, ttl: number): Promise<void>;
  /** Removes a worker's record (on clean shutdown). */
  forgetWorker?(hostname: string): Promise<void>;
  /** The workers whose heartbeat has not expired. */
  listWorkers?(): Promise<WorkerInfo[]>;
  /** Counts messages by place: ready, delayed, active, dead. */
  stats(queue: string): Promise<QueueStats>;
  /**
   * Removes every ready and delayed message of a queue and returns them. The broker stores no
   * result: `app.purge()` records each as REVOKED (reason `purged`), which wakes their waiters.
   */
  purge(queue: string): Promise<PurgedMessage[]>;
  /**
   * Sets the rate limit of every scope of `task` from now on, over the one it was registered with
   * (undefined: back to that one). Kept by the broker, so every worker and later process sees it.
   */
  setRateLimit?(task: string, rate: RateSetting | undefined): Promise<void>;
  /** The rate limits set at run time, by task name. */
  rateLimits?(): Promise<Record<string, RateSetting>>;
  /**
   * Drops the connections this broker's waits block on, so every wait in progress ends now and the
   * next one starts on a fresh connection. The fetch loop calls it when one of its calls did not come
   * back within its bound; a broker whose waits cannot hang leaves it out.
   */
  reconnect?(): void;
  /**
   * Why the broker cannot be reached now: the last failed connection attempt (e.g. `connect
   * ECONNREFUSED 127.0.0.1:6379`), or undefined while connected or not known. What a process
   * waiting for its broker says.
   */
  unreachable?(): string | undefined;
  /** Releases connections and timers. */
  close(): Promise<void>;
}

/** What a worker tells about itself in its heartbeat. */
export interface WorkerInfo {
  readonly hostname: string;
  readonly pid: number;
  readonly queues: readonly string[];
  readonly pool: string;
  /** Tasks it runs at once: the pool's size now (which autoscale moves between its bounds). */
  readonly concurrency: number;
  /**
   * The bounds of a worker started with `autoscale` (`--autoscale MAX,MIN`), between which
   * `concurrency` moves; absent for a fixed pool (and from workers older than this field).
   */
  readonly autoscale?: { readonly min: number; readonly max: number };
  /** Epoch ms when the worker started. */
  readonly started: number;
  /** Epoch ms of this heartbeat. */
  readonly heartbeat: number;
  /** Tasks finished so far (any outcome). */
  readonly processed: number;
  /** Tasks held right now: running, or reserved for a slot (prefetched, or queued in a pool child). */
  readonly active: number;
  /** Tasks running right now: the busy slots (absent from workers older than this field). */
  readonly busy?: number;
}

/** How many messages a queue holds in each place. */
export interface QueueStats {
  readonly ready: number;
  readonly delayed: number;
  readonly active: number;
  readonly dead: number;
}
